#pragma once
// A step's work as a power sensor sees it spent (PacedAmount, models/kernel/paced_amount.h): the FLOPs and lane
// operations issued with a step are done at an even pace over the busy intervals the engines spend on its phases.
// Plain C++, beside EngineShare: the compute units keep one StepWorkPacing per running step, and the power domain's
// reader (sim/engine/op_activity.h) subtracts what is still to come from the counts issued.
#include <array>
#include <cstddef>

#include "models/compute/op_execution.h"
#include "models/kernel/paced_amount.h"
#include "models/kernel/time_fs.h"

namespace roofsim {

// Work of an op issued to the engines but not done at some time: FLOPs, and lane operations of the other kinds of
// PhaseWork (vector_fma, vector_alu, exp2, reciprocal, rsqrt).
struct UnfinishedWork {
  double flops = 0;
  std::array<double, kWorkKinds - 1> ops{};
};

// One step of a tile on a compute unit as its energy is spent. Its FLOPs are counted whole when phase 0 is issued
// (OpExecution::executed_flops) and spent phase by phase: each phase takes a share in proportion to the weight it
// runs (its matrix FLOPs, or its operation count in a step without matrix work) over what the remaining phases run,
// and spends it over the busy interval of the engine doing that work. A phase's lane operations are counted when it
// is issued (OpExecution::executed_work) and spent over the busy interval of the engine running each kind.
class StepWorkPacing {
 public:
  // Phase 0 of a step with `flops` FLOPs was issued.
  void step_issued(double flops) { unstarted_flops_ = flops; }

  // A phase starts whose weight is `weight` of the `weight_left` that it and the phases after it run (`last`: it is
  // the last phase, or the phases after it run nothing). Its share of the FLOPs is spent over [flops_begin_fs,
  // flops_end_fs), its lane operations as `ops` says.
  void phase_started(std::uint64_t weight, std::uint64_t weight_left, bool last, TimeFs flops_begin_fs,
                     TimeFs flops_end_fs, const std::array<PacedAmount, kWorkKinds - 1>& ops) {
    const double share =
        last ? unstarted_flops_ : unstarted_flops_ * static_cast<double>(weight) / static_cast<double>(weight_left);
    unstarted_flops_ = last ? 0.0 : unstarted_flops_ - share;
    flops_ = PacedAmount{share, flops_begin_fs, flops_end_fs};
    ops_ = ops;
  }

  // Nothing issued.
  void clear() { *this = StepWorkPacing{}; }

  template <class Warp>
  void retime(TimeFs now_fs, const Warp& warp) {
    flops_.retime(now_fs, warp);
    for (auto& ops : ops_) ops.retime(now_fs, warp);
  }

  // Adds the work of the steps `running` (a slot's step computing and the one whose phase 0 started ahead) not done
  // at `at_fs` into `into`.
  static void add_unfinished(const std::array<StepWorkPacing, 2>& running, TimeFs at_fs, UnfinishedWork& into) {
    double flops = running[0].unstarted_flops_ + running[1].unstarted_flops_;
    for (const auto& step : running) {
      flops += step.flops_.left(at_fs);
      for (std::size_t kind = 0; kind < step.ops_.size(); ++kind) into.ops[kind] += step.ops_[kind].left(at_fs);
    }
    if (flops != 0) into.flops += flops;
  }

 private:
  double unstarted_flops_ = 0;  // of phases not yet started
  PacedAmount flops_;           // the running phase's share
  std::array<PacedAmount, kWorkKinds - 1> ops_{};
};

}  // namespace roofsim
