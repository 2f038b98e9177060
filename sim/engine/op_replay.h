#pragma once
// Memoized op execution on one device (the plain part, signatures and the store, is sim/engine/op_memo.h). Before
// an op's first tile the dispatcher asks this hook (models/compute/op_replay_hook.h): an op that starts alone on the
// device (no other simulated op in flight) and whose signature was recorded is replayed: its counters, DRAM counts,
// unit-time accounting and tile spans are booked from the record, shifted to its start, the cache contents the
// recorded op left of its own tensors are installed at its own tensors' addresses, and the dispatcher ends it after
// the recorded duration. An op that starts alone and is not in the store is simulated and, if no other op started
// and it lasted at least `shortest_record_fs`, recorded. With the detailed DRAM that is kRecordRefreshIntervals
// refreshes of a channel at the interval of the refresh mode the controller runs (shortest_record_fs_of: tREFI for
// all-bank refresh, tREFIsb for per-bank): one refresh more or less in the op then moves it by at most a sixteenth of
// the share of time refresh takes (all-bank HBM3, tRFC / tREFI = 11.5%: 0.7%; per-bank HBM3, a bank of 16 for tRFCsb
// every tREFIsb, 4.1%: 0.3%). Per-bank refresh thus records ops from 3.9 us on H100, the norms, residual adds and
// every op of a decode step among them. A replayed op still differs from its --exact twin by the DRAM state and
// address placement the signature leaves out (op_memo.h): on Llama-2 70B TP8 decode, 80 layers, the worst op by 3.7%,
// the total by 0.24%. Ops that overlap others are simulated: their overlap pattern is not part of the signature.
//
// Under a power cap the governor re-clocks ops while they run. A record holds the op's clock course (the changes at
// times relative to its start) and the governor policy's state at its end; the key adds the policy's state at launch
// in classes (GovernorPolicy::classify). A replay imposes the recorded course on the clock, the policy deciding
// nothing meanwhile, and leaves the policy in the recorded end state, moved to the replay's end
// (GovernorModule::impose): the ops after it find the clock and the governor as they would after the twin, and the
// next layer's op replays this one's exactly when the governor's state repeats.
//
// A fast-forward (sim/engine/wave_fast_forward.h) under a cap skips only the waves that end before the governor
// could decide (GovernorModule::skip_bound_fs), and the governor counts the windows skipped (skip_windows); the
// skipped waves' time passes after the op's last tile as a hold over which the clock is imposed at the states they
// were skipped at and their counters are spent at an even pace (SkippedWaves), and after which the policy is left as
// it was at the hold's start, moved by the hold: the order in which the simulated tail and the skipped waves pass
// then changes neither the clocks they run at nor the governor's state after the op.
#include <string>
#include <vector>

#include "models/compute/compute_unit.h"
#include "models/compute/dispatch_policy.h"
#include "models/compute/dispatcher.h"
#include "models/compute/op_replay_hook.h"
#include "models/dram/dram_params.h"
#include "models/power/clock_domain.h"
#include "models/power/governor_module.h"
#include "sim/engine/op_memo.h"
#include "sim/engine/wave_fast_forward.h"
#include "sim/graph/workload.h"

namespace roofsim {

inline constexpr std::uint64_t kRecordRefreshIntervals = 16;

// The shortest op recorded with the detailed DRAM `dram` (0: every op; no refresh).
[[nodiscard]] TimeFs shortest_record_fs_of(const DramParams& dram);

class DeviceOpReplay final : public OpReplayHook {
 public:
  DeviceOpReplay(const Workload& workload, std::vector<OpExecution>& executions, const DispatchPolicy& policy,
                 MemorySystem& memory, EngineDramAdapter* dram, Dispatcher& dispatcher, const ClockDomain& clock,
                 OpMemoStore& store, TimeFs shortest_record_fs);

