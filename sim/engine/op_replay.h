#pragma once
// Memoized op execution on one device (the plain part, signatures and the store, is sim/engine/op_memo.h). Before
// an op's first tile the dispatcher asks this hook (models/compute/op_replay_hook.h): an op that starts alone on the
// device (no other simulated op in flight) and whose signature was recorded is replayed: its counters, DRAM counts,
// unit-time accounting and tile spans are booked from the record, shifted to its start, the cache contents the
// recorded op left of its own tensors are installed at its own tensors' addresses, and the dispatcher ends it after
// the recorded duration. The DRAM's idle channels issue the refreshes due by the replay's start then, and at its end
// those due by its end less the refresh lag each channel had at the twin's end (OpRecord::refresh_lag_fs): the next
// op's first decisions issue and are charged with the refreshes the twin left owed, as after the twin, rather than
// none. A block at an end of one of the op's tensors that the install reaches keeps the other tensors' sectors it held
// (DeviceOpReplay::foreign_sectors). An op that starts alone and is not in the store is simulated and, if no other op
// started and it lasted at least `shortest_record_fs`, recorded. With the detailed DRAM that is kRecordRefreshIntervals
// refreshes of a channel at the interval of the refresh mode the controller runs (shortest_record_fs_of: tREFI for
// all-bank refresh, tREFIsb for per-bank): one refresh more or less in the op then moves it by at most a sixteenth of
// the share of time refresh takes (all-bank HBM3, tRFC / tREFI = 11.5%: 0.7%; per-bank HBM3, a bank of 16 for tRFCsb
// every tREFIsb, 4.1%: 0.3%). Per-bank refresh thus records ops from 3.9 us on H100, the norms, residual adds and
// every op of a decode step among them. A replayed op still differs from its --exact twin by the DRAM state and
// address placement the signature leaves out (op_memo.h): on Llama-2 70B TP8 decode, 80 layers, the worst op by 3.7%,
// the total by 0.24%. Ops that overlap others are not replayed alone (their overlap pattern is not part of the
// signature) but as overlap groups (op_group_memo.h, op_group_replay.cpp), under a cap as one unit of clock-scaled
// work.
//
// Under a power cap the governor re-clocks ops while they run, in DVFS steps fine enough (15 MHz on H100) that its
// state at an op's launch seldom repeats; the signature leaves the clock and the governor out, and a replay runs at
// the clock the live governor applies. A record holds the op's time as a function of the clock (ClockScaledWork,
// models/power/clock_scaled_work.h: the recorded clock course in segments, and how its longest-resident unit's time
// splits into compute, which follows the clock, and memory stall, which does not) and, once the governor has moved
// the clock in the run, the op's power profile: the share of its dynamic energy spent by each recorded time, read from
// the governor's samples over it (GovernorModule::mark closes a sample at its start and end). A replay's end is the
// time the record predicts at the clock in force; at each clock change (this hook is a ClockListener) its progress is
// advanced at the old clock and its end, its counters' pace (OpExecution::replay_progress: along the power profile,
// in the replay's time), its engine time per state and its units' times are booked again for the new clock; the
// units' time already spent stays spent (replay_units_spent_fs, models/compute/op_execution.h), so that a power
// reading after a change sees the op's draw at the new clock, not the stretch of its past. The governor decides
// meanwhile as ever: its windows see what the op draws at the clock it runs at, at the voltage of the
// state in force, so the clock course, the ops' times and the energy follow the cap as in the simulation, and the
// instances of an op replay whatever the governor's state at their launch. The tile spans of a replay whose pace
// follows the clock are added at its end, mapped along its progress. Until the governor first moves the clock, a
// replay is that of a fixed clock (its recorded time, its counters at an even pace), so a run the cap never throttles
// replays as without one. The cache blocks a replay installs are ready at its end; once the governor has moved the
// clock, at the earliest end its record allows (the top clock from its start), since a step up may still end it
// earlier and the op after it would wait on its hits until the end predicted at its start.
//
// A fast-forward (sim/engine/wave_fast_forward.h) under a cap skips only the waves that end before the governor
// could decide (GovernorModule::skip_bound_fs), or through one decision to a state seen before (through_bound), and
// the governor counts the windows skipped (skip_windows, skip_through: a change inside the skip moves the clock at
// the skip, since the steps after it run after the change); the
// skipped waves' time passes after the op's last tile as a hold over which the clock is imposed at the states they
// were skipped at and their counters are spent at an even pace (SkippedWaves), and after which the policy is left as
// it was at the hold's start, moved by the hold: the order in which the simulated tail and the skipped waves pass
// then changes neither the clocks they run at nor the governor's state after the op. Its record, though, takes the
// clock course and power profile on the op's own time (HeldTime, sim/engine/held_time.h), so that a replay draws the
// simulated tail's power at its end, where the governor reacts to it.
#include <optional>
#include <string>
#include <vector>

