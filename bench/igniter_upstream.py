#!/usr/bin/env python3
# igniter_upstream.py - time the authors' placement, algorithm() of
# i-Gniter/Algorithm/igniter-algorithm.py (github.com/icloud-ecnu/igniter,
# commit b1ff2ab; not shipped: its path is an argument), on a workload list,
# for bench_infer.c's side-by-side ratio (issue 19, item 5).
#
# usage: igniter_upstream.py ALGORITHM_PY CONFIG LIST REPS
#   ALGORITHM_PY  the authors' igniter-algorithm.py
#   CONFIG        its profile, i-Gniter/Algorithm/config (shared data:
#                 igniter/upstream-HEAD/i-Gniter/Algorithm/config)
#   LIST          one workload a line, model:slo_ms:rate_rps (integers, as
#                 the authors' -m option takes them)
#   REPS          timed runs (the median is printed)
# Prints one line: "<median seconds> <GPUs> <runs>", GPUs = config files the
# last run wrote (shared + dedicated), -1 when the authors' code raised
# IndexError writing the dedicated GPUs' configs after the placement (an
# upstream defect with fewer workloads than the largest batch; the time is
# then up to the exception). The fitting the authors' __main__ does
# first (curve_fit per model) is done once, untimed, as slo_ig_plan's timing
# excludes reading the profile. Each run gets fresh copies of the SLO and
# rate lists (algorithm() changes rate[] in place) and a fresh directory for
# the config_gpu*.json it writes; its prints go to a buffer. Needs numpy and
# scipy (the authors' imports). SPDX-License-Identifier: GPL-2.0-or-later
import contextlib
import importlib.util
import io
import os
import statistics
import sys
import tempfile
import time


def load(path):
    spec = importlib.util.spec_from_file_location("igniter_algorithm", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def setup(ig, config, names):
    """The authors' __main__ up to algorithm(), for the models in names."""
    profile = ig.loadprofile(config)
    ctx = ig.context
    hw = profile["hardware"]
    ctx.frequency = hw["maxGPUfrequency"]
    ctx.power = hw["maxGPUpower"]
    ctx.unit = hw["unit"]
    ctx.bandwidth = hw["bandwidth"]
    ctx.kernels = []
    ctx.idlepower = hw["idlepower"]
    ctx.powerp = ig.power_frequency(hw["power"], hw["frequency"])
    ctx.idlef = ig.idletime(hw["idletime"], hw["frequency"])
    models = {}
    for i in names:
        m = ig.Model()
        m.name = i + "_dynamic"
        m.kernels = profile[i]["kernel"]
        m.baseidle = profile[i]["idletime_1"]
        m.inputdata = profile[i]["inputdata"]
        m.outputdata = profile[i]["outputdata"]
        m.l2cache = profile[i]["l2cache"]
        m.k_l2 = ((profile[i]["activetime_2"] * profile[i]["frequency_2"] / ctx.frequency) /
                  profile[i]["activetime_1"] - 1) / (m.l2cache)
        m.act_popt = ig.activetime(profile[i]["gpulatency"], profile[i]["frequency"],
                                   profile[i]["idletime_1"])
        m.power_popt, m.l2cache_popt = ig.power_l2cache(
            profile[i]["power"], profile[i]["gpulatency"], m.baseidle, ctx.idlepower,
            profile[i]["l2caches"], profile[i]["frequency"])
        ctx.kernels.append(m.kernels)
        models[i] = m
    return models


def main(argv):
    if len(argv) != 5:
        sys.stderr.write("usage: igniter_upstream.py ALGORITHM_PY CONFIG LIST REPS\n")
        return 2
    algo, config, listfile, reps = argv[1], argv[2], argv[3], int(argv[4])
    rows = []
    with open(listfile) as f:
        for line in f:
            if line.strip():
                model, slo, rate = line.strip().split(":")
                rows.append((model, int(slo), int(rate)))
    ig = load(os.path.abspath(algo))
    models = setup(ig, os.path.abspath(config), sorted({r[0] for r in rows}))
    workloads = [models[r[0]] for r in rows]
    times, gpus, crashed = [], 0, False
    here = os.getcwd()
    for _ in range(reps):
        with tempfile.TemporaryDirectory() as d:
            os.chdir(d)
            slos, rates = [r[1] for r in rows], [r[2] for r in rows]
            try:
                with contextlib.redirect_stdout(io.StringIO()):
                    t0 = time.perf_counter()
                    try:
                        ig.algorithm(workloads, slos, rates)
                    except IndexError:
                        # upstream defect (notes 5.2): the configs of the
                        # dedicated GPUs index batch[] by the batch size, out
                        # of range when there are fewer workloads than that;
                        # the placement itself is complete by then
                        crashed = True
                    times.append(time.perf_counter() - t0)
                gpus = sum(1 for n in os.listdir(d) if n.startswith("config_gpu"))
            finally:
                os.chdir(here)
    # one write (PYTHONUNBUFFERED would split print's text and newline)
    sys.stdout.write("%.6f %d %d\n" % (statistics.median(times), -1 if crashed else gpus, reps))
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
