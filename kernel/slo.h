/*
 * slo.h - public interface of libslo, the slo-kernel planning library: the
 * one header an embedder includes.
 *
 * Copyright (C) 2026 the slo-kernel authors
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * The parts, each with its own header (conventions in slo_core.h):
 *   slo_core.h   errors, durations, numbers, instance catalog, embedded data
 *   slo_train.h  training: spotDNN models, planners, loss fit
 *   slo_infer.h  inference: iGniter interference model and GPU placement
 *   slo_comm.h   gradient communication: link, simulator, policies, blocks
 * doc/api.md is the embedder's guide; doc/api/ has each planner's call in a
 * complete program (doc/examples/, compiled and run by tests/api_examples.sh).
 */
#ifndef SLO_H
#define SLO_H

#include "slo_core.h"
#include "slo_train.h"
#include "slo_infer.h"
#include "slo_comm.h"
#include "slo_replay.h" /* issue 13: spot traces, risk, replay */

#endif /* SLO_H */
