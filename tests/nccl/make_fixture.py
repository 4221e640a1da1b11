"""make_fixture.py - writes all_reduce_perf_8gpu.txt: NOT a measurement.
An nccl-tests all_reduce_perf report in the exact print format of
NVIDIA/nccl-tests 2.19.6 (src/util.cu writeDeviceReport, writeResultHeader,
writeBenchmarkLinePreamble, the "%12li  %12li  %8s  %6s  %6s" row preamble
and "  %7s  %6s  %6s  %6g" per placement; src/all_reduce.cu
AllReduceGetBw: algbw = bytes / 1e9 / s, busbw = algbw x 2(p-1)/p), with
times made from a known alpha-beta model so a test can check the fit
against it:  8 ranks, out-of-place t = 30 us + bytes / 20 GB/s, in-place
2 % faster.  Run: python3 make_fixture.py > all_reduce_perf_8gpu.txt"""

P = 8
ALPHA_US = 30.0
ALG_GBPS = 20.0


def fstr(width, v):  # util.cu getFloatStr
    for fmt in ("%*.2f", "%*.1f", "%*.0f"):
        s = fmt % (width, v)
        if len(s) <= width:
            return s
    return ("%*.1e" if width >= 7 else "%*.0e") % (width, v)


print("# nccl-tests version 2.19.6 nccl-headers=22803 nccl-library=22803")
print("# Collective test starting: all_reduce_perf")
print("# nThread 1 nGpus 8 minBytes 8 maxBytes 134217728 step: 2(factor) warmup iters: 1 iters: 20 "
      "agg iters: 1 validation: 1 graph: 0 unalign: 0")
print("#")
print("# Using devices")
for r in range(P):
    print("#  Rank %2d Group %2d Pid %6d on %10s device %2d [%04x:%02x:%02x] %s"
          % (r, 0, 41230, "gpu-node01", r, 0, 0x07 + 0x10 * r, 0, "NVIDIA A100-SXM4-80GB"))
print("#")
print("# %10s  %12s  %8s  %6s  %6s           out-of-place                       in-place          "
      % ("", "", "", "", ""))
print("# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s " %
      ("size", "count", "type", "redop", "root", "time", "algbw", "busbw", "#wrong", "time",
       "algbw", "busbw", "#wrong"))
print("# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s " %
      ("(B)", "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)", "(GB/s)", ""))
s = 8
while s <= 134217728:
    line = "%12li  %12li  %8s  %6s  %6s" % (s, s // 4, "float", "sum", "%6i" % -1)
    for scale in (1.0, 0.98):
        t = (ALPHA_US + s / (ALG_GBPS * 1e3)) * scale
        t_str = fstr(7, t)
        alg = s / 1e9 / (float(t_str) * 1e-6)
        line += "  %7s  %6s  %6s  %6g" % (t_str, fstr(6, alg), fstr(6, alg * 2 * (P - 1) / P), 0)
    print(line)
    s *= 2
print("# %-20s : %d %s" % ("Out of bounds values", 0, "OK"))
print("# %-20s : %g %s" % ("Avg bus bandwidth", 10.8812, ""))
print("#")
print("# Collective test concluded: all_reduce_perf")