#include "models/compute/compute_unit.h"
#include "models/compute/dispatch_policy.h"
#include "models/compute/dispatcher.h"
#include "models/compute/op_replay_hook.h"
#include "models/dram/dram_params.h"
#include "models/power/clock_domain.h"
#include "models/power/clock_scaled_work.h"
#include "models/power/governor_module.h"
#include "sim/engine/held_time.h"
#include "sim/engine/op_memo.h"
#include "sim/engine/wave_fast_forward.h"
#include "sim/graph/workload.h"

namespace roofsim {

inline constexpr std::uint64_t kRecordRefreshIntervals = 16;
// How many resident blocks ahead a replay's cache install fetches the tag sets it will write.
inline constexpr std::size_t kInstallPrefetch = 8;

// The shortest op recorded with the detailed DRAM `dram` (0: every op; no refresh).
[[nodiscard]] TimeFs shortest_record_fs_of(const DramParams& dram);

class DeviceOpReplay final : public OpReplayHook, public ClockListener {
 public:
  DeviceOpReplay(const Workload& workload, std::vector<OpExecution>& executions, const DispatchPolicy& policy,
                 MemorySystem& memory, EngineDramAdapter* dram, Dispatcher& dispatcher, const ClockDomain& clock,
                 OpMemoStore& store, TimeFs shortest_record_fs);

  [[nodiscard]] TimeFs op_starting(std::size_t op, TimeFs now) override;
  [[nodiscard]] TimeFs tiles_out_fs(std::size_t op) const override;
  void op_finished(std::size_t op, TimeFs now) override;
  // Steady-state fast-forward (sim/engine/wave_fast_forward.h) of an op that runs alone: at each wave boundary its
  // state and counters go to the op's WaveFastForward; when it skips, the skipped waves' counters are booked here.
  [[nodiscard]] WaveSkip wave_boundary(std::size_t op, std::uint64_t tile, TimeFs now) override;
  // The same inside tiles: at each step boundary of an op that runs alone (TileListener::step_boundary) its state and
  // counters go to the op's step detector; when it skips, every slot of the op skips the same steps.
  [[nodiscard]] TimeFs step_boundary(std::size_t op, TimeFs now) override;
  void hold_started(std::size_t op, TimeFs now) override;
  // The compute clock changed: each replay in flight re-times its end and its pace to the new clock.
  void clock_changed(TimeFs now_fs, Hertz old_clock_hz, Hertz new_clock_hz) override;
  // The power governor: its samples give a recorded op's power profile, and a fast-forward's hold imposes the clock
  // through it (none: no power domain).
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
    std::size_t clock_state = 0;  // at the start
    std::size_t samples = 0;      // the governor's power samples before its start (under a cap)
    bool valid = true;
  };

