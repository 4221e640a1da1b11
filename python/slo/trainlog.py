"""slo.trainlog - the per-step logger a training loop calls (doc/train-kit.md).

StepLogger writes, for one worker of an asynchronous parameter-server (PS)
job, the per-worker training log CSV that `slo fit train` reads
(doc/formats.md, "Training logs"): a "# cluster: TYPE=N,..." comment naming
the whole cluster, then the header

    time_s,global_step,global_samples,loss,worker,type,batch,step_s

and one row per step.  time_s is seconds since the logger was made
(monotonic clock); global_step and global_samples are the PS's counters
after this worker's update (spotDNN's Eq. 4 weighted-average batch is their
ratio); loss is the worker's training loss on that step's batch; the last
four columns are extra (the reader ignores them): the worker index, its
instance type, its batch size (samples) and the wall time of the step in s
(the iteration time T^k of spotDNN Eqs. 6-8).

Beside it the logger keeps a progress file (JSON, replaced atomically with
os.replace so a reader never sees half a file) that the Slurm side reads
for re-planning:

    {"format": "slo-train-progress-1", "cluster": "a=1,b=1", "worker": 0,
     "type": "a", "batch": 32, "elapsed_s": 12.5, "iterations": 300,
     "global_step": 601, "global_samples": 14400, "loss": 0.21,
     "done": false, "node": "n1", "updated_unix_s": 1796169600.1}

iterations counts this worker's steps; done is true once close() ran; node
is SLURMD_NODENAME inside a Slurm job step, else the host name.

With model= and parameter_bytes= two more comments precede the cluster
line, "# model: NAME" and "# parameter_bytes: N": `slo fit train` then
refuses logs of different models mixed and takes the communication volume
per iteration (S_parm) from the bytes.

Bad values are refused with ValueError naming the field, what was expected
and what was found, before anything is written: a global_step or
global_samples below the previous row's, global_samples below global_step
(the reader refuses these too), a negative, NaN or infinite number, a bool,
a count above 1e15 or a loss above 1e6 (the reader's limits), a type name
holding "=" or "," or longer than 63 characters.  A logger whose progress
file cannot be written leaves no CSV behind.

Standard library only (no torch), so a training script on any framework
can use it.
"""

import json
import math
import os
import time

FORMAT = "slo-train-progress-1"
COLUMNS = ("time_s", "global_step", "global_samples", "loss", "worker", "type", "batch",
           "step_s")
MAX_TYPE = 63


def _check_type(name, what="type"):
    if not isinstance(name, str) or not name or len(name) > MAX_TYPE or \
            any(c in name for c in "=,# \t\r\n\""):
        raise ValueError("%s: expected an instance type name of 1-%d characters without "
                         "'=', ',', '#', '\"' or spaces, found %r" % (what, MAX_TYPE, name))
    return name


def parse_cluster(spec):
    """Parse "TYPE=N,TYPE=N" into a dict {type: count} (the rules of the
    "# cluster:" comment, doc/formats.md): spaces ignored, each type once,
    N a decimal integer >= 1.  ValueError names the item on bad input."""
    if isinstance(spec, dict):
        items = list(spec.items())
    else:
        text = str(spec).replace(" ", "").replace("\t", "")
        if not text:
            raise ValueError("cluster: expected TYPE=N,TYPE=N,..., found nothing")
        items = []
        for item in text.split(","):
            name, eq, count = item.partition("=")
            if not eq:
                raise ValueError("cluster: expected TYPE=N, found %r" % item)
            items.append((name, count))
    out = {}
    for name, count in items:
        _check_type(name, "cluster")
        if name in out:
            raise ValueError("cluster: expected each type once, found %s twice" % name)
        if isinstance(count, int) and not isinstance(count, bool):
            n = count
        elif isinstance(count, str) and count.isdigit():
            n = int(count)
        else:
            n = -1
        if n < 1:
            raise ValueError("cluster: expected a worker count >= 1 for %s, found %r"
                             % (name, count))
        out[name] = n
    return out


def format_cluster(cluster):
    """The normalized cluster text: items sorted by type name (strcmp
    order), "TYPE=N" joined by ",", as `slo fit train` stores it."""
    c = parse_cluster(cluster)
    return ",".join("%s=%d" % (t, c[t]) for t in sorted(c, key=lambda s: s.encode()))


# The largest value `slo fit train` reads in each column (kernel/train/trainlog.c
# col_max): a row beyond them would make the whole log unreadable there.
COUNT_MAX = 10 ** 15     # global_step, global_samples (exact in a double)
LOSS_MAX = 1e6
BATCH_MAX = 2 ** 30
WORKER_MAX = 10 ** 6      # the logger's own bound: the reader has no worker column


