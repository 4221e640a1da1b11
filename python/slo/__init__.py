"""slo - the slo-kernel Python package: PyTorch integration of the `slo comm`
gradient block planner (doc/comm.md).

  slo.profiler  per-layer forward / gradient ready times and bytes, written
                as the per-layer CSV `slo comm --model` reads
  slo.ddp       a DDP communication hook that executes a `slo comm` plan
  slo.plan      plan reading and the validation rules shared with
                libsloprophet (same plan, same gradients)

torch is imported by slo.profiler, slo.layers and slo.ddp only; slo.plan
needs the standard library alone."""

from .plan import PlanError, load_plan, parse_plan  # noqa: F401

__all__ = ["PlanError", "load_plan", "parse_plan"]