  // A replay in flight whose pace follows the clock.
  struct Replaying {
    std::size_t op = 0;
    const OpRecord* record = nullptr;
    ReplayProgress progress;
    TimeFs start_fs = 0, read_fs = 0;      // its start, and when its progress was last advanced
    std::size_t read_state = 0;            // the clock's state since read_fs
    bool spans_at_end = false;             // its tile spans are added at its end, along its progress
    bool retimed = false;                  // its counters follow the live clock (not the recorded one)
    std::vector<ProgressKnot> time_knots;  // wall time -> recorded time done, over the replay so far and ahead
    std::vector<double> busy_passed_fs;    // engine time at each state over the progress so far
    double busy_cycles = 0;                // the record's engine cycles (busy time x clock, summed over states)
  };
  // Books the replay's engine time per state, its units' times and its pace for the end it now has.
  void rebook(Replaying& r);
  // The replay's length over its record's: the factor that maps the record's times onto the run's.
  [[nodiscard]] double replay_span(const Replaying& r) const;
  // When the replay hands out its last tile (OpReplayHook::tiles_out_fs).
  [[nodiscard]] TimeFs tiles_out_of(const Replaying& r) const;

  // The overlap group in flight (op_group_memo.h; sim/engine/op_group_replay.cpp): from an op that starts with no
  // other op started and not ended, while one of its members has not ended.
  struct GroupRun {
    std::string key;
    TimeFs start_fs = 0;
    std::size_t first_op = 0;
    std::vector<std::size_t> open;  // members started and not ended
    // Recording: each member's start snapshot and, once it ended, its record; the group's shared counters at its
    // start.
    std::vector<Recording> members;
    std::vector<std::unique_ptr<OpRecord>> records;
    std::vector<LevelCounters> levels;
    Bytes dram_read = 0, dram_written = 0;
    std::uint64_t clock_changes = 0;
    std::size_t clock_state = 0;  // at the start
    std::size_t samples = 0;      // the governor's power samples before its start (under a cap)
    // Replaying: the record, the next member expected, whether an op starting inside broke the pattern, and the
    // group's progress through its record at the live clock (read at read_fs), which places the members' starts.
    const OpGroupRecord* replaying = nullptr;
    std::size_t next = 0;
    bool diverged = false;
    ReplayProgress progress;
    TimeFs read_fs = 0;
  };
  // An op starting while another op is in flight, or while a group is: returns its replay's end when it is a member
  // of a group being replayed, kNever when it is simulated (recorded as a member, or beside an op outside a group).
  [[nodiscard]] TimeFs group_starting(std::size_t op, TimeFs now);
  void group_finished(std::size_t op, TimeFs now);
  // The members' records, the cache contents of the members' tensors and the group record at the group's end.
  void close_group(TimeFs now);
  // What an op runs, without the memory state: kind, data type, lowering, tiles, shape and tensor sizes.
  [[nodiscard]] std::string kind_key(std::size_t op) const;
  // What an op's record is measured from: the counters, spans, clock and power samples at its start.
  [[nodiscard]] Recording start_recording(std::size_t op, std::string signature, TimeFs now) const;

