#!/usr/bin/python3
# make_fixtures.py - writes tests/infer/{pa,smi,ncu}/*.csv: the outputs the
# profiling recipe of doc/infer.md ("Profiling your GPU") would give on the
# authors' V100 for ResNet-50, in each tool's real output format, with the
# values of the upstream profile (etc/slo/gpus/v100.json = icloud-ecnu/igniter
# @b1ff2ab i-Gniter/Algorithm/config), so converting them must give that
# profile back (tests/cli_convert.sh). Formats:
#  - perf_analyzer -f CSV: header of Triton's docs/perf_analyzer.md (client
#    repo src/c++/perf_analyzer/docs, "Visualizing Latency vs. Throughput"),
#    times in microseconds, rows not sorted by concurrency (as printed there);
#  - nvidia-smi --query-gpu=timestamp,name,index,power.draw,clocks.sm
#    --format=csv -lms 100: "name [unit]" headers, values with units;
#  - ncu --csv --metrics gpu__time_duration.sum,lts__t_sectors.avg.pct_of_
#    peak_sustained_elapsed: ==PROF== banner, then one quoted row per kernel
#    and metric, thousands separators in values.
# Run: /usr/bin/python3 tests/infer/make_fixtures.py (from the source tree).
import json, math, os
here = os.path.dirname(os.path.abspath(__file__))
prof = json.load(open(os.path.join(here, "..", "..", "etc", "slo", "gpus", "v100.json")))
m, hw = prof["resnet50"], prof["hardware"]
B, R = [1, 16, 32], [10, 50, 100]
for d in ("pa", "smi", "ncu"):
    os.makedirs(os.path.join(here, d), exist_ok=True)

PA = ("Concurrency,Inferences/Second,Client Send,Network+Server Send/Recv,Server Queue,"
      "Server Compute Input,Server Compute Infer,Server Compute Output,Client Recv,"
      "p50 latency,p90 latency,p95 latency,p99 latency\n")
for i, b in enumerate(B):
    for j, r in enumerate(R):
        us = round(m["gpulatency"][i][j] * 1000)
        def row(c, infer):
            q = (c - 1) * infer
            lat = 180 + 1200 + q + 40 + infer + 5 + 9
            return "%d,%.1f,180,1200,%d,40,%d,5,9,%d,%d,%d,%d\n" % (
                c, 1e6 * b * c / (lat + 1e-9), q, infer, lat, lat + 50, lat + 80, lat + 200)
        with open(os.path.join(here, "pa", "resnet50-b%d-r%d.csv" % (b, r)), "w") as f:
            f.write(PA + row(2, us + 37) + row(1, us))

def smi(path, power, clock, n=8):
    # n samples: power symmetric around the mean (2 decimals, as nvidia-smi
    # prints), clocks integers whose mean is within 0.5 MHz of the value
    lo = math.floor(clock)
    k = round((clock - lo) * n)
    with open(path, "w") as f:
        f.write("timestamp, name, index, power.draw [W], clocks.sm [MHz]\n")
        for s in range(n):
            dp = (1.5 if s % 2 else -1.5) if s < n - (n % 2) else 0.0
            f.write("2026/11/30 10:00:%02d.%03d, Tesla V100-SXM2-16GB, 0, %.2f W, %d MHz\n"
                    % (s // 10, 100 * (s % 10), power + dp, lo + (1 if s < k else 0)))
for i, b in enumerate(B):
    for j, r in enumerate(R):
        smi(os.path.join(here, "smi", "resnet50-b%d-r%d.csv" % (b, r)), m["power"][i][j],
            m["frequency"][i][j])
smi(os.path.join(here, "smi", "resnet50-pair.csv"), m["power_2"], m["frequency_2"])
for c in range(len(hw["power"])):
    smi(os.path.join(here, "smi", "hw-c%d.csv" % (c + 1)), hw["power"][c], hw["frequency"][c])
smi(os.path.join(here, "smi", "idle.csv"), hw["idlepower"], 135)

NCU = ('"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream",'
       '"Block Size","Grid Size","Device","CC","Section Name","Metric Name","Metric Unit",'
       '"Metric Value"\n')
def ncu(path, kernels, busy_ms, l2):
    # durations varying around busy_ms / kernels (integers, ns), L2 values whose
    # duration-weighted mean is l2 (printed to 2 decimals, as ncu prints)
    w = [1 + 0.5 * math.sin(k) for k in range(kernels)]
    d = [round(busy_ms * 1e6 * x / sum(w)) for x in w]
    v = [1 + 0.3 * math.cos(k) for k in range(kernels)]
    scale = l2 * sum(d) / sum(x * y for x, y in zip(v, d))
    with open(path, "w") as f:
        f.write("==PROF== Connected to process 4242 (/usr/src/tensorrt/bin/trtexec)\n")
        for k in range(kernels):
            f.write("==PROF== Profiling \"kernel_%d\" - %d: 0%%....50%%....100%% - 2 passes\n" % (k, k))
        f.write("==PROF== Disconnected from process 4242\n" + NCU)
        for k in range(kernels):
            base = ('"%d","4242","trtexec","127.0.0.1","trt_volta_scudnn_128x64_relu_kernel_%d",'
                    '"1","7","(128, 1, 1)","(196, 1, 1)","0","7.0","Command line profiler metrics",' % (k, k))
            f.write(base + '"gpu__time_duration.sum","nsecond","{:,}"\n'.format(d[k]))
            f.write(base + '"lts__t_sectors.avg.pct_of_peak_sustained_elapsed","%%","%.2f"\n' % (v[k] * scale))
ncu(os.path.join(here, "ncu", "resnet50-b1-r20.csv"), m["kernel"], m["activetime_1"], m["l2cache"])
for (b, r), l2 in zip([(1, 10), (16, 50), (32, 100)], m["l2caches"]):
    ncu(os.path.join(here, "ncu", "resnet50-b%d-r%d.csv" % (b, r)), m["kernel"], m["activetime_1"] * b, l2)
