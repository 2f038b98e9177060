#pragma once
// Pipeline-parallel schedules as each stage's order of forward and backward passes, and the timeline that order gives
// when every pass of a stage takes the same time: plain C++, so that the bubble of each schedule is measured from the
// order itself rather than written down.
//   gpipe        every micro-batch's forward, then every backward (Huang et al., "GPipe", NeurIPS 2019)
//   1f1b         stage s runs min(p - s - 1, m) forwards, then alternates one forward and one backward, then drains
//                (PipeDream-Flush; Narayanan et al., "Memory-efficient pipeline-parallel DNN training", ICML 2021)
//   interleaved  each stage holds v model chunks; micro-batches advance in groups of p through the chunks, with
//                (p - s - 1) x 2 + (v - 1) x p warm-up forwards (Narayanan et al., SC'21, sec. 2.2.2, as Megatron-LM
//                schedules it); needs m a multiple of p
// With forward and backward times t_f and t_b per micro-batch and stage, 1F1B and GPipe take (m + p - 1)(t_f + t_b):
// a bubble of (p - 1) / (m + p - 1) of the step; interleaving divides the fill by v.
#include <cstdint>
#include <string_view>
#include <vector>

namespace roofsim {

enum class PipelineScheduleKind { gpipe, one_f_one_b, interleaved };

struct PipelinePass {
  bool forward = true;
  std::uint64_t micro_batch = 0;
  std::uint64_t chunk = 0;  // model chunk (0 unless interleaved)
};

// The order of passes on stage `stage` of `stages`.
[[nodiscard]] std::vector<PipelinePass> pipeline_order(PipelineScheduleKind kind, std::uint64_t stages,
                                                       std::uint64_t stage, std::uint64_t micro_batches,
                                                       std::uint64_t chunks);

struct PipelineTimeline {
  double step_s = 0;                 // from the first forward to the last backward
  double busy_s = 0;                 // per stage: m x (t_f + t_b)
  double bubble_fraction = 0;        // 1 - busy / step, of the stage with the most idle time
  std::uint64_t peak_in_flight = 0;  // most micro-batch chunks whose activations stage 0 holds at once
};

// Runs every stage's order with passes of `forward_s` and `backward_s` per micro-batch (divided among the chunks),
// each pass starting when its stage is free and its input exists. Throws std::invalid_argument for interleaved with m
// not a multiple of p.
[[nodiscard]] PipelineTimeline simulate_pipeline(PipelineScheduleKind kind, std::uint64_t stages,
                                                 std::uint64_t micro_batches, std::uint64_t chunks, double forward_s,
                                                 double backward_s);

[[nodiscard]] std::string_view to_string(PipelineScheduleKind kind);

}  // namespace roofsim