def _shown(value, width=40):
    """repr(value) cut to width characters, for a message."""
    try:
        r = repr(value)
    except ValueError:              # an int beyond Python's str() digit limit
        r = "an integer of %d bits" % value.bit_length()
    return r if len(r) <= width else r[:width - 3] + "..."


def _number(field, value, integer=False, limit=None):
    """value as a float (an int with integer=True) in [0, limit]; a bool, a
    fractional count or anything beyond the limit is a ValueError naming field.
    An int is taken exactly (float() would round counts above 2^53)."""
    if isinstance(value, bool):
        raise ValueError("%s: expected a number >= 0, found %s" % (field, _shown(value)))
    if integer and isinstance(value, int):
        x = value
    else:
        try:
            x = float(value)
        except (TypeError, ValueError, OverflowError):
            raise ValueError("%s: expected a number >= 0, found %s"
                             % (field, _shown(value))) from None
        if not math.isfinite(x) or x < 0 or (integer and x != int(x)):
            raise ValueError("%s: expected %s >= 0, found %s"
                             % (field, "an integer" if integer else "a finite number",
                                _shown(value)))
        if integer:
            x = int(x)
    if x < 0:
        raise ValueError("%s: expected an integer >= 0, found %s" % (field, _shown(value)))
    if limit is not None and x > limit:
        raise ValueError("%s: expected %s in [0, %g] (what slo fit train reads), found %s"
                         % (field, "an integer" if integer else "a number", limit,
                            _shown(value)))
    return x


def node_name():
    """The node this process runs on: Slurm's SLURMD_NODENAME inside a job
    step (a node name, also on a cluster of fake nodes sharing one host),
    else the host name."""
    return os.environ.get("SLURMD_NODENAME") or os.uname().nodename


def write_json_atomic(path, obj):
    """Write obj as JSON to path by writing path.tmp.PID and renaming it over
    path (os.replace: atomic on POSIX), so a reader sees the old or the new
    file, never a half-written one."""
    tmp = "%s.tmp.%d" % (path, os.getpid())
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(obj, f, sort_keys=True)
        f.write("\n")
    os.replace(tmp, path)