  // An op being fast-forwarded: its detector and, for each skip, what the op's hold and end adjust.
  struct Forward {
    std::size_t op = 0;
    WaveFastForward detector;  // at wave boundaries
    WaveFastForward steps;     // at step boundaries
    // At wave boundaries once steps were skipped, on the op's own time (held_fs added): waves whose steps were
    // skipped in part and whose clock moved and came back in each (a cap's dip as a wave's tiles start) repeat as
    // whole periods, the clock's course included.
    WaveFastForward periods;
    TimeFs last_boundary_fs = 0;
    TimeFs held_fs = 0;  // the holds of the skips so far: simulated time + held_fs is the op's own time
    // The clock's states on the op's own time since the op's first boundary, the skips' holds included.
    std::vector<ClockChange> course;
    struct Skipped {
      TimeFs skip_fs = 0;               // when it skipped
      TimeFs hold_fs = 0, wave_fs = 0;  // wave_fs: of the window that repeated, `stride` waves
      std::uint64_t waves = 0, stride = 1;
      std::size_t clock_state = 0;       // the compute clock's state the waves ran at
      std::vector<TileSpan> wave_spans;  // the spans of the last window before the skip
      bool inside_tiles = false;         // steps skipped: the tiles running at the skip last the hold longer
      // A skip of whole periods: the clock's course over the hold (times from its start, never empty), in place of
      // clock_state; its copies of the window's spans are taken from the spans on the op's own time
      // (end_fast_forward).
      std::vector<ClockChange> course;
      [[nodiscard]] bool periodic() const { return !course.empty(); }
    };
    std::vector<Skipped> skips;
    bool holding = false;
    // A whole-wave skip whose skipped tiles would not have missed what the waves before them missed: the op's
    // waves are simulated (a trial costs a copy of the caches' tags and a touch of the waves it would skip).
    bool wave_skips_refused = false;
    bool period_skips_refused = false;  // the same for whole periods (period_boundary)
  };
  [[nodiscard]] WaveFastForward::Boundary boundary_of(std::size_t op, TimeFs now) const;
  [[nodiscard]] Forward& forward_of(std::size_t op);
  // Each slot's pace group (WaveFastForward::Boundary::lane_groups): its unit's tiles of the op, less one.
  [[nodiscard]] static std::vector<std::uint32_t> pace_groups(const std::vector<ComputeUnit::SlotSteps>& slots);
  // The state and counters at a step boundary of `op`, whose slots are `slots`.
  [[nodiscard]] WaveFastForward::Boundary step_state(std::size_t op, TimeFs now,
                                                     const std::vector<ComputeUnit::SlotSteps>& slots);
  // Books the skip's counters; the skipped work (executed flops and operations) is added to the op by the caller and
  // passed here for the power domain's pacing. `rated`: the counters were scaled by progress (inside tiles).
  void book_skip(Forward& f, const WaveFastForward::Skip& skip, Flops flops, const PhaseWork& work, bool rated,
                 TimeFs now);
  [[nodiscard]] static Forward::Skipped skipped_at(const WaveFastForward::Skip& skip, TimeFs now,
                                                   std::size_t clock_state);
  void note_skip(Forward& f, const WaveFastForward::Skip& skip, bool inside_tiles, TimeFs now, std::size_t clock_state);
  // At a wave boundary of an op whose steps were skipped: whole periods of waves skipped (WaveSkip), when they repeat
  // (Forward::periods).
  [[nodiscard]] WaveSkip period_boundary(Forward& f, std::uint64_t tile, TimeFs now);
  // Books a skip of whole waves (a window's or a period's) into the op, and the waves' tiles for the dispatcher.
  [[nodiscard]] WaveSkip book_skipped_waves(Forward& f, const WaveFastForward::Skip& skip, Flops flops,
                                            const PhaseWork& work, TimeFs now);
  // The skipped tiles' work from their steps, and their reads and writes through the cache tags: true when those
  // missed at each level as the skip books (`booked_misses`); otherwise the caches are put back.
  [[nodiscard]] bool touch_skipped_waves(std::size_t op, std::uint64_t first_tile, std::uint64_t waves,
                                         const std::vector<Bytes>& booked_misses, TimeFs now, Flops& flops,
                                         PhaseWork& work);
  // Each SRAM level's misses in a vector of booked counters (a skip's or a window's, in boundary_of's order).
  [[nodiscard]] std::vector<Bytes> level_misses(const std::vector<std::uint64_t>& booked) const;
  // Each SRAM level's tag capacity in bytes (0: a scratchpad), as the skips' miss checks compare against.
  [[nodiscard]] std::vector<Bytes> cache_capacities() const;
  void end_fast_forward(Forward& f);
  [[nodiscard]] std::vector<const Tensor*> tensors_of(std::size_t op) const;
  void replay(std::size_t op, const OpRecord& record, TimeFs start_fs);
  // The valid sectors of other tensors in the blocks at the ends of the op's tensors, in the arrays its record
  // installs into.
  struct ForeignSectors {
    std::uint32_t level = 0, array = 0;
    Bytes block = 0;
    std::uint64_t valid = 0;
  };
  [[nodiscard]] std::vector<ForeignSectors> foreign_sectors(const OpRecord& record,
                                                            const std::vector<const Tensor*>& tensors) const;
  // Installs a record's resident blocks (oldest use first, so that LRU order follows) into the cache tags:
  // `tensor_of(r)` is the live tensor block `r` belongs to (null: none), `write(r, tags, lo, hi)` writes one run of
  // its valid sectors, clipped to the tensor. The blocks go to sets all over the tag arrays (a level's are tens of
  // MB), so each block's set is fetched from host memory kInstallPrefetch blocks ahead: the fetches overlap instead
  // of following one another.
  template <typename Resident, typename TensorOf, typename Write>
  void install_resident(const std::vector<Resident>& resident, TensorOf&& tensor_of, Write&& write) {
    for (std::size_t i = 0; i < resident.size(); ++i) {
      if (i + kInstallPrefetch < resident.size()) {
        const auto& ahead = resident[i + kInstallPrefetch];
        if (const Tensor* t = tensor_of(ahead)) {
          memory_.tags(ahead.level, ahead.array)
              .prefetch(static_cast<Bytes>(static_cast<std::int64_t>(t->address) + ahead.offset));
        }
      }
      const auto& r = resident[i];
      const Tensor* tensor = tensor_of(r);
      if (tensor == nullptr) continue;
      CacheTags& tags = memory_.tags(r.level, r.array);
      const auto tensor_start = static_cast<std::int64_t>(tensor->address);
      for_each_valid_run(tensor_start + r.offset, r.valid, tags.sector_bytes(), tensor_start,
                         tensor_start + static_cast<std::int64_t>(tensor->bytes),
                         [&](Bytes lo, Bytes hi) { write(r, tags, lo, hi); });
    }
  }
  // `held`: a fast-forwarded op's skips and hold start, in the run's times (none: not fast-forwarded).
  [[nodiscard]] std::unique_ptr<OpRecord> record(const Recording& recording, TimeFs end_fs,
                                                 const std::optional<HeldTime>& held);
  // The clock course from `start_fs` to `end_fs`, the clock having changed `changes_from` times and been in `state`
  // at the start.
  [[nodiscard]] std::vector<ClockSegment> clock_course(std::uint64_t changes_from, std::size_t state, TimeFs start_fs,
                                                       TimeFs end_fs) const;
  // The share of the dynamic energy spent by each time from `start_fs` to `end_fs` (what ran then ran alone), from
  // the governor's samples after the first `samples_from` (closing one at `end_fs`); empty if nothing was spent.
  [[nodiscard]] std::vector<ProgressKnot> power_profile(std::size_t samples_from, TimeFs start_fs, TimeFs end_fs);

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
  std::vector<Replaying> replaying_;
  std::vector<std::size_t> started_;  // ops started (op_starting) and not ended
  bool skipping_through_ = false;     // a skip inside tiles moves the clock through a change (its hold's course has it)
  std::optional<GroupRun> group_;
  GovernorModule* governor_ = nullptr;
  // The governor has moved the clock in this run: until then replays and records are those of a fixed clock (their
  // counters spent at an even pace, no power profile recorded), which leaves a run the cap never throttles as it is
  // without one.
  [[nodiscard]] bool capped() const { return governor_ != nullptr && governor_->params().cap_w > 0; }
  [[nodiscard]] bool throttled() const {
    return governor_ != nullptr && governor_->params().cap_w > 0 && clock_.changes() > 0;
  }
};

}  // namespace roofsim