  [[nodiscard]] TimeFs op_starting(std::size_t op, TimeFs now) override;
  void op_finished(std::size_t op, TimeFs now) override;
  // Steady-state fast-forward (sim/engine/wave_fast_forward.h) of an op that runs alone: at each wave boundary its
  // state and counters go to the op's WaveFastForward; when it skips, the skipped waves' counters are booked here.
  [[nodiscard]] WaveSkip wave_boundary(std::size_t op, std::uint64_t tile, TimeFs now) override;
  // The same inside tiles: at each step boundary of an op that runs alone (TileListener::step_boundary) its state and
  // counters go to the op's step detector; when it skips, every slot of the op skips the same steps.
  [[nodiscard]] TimeFs step_boundary(std::size_t op, TimeFs now) override;
  void hold_started(std::size_t op, TimeFs now) override;
  // The power governor, whose state the signature classes and whose clock a replay imposes (none: no power domain).
  void set_governor(GovernorModule& governor) { governor_ = &governor; }
  // The units whose slots the fast-forward's state class reads and skips steps of (none: no fast-forward).
  void set_units(std::vector<ComputeUnit*> units);

  // The signature of `op` if it started now (public for tests).
  [[nodiscard]] std::string signature(std::size_t op) const;

 private:
  struct Recording {
    std::size_t op = 0;
    std::string signature;
    TimeFs start_fs = 0;
    std::vector<LevelCounters> levels;
    Bytes dram_read = 0, dram_written = 0, asked = 0;
    std::size_t spans = 0;
    std::uint64_t clock_changes = 0;
    TimeFs next_act_in_fs = 0;  // the governor's (GovernorPolicy::next_act_in_fs) at the start
    bool valid = true;
  };

  // An op being fast-forwarded: its detector and, for each skip, what the op's hold and end adjust.
  struct Forward {
    std::size_t op = 0;
    WaveFastForward detector;      // at wave boundaries
    WaveFastForward steps;         // at step boundaries
    std::size_t spans_before = 0;  // tile spans recorded before the op's last wave boundary
    TimeFs last_boundary_fs = 0;
    struct Skipped {
      TimeFs skip_fs = 0;  // when it skipped
      TimeFs hold_fs = 0, wave_fs = 0;
      std::uint64_t waves = 0;
      std::size_t clock_state = 0;       // the compute clock's state the waves ran at
      std::vector<TileSpan> wave_spans;  // the spans of the last wave before the skip
      bool inside_tiles = false;         // steps skipped: the tiles running at the skip last the hold longer
    };
    std::vector<Skipped> skips;
    bool holding = false;
  };
  [[nodiscard]] WaveFastForward::Boundary boundary_of(std::size_t op, TimeFs now) const;
  [[nodiscard]] Forward& forward_of(std::size_t op);
  // The state and counters at a step boundary of `op`, whose slots are `slots`.
  [[nodiscard]] WaveFastForward::Boundary step_state(std::size_t op, TimeFs now,
                                                     const std::vector<ComputeUnit::SlotSteps>& slots);
  // Books the skip's counters; the skipped work (executed flops and operations) is added to the op by the caller and
  // passed here for the power domain's pacing. `rated`: the counters were scaled by progress (inside tiles).
  void book_skip(Forward& f, const WaveFastForward::Skip& skip, Flops flops, const PhaseWork& work, bool rated,
                 TimeFs now);
  void note_skip(Forward& f, const WaveFastForward::Skip& skip, bool inside_tiles, TimeFs now);
  void end_fast_forward(Forward& f);
  [[nodiscard]] std::vector<const Tensor*> tensors_of(std::size_t op) const;
  void replay(std::size_t op, const OpRecord& record, TimeFs start_fs);
  [[nodiscard]] std::unique_ptr<OpRecord> record(const Recording& recording, TimeFs end_fs);

  const Workload& workload_;
  std::vector<OpExecution>& executions_;
  const DispatchPolicy& policy_;
  MemorySystem& memory_;
  EngineDramAdapter* dram_;
  Dispatcher& dispatcher_;
  const ClockDomain& clock_;
  OpMemoStore& store_;
  TimeFs shortest_record_fs_;
  std::size_t sram_levels_ = 0;
  std::vector<Recording> recordings_;
  std::vector<ComputeUnit*> units_;
  std::vector<Forward> forwards_;
  std::vector<UnfinishedWork> unfinished_;  // scratch of step_boundary
  GovernorModule* governor_ = nullptr;
};

}  // namespace roofsim