class StepLogger:
    """Per-step logger of one worker (module docstring for the files).

    path       the CSV to write (created or truncated)
    cluster    the whole cluster: {"type": count} or "TYPE=N,..."
    worker     this worker's index (int >= 0)
    type       this worker's instance type (must be in cluster)
    batch      this worker's batch size in samples (int >= 1)
    progress   the progress JSON path, or None for none
    progress_every_s  least seconds between two progress rewrites (the
               first and the last step are always written)
    comment    optional text for a leading "# ..." line (e.g. the model)
    model      optional model name for a "# model: NAME" line (1-63
               characters, no newline): `slo fit train` refuses logs of
               different models fitted together
    parameter_bytes  optional bytes of the model's parameters (= of one
               gradient push; an int >= 1) for a "# parameter_bytes: N"
               line: `slo fit train` takes S_parm from it and then fits a
               complete workload profile (doc/cli.md)

    Each row is flushed at once, so a job killed mid-run leaves a log that
    `slo fit train` reads up to its last full row."""

    def __init__(self, path, cluster, worker, type, batch, progress=None,
                 progress_every_s=0.5, comment=None, model=None, parameter_bytes=None):
        self.cluster = format_cluster(cluster)
        self.type = _check_type(type)
        if self.type not in parse_cluster(self.cluster):
            raise ValueError("type: expected one of the cluster's types (%s), found %r"
                             % (self.cluster, type))
        self.worker = _number("worker", worker, integer=True, limit=WORKER_MAX)
        self.batch = _number("batch", batch, integer=True, limit=BATCH_MAX)
        if self.batch < 1:
            raise ValueError("batch: expected an integer >= 1, found %r" % batch)
        if model is not None:
            model = str(model)
            if not model or len(model) > MAX_TYPE or any(c in model for c in "\r\n"):
                raise ValueError("model: expected a name of 1-%d characters on one line, "
                                 "found %r" % (MAX_TYPE, model))
        if parameter_bytes is not None:
            parameter_bytes = _number("parameter_bytes", parameter_bytes, integer=True)
            if not 1 <= parameter_bytes <= 10 ** 13:
                raise ValueError("parameter_bytes: expected an integer in [1, 1e13], found %r"
                                 % parameter_bytes)
        self.path = path
        self.progress = progress
        self.progress_every_s = float(progress_every_s)
        self.iterations = 0
        self.last_step = 0
        self.global_samples = 0
        self.loss = None
        self.closed = False
        self._t0 = time.monotonic()
        self._t_prev = self._t0
        self._t_progress = None
        self._f = open(path, "w", encoding="utf-8", newline="")
        try:
            self._start(comment, model, parameter_bytes)
        except BaseException:
            # nothing half-written: no CSV without its progress file
            self._f.close()
            try:
                os.unlink(path)
            except OSError:
                pass
            raise

    def _start(self, comment, model, parameter_bytes):
        if comment:
            self._f.write("# %s\n" % " ".join(str(comment).split()))
        if model is not None:
            self._f.write("# model: %s\n" % model.strip())
        if parameter_bytes is not None:
            self._f.write("# parameter_bytes: %d\n" % parameter_bytes)
        self._f.write("# cluster: %s\n" % self.cluster)
        self._f.write(",".join(COLUMNS) + "\n")
        self._f.flush()
        if self.progress:
            self._write_progress(False)

    @classmethod
    def from_env(cls, batch, environ=None, **kw):
        """A logger from the variables slo-profile-train sets for each worker
        (doc/train-kit.md): SLO_TRAIN_CLUSTER, SLO_TRAIN_WORKER,
        SLO_TRAIN_TYPE and SLO_TRAIN_LOG_DIR (files worker-W.csv and
        progress-W.json there), and, when set (optional), SLO_TRAIN_MODEL and
        SLO_TRAIN_PARAMETER_BYTES for model and parameter_bytes (a keyword
        argument wins).  KeyError names a missing variable."""
        env = os.environ if environ is None else environ
        for k in ("SLO_TRAIN_CLUSTER", "SLO_TRAIN_WORKER", "SLO_TRAIN_TYPE",
                  "SLO_TRAIN_LOG_DIR"):
            if k not in env:
                raise KeyError("%s: expected it in the environment (slo-profile-train sets "
                               "it), found it unset" % k)
        w = int(env["SLO_TRAIN_WORKER"])
        d = env["SLO_TRAIN_LOG_DIR"]
        if "model" not in kw and env.get("SLO_TRAIN_MODEL"):
            kw["model"] = env["SLO_TRAIN_MODEL"]
        if "parameter_bytes" not in kw and env.get("SLO_TRAIN_PARAMETER_BYTES"):
            kw["parameter_bytes"] = env["SLO_TRAIN_PARAMETER_BYTES"]
        return cls(os.path.join(d, "worker-%d.csv" % w), env["SLO_TRAIN_CLUSTER"], w,
                   env["SLO_TRAIN_TYPE"], batch,
                   progress=os.path.join(d, "progress-%d.json" % w), **kw)

    def elapsed_s(self):
        return time.monotonic() - self._t0

    def log(self, global_step, global_samples, loss):
        """Log one step: the PS's global_step and global_samples after this
        worker's update (ints >= 0, global_step not below the previous
        row's) and the worker's training loss (finite, >= 0).  ValueError on
        bad values (nothing written)."""
        if self.closed:
            raise ValueError("log: expected an open logger, found it closed")
        step = _number("global_step", global_step, integer=True, limit=COUNT_MAX)
        samples = _number("global_samples", global_samples, integer=True, limit=COUNT_MAX)
        loss = _number("loss", loss, limit=LOSS_MAX)
        if step < self.last_step:
            raise ValueError("global_step: expected a value >= %d (the previous row's; "
                             "global_step must not decrease), found %d"
                             % (self.last_step, step))
        # the reader's two rules on the PS's sample count (kernel/train/trainlog.c)
        if samples < self.global_samples:
            raise ValueError("global_samples: expected a value >= %d (the previous row's; "
                             "the PS's sample count must not decrease), found %d"
                             % (self.global_samples, samples))
        if samples < step:
            raise ValueError("global_samples: expected at least global_step (%d; every "
                             "parameter update uses a batch of >= 1 sample), found %d"
                             % (step, samples))
        now = time.monotonic()
        step_s = now - self._t_prev
        self._t_prev = now
        self._f.write("%.6f,%d,%d,%.8g,%d,%s,%d,%.6f\n"
                      % (now - self._t0, step, samples, loss, self.worker, self.type,
                         self.batch, step_s))
        self._f.flush()
        self.iterations += 1
        self.last_step = step
        self.global_samples = samples
        self.loss = loss
        if self.progress and (self._t_progress is None or self.iterations == 1 or
                              now - self._t_progress >= self.progress_every_s):
            self._write_progress(False)

    def _write_progress(self, done):
        self._t_progress = time.monotonic()
        write_json_atomic(self.progress, {
            "format": FORMAT, "cluster": self.cluster, "worker": self.worker,
            "type": self.type, "batch": self.batch, "elapsed_s": round(self.elapsed_s(), 6),
            "iterations": self.iterations, "global_step": self.last_step,
            "global_samples": self.global_samples, "loss": self.loss, "done": done,
            "node": node_name(), "updated_unix_s": round(time.time(), 3)})

    def close(self):
        """Flush and close the CSV and write the final progress (done: true)."""
        if self.closed:
            return
        self._f.close()
        if self.progress:
            self._write_progress(True)
        self.closed = True

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False
