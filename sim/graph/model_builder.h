#pragma once
// The graph of one rank of a model (model_config.h) in a phase (prefill, decode, train) under a parallel layout
// (model_workload_args.h), made of the op kinds hand-written workloads and templates use, so that it is counted,
// lowered, simulated and reported like any other workload.
//
// One rank's view (the cluster run is SPMD): tensor parallelism splits heads, KV heads, the MLP width and the
// vocabulary as Megatron-LM does (Shoeybi et al. 2019), with two all-reduces per layer, or with sequence parallelism
// an all-gather before and a reduce-scatter after each parallel region (Korthikanti et al. 2023); the backward pass
// runs each forward collective's conjugate (all-reduce for all-reduce, reduce-scatter for all-gather and the reverse,
// all-to-all for all-to-all) at the mirrored place. Pipeline parallelism builds the last stage (L / pp blocks, the
// slowest: it has the LM head only when pp = 1, see below) with a receive and a send per micro-batch pass; each
// stage's graph orders its passes as the schedule (GPipe, 1F1B) does on that stage, so that a cluster run's bubble
// emerges from the receives; the schedule's analytic timeline (pipeline_schedule.h) is given beside the run. With pp >
// 1 the embedding and the LM head are left out of the stage graph (the memory footprint counts them). Expert
// parallelism builds the most loaded rank (moe_routing.h): the combine all-to-all waits for it, so its expert time is
// the layer's.
//
// Training: forward, loss, backward (for every GEMM its input gradient m x k x n and weight gradient k x n x m, for
// attention two passes of the forward's size, for norms and element-wise ops the same op again on the gradient),
// with full recomputation the forward of each layer again before its backward; per layer the gradient
// synchronisation over the data-parallel ranks (all-reduce, or reduce-scatter with ZeRO >= 1) as soon as its last
// gradient exists, then Adam on this rank's shard (fp32 master weights and moments; Kingma and Ba 2015,
// Algorithm 1: 12 FLOPs and one reciprocal square root per parameter), then, with ZeRO-1 and -2, the all-gather of the
// updated parameters. ZeRO-3 all-gathers each layer's parameters before its forward and again before its backward,
// one layer ahead (FSDP's prefetch). Expert parameters synchronise over dp / ep ranks.
//
// Ranks are laid out as Megatron-LM places them, tensor-parallel innermost: rank = ((dp_i x pp) + pp_i) x tp + tp_i,
// so that a tensor-parallel group (the most traffic, every layer) is tp consecutive ranks on one node's NVSwitch, a
// pipeline's neighbouring stages are tp ranks apart, and the data-parallel replicas of a stage and tensor index tp x pp
// apart (OpShape::group_stride); expert-parallel groups are ep consecutive replicas (stride tp x pp), and the expert
// gradients synchronise over the dp / ep replicas holding the same experts (stride tp x pp x ep).
#include <cstdint>
#include <optional>
#include <string>

#include "sim/config/work_limits.h"
#include "sim/graph/memory_footprint.h"
#include "sim/graph/model_config.h"
#include "sim/graph/model_workload_args.h"
#include "sim/graph/pipeline_schedule.h"
#include "sim/graph/workload.h"

namespace roofsim {

struct ModelWorkload {
  Workload workload;
  ModelConfig config;
  ModelWorkloadArgs args;
  MemoryFootprint memory;
  // MoE: the rank built and its share of the layer's expert assignments; dropped assignments per MoE layer.
  std::uint64_t expert_rank = 0;
  double expert_rank_share = 0;
  std::uint64_t dropped_per_layer = 0;
  std::optional<PipelineTimeline> pipeline;  // pp > 1: the schedule's timeline with t_b = 2 t_f
  // Training with pp > 1: stage s's graph, the same ops as `workload` with the micro-batches' forward and backward
  // passes in the order stage s of the schedule runs them (GPipe or 1F1B; interleaved runs as 1F1B), each pass after
  // the previous one, so that a cluster run's bubble follows from the sends and receives. Empty otherwise.
  std::vector<Workload> stage_workloads;
};

// Throws InputError (at "--set", naming the key) when the layout does not fit the model (tp not dividing heads, ...).
[[nodiscard]] ModelWorkload build_model_workload(const ModelConfig& config, const ModelWorkloadArgs& args,
                                                 Bytes alignment_bytes = kTensorAlignmentBytes,
                                                 const WorkLimits& limits = {});

}  // namespace roofsim
