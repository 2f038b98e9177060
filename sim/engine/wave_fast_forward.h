#pragma once
// Steady-state fast-forward inside an op, the plain part: the decision when to skip identical waves.
//
// An op's tiles go out in waves of `units x occupancy`. A wave boundary is the moment the dispatcher hands out tile
// w x (units x occupancy): the first slot of wave w - 1's tiles has freed. At each boundary the caller gives
// - the state class: what decides how the next wave runs and is not a counter: the compute clock's state, the reads
//   the units have issued (on a half-octave scale: the load the memory sees), and the
//   histogram of the busy slots by the share of their k-steps done (kProgressClasses; it may differ in kSlotSlack of
//   the slots). The caches' contents are not classed: a level whose contents matter shows it in the misses of a
//   wave, which are compared;
// - the DRAM's backlog, the bytes asked of it and not yet served, which need not repeat exactly (steady_backlog): a
//   backlog is work the next interval inherits, so two boundaries' backlogs that differ by a small share of the DRAM
//   bytes an interval moves (kBurstyTolerance, as those bytes are compared) change what the interval costs no more
//   than the comparison allows, and a large backlog (a saturated DRAM) only matters to within its order of magnitude.
//   A class of the chunks in flight would not do: a chunk's share of the DRAM bytes ranges from a sector to a tile's
//   operand block, and a compute-bound GEMM whose DRAM is nearly idle finds 0, 4 or 11 chunks (up to 44 KiB, against
//   megabytes an interval) at boundaries that cost the same: its class flips and detection starts over;
// - the epoch: the clock's change count (a wave across a change is no wave of either state);
// - the counters so far, split in two: `compared` (time and bytes per level and to DRAM: what the wave costs) and
//   `booked` (every counter a report reads: work, latency sums, DRAM commands, per-unit time, ...).
// The state repeats when the classes and epochs at kSteadyWaves + 1 consecutive boundaries are equal and the
// kSteadyWaves waves between them cost the same (or, where single waves jitter, at boundaries 2, 4, ...
// kMaxWaveStride waves apart, the windows between them: kMaxWaveStride): each compared counter's increments differ by
// at most kSteadyTolerance of the larger from one wave to the next (the DRAM's queue and bank state and the cache
// contents are not classed exactly; a wave that costs what the one before cost, in time, hits and misses per level and
// DRAM bytes, shows they repeat at the granularity that matters). Then every wave left but the last kKeptWaves (which,
// with the partial wave, give the op its tail) is skipped, in whole windows: each skipped window adds the last window's
// increments of the booked counters, exactly, and its time. The caller runs the kept waves after the skip and ends the
// op that much later.
//
// Inside tiles. A GEMM of GPT-3's size runs its tiles for hundreds of k-steps in a handful of waves (192 steps of
// 128x256x64 in each of the 9 waves of a 2048x36864x12288 GEMM on H100), so whole waves leave little to skip. Its
// slots then run in lockstep, and the state between two step boundaries repeats too. A step boundary comes when the
// op's first slot on the first unit has computed another ComputeUnit::step_quantum steps (models/compute). There:
// - the state class is the clock's state and the reads' class, as above, with the slots running the op, and the
//   slots' lag behind the slot furthest ahead in place of their share of steps done; the epoch is the clock's change
//   count and the tiles the op has done (no tile may start or end inside an interval); the DRAM's backlog is alike as
//   above, the bytes moved being an interval's;
// - an interval holds no whole number of anything: each boundary cuts the steps in flight differently. The costs are
//   therefore compared per unit of work, the work counted continuously (a step's FLOPs spent over its phases, as the
//   power sensor reads them), not per interval; the lanes (slots) must have advanced in lockstep over the window, each
//   within its buffers' steps of every other lane of its pace group, at the same pace in both intervals. A pace group
//   is the lanes whose units run as many of the op's tiles: a partial wave, with two tiles on some units and one on
//   others, runs at two paces, and its groups drift apart. They then share the operand blocks they read less and
//   less, so that their misses grow until they no longer share any; the window's misses show where that stands;
// - time and each SRAM level's reads and writes follow the work and are compared within kSteadyTolerance; misses and
//   DRAM bytes come in bursts (kBurstyTolerance).
// Then every slot skips the same time: the steps its group made in it at the window's pace (a multiple of its
// buffers), up to all but kKeptStepQuanta of its tile, and the skipped steps' counters are the window's in proportion
// to the work they hold, computed exactly from the lowering; their time is the window's in the same proportion. The
// skipped steps' reads and writes pass through the cache tags in step order across the slots, in rounds of equal
// time (MemorySystem::touch), so that the caches hold after the skip what they would have held: the next wave's first
// steps miss as in --exact. The skip is a trial: the last of the touched steps count their misses, and a skip whose
// steps miss at another rate than its window's (kSkipMissTolerance) is withdrawn and the caches put back (a partial
// wave's groups drifting apart while they still share blocks). The step detector's boundaries move by what the skip
// added (skipped_to); a skip of whole waves resets both detectors.
//
// Whole periods. Once an op has skipped steps inside its tiles, its wave boundaries feed a third detector
// (DeviceOpReplay::period_boundary) on the op's own time, the holds added, with no clock-change epoch and with whether
// a governor change is pending in the state class. Under a cap each of GPT-3's GEMM waves on H100 then runs alike: the
// last kept steps of the wave before, its first steps, a dip of one state, a skip through the climb back (247.5 to
// 247.7 us a wave for qkv, simulated or held). Three such waves that cost the same are a period, and the waves up to
// the kKeptWaves are skipped in whole periods: their counters booked as whole-wave skips book them, the governor's
// window phase moved (GovernorPolicy::skip_periods) and the hold running the clock's course over one period, repeated.
// Every skipped wave passes through the cache tags and counts its misses, as for any whole-wave skip: a window of a
// few waves need not show an access pattern of a longer period.
//
// Each state class inside tiles keeps the last window seen steady in it. Under a power cap the governor may move the
// clock between two adjacent states about once a wave (GPT-3's GEMMs on H100 step down as a wave's tiles start and
// back up some 50 us later), and every change, like every wave's first tiles, starts a new epoch, in which two more
// intervals would be simulated before a skip. One interval of the new epoch that costs what the state's window cost,
// per unit of work (time and SRAM reads and writes within kSteadyTolerance, misses and DRAM bytes within
// kBurstyTolerance) and at its lanes' pace, shows the state as well as a second interval would: the skip is booked
// at that interval's rates, the op's own in this epoch. Where one interval's cut through the steps in flight moves it
// outside kSteadyTolerance (GPT-3's GEMMs on H100: +0.42% and -0.45% in a row), the last two clean intervals are
// compared with the window as one, like with like, and booked at their rates.
//
// Under a power cap the governor may change the clock while waves are skipped, which the skipped waves' cost would
// not show; the caller bounds a skip to the waves that end before the governor could decide anything
// (GovernorModule::skip_bound_fs) and the detector starts afresh after each skip, so an op is simulated on through the
// window that decides and skipped again once its new state repeats. Inside tiles, a skip may run through that
// decision when the state it moves the clock to was seen steady before, in the same class but for the clock
// (seen_window), and the governor has measured that state's windows in a skip (GovernorPolicy::through_bound): the
// steps before the change are skipped at the window's rates, those after it at the seen window's. GPT-3's GEMMs on
// H100 dip to the state below once a wave, as its tiles start, and climb back some 50 us later; each climb had the
// op simulated from the window that decides it to the second clean interval after it, a third of what each wave
// simulated.
//
// What a skip does not carry: the lanes' formation keeps its spread. Every lane of a pace group skips the same
// steps, so the lanes end their tiles as far apart as they were at the skip, where under --exact they drift apart
// over the skipped steps (the tile ends of GPT-3's mlp.down on H100, 768 k-steps: 10th to 90th percentile 2.0 us apart
// fast-forwarded, 2.6 us under --exact; first to last 3.2 and 5.7 us). Which units free a slot first decides which
// tiles of a partial last wave share a unit, and so how much the two paces' lanes share of their operands in L2: on
// H200 that wave of mlp.down reads 1.7 % more from DRAM fast-forwarded than under --exact, as the means of five runs
// each with the launch latency nudged by up to 100 ns (scripts/memo-compare). A lane's own pace over a window is
// too coarse (whole steps in a few) to extrapolate its drift over hundreds of skipped steps; that drift is left out.
#include <cstdint>
#include <vector>

#include "models/kernel/time_fs.h"

namespace roofsim {

inline constexpr std::uint64_t kProgressClasses = 8;
inline constexpr std::uint64_t kKeptWaves = 2;
// Inside tiles, the step quanta every lane keeps at the end of its tile. The tile's end is not the lanes' steady state:
// as the first lanes finish, their units start the next wave's tiles beside the lanes still running, and what those
// contend for moves the last lanes' steps. Two quanta keep that simulated; one (a skip that leaves each lane only its
// last buffers' worth) moved H100's dp_training_step's data-gradient GEMM by 0.63% against --exact and, through
// where the SGD updates beside the gradient AllReduce then started, one of those by 4.7%, against 1.7% with two.
inline constexpr std::uint64_t kKeptStepQuanta = 2;
// Three waves, not two: a stream's waves fall out of lockstep over its first ones and then run faster (H100, detailed
// DRAM: copy's tiles end in bursts of 254, 37, 226 per 10 us, then 62, 203, 154), and two waves in a row can cost the
// same within kSteadyTolerance on the way; skipped at that cost, copy took 6.3% longer than --exact.
inline constexpr std::size_t kSteadyWaves = 3;
// A wave's time is read between two wave boundaries, each the moment a wave's first slot frees, so each boundary's
// jitter shows in the two waves either side of it: a stream's waves on H100 with the detailed DRAM take 8.8 to 9.4 us
// in turn (the refreshes and bank conflicts each meets), far outside kSteadyTolerance, while the mean over a few
// waves repeats to within it. The waves are therefore also compared in windows of 2, 4, ... up to kMaxWaveStride
// waves (boundaries that many apart), the shortest window that repeats being taken: a window's jitter is its two
// ends', a wave's share of which falls with the window's length.
inline constexpr std::size_t kMaxWaveStride = 32;
// Relative: 1/256 of a wave's cost, well inside the 1% that bytes per level may differ from --exact.
inline constexpr double kSteadyTolerance = 1.0 / 256.0;
// The slots' progress histogram may differ in this share of its slots (a slot a hair either side of a class edge
// moves between classes; a wave whose slots are out of step moves many).
inline constexpr double kSlotSlack = 1.0 / 16.0;

// Inside tiles, for the counters driven by misses (kBurstyTolerance): an operand's block misses once, for the first
// slot that reads it, so an interval of a few steps counts the blocks whose first reader loaded in it, and two
// intervals' DRAM bytes per unit of work differ by about 1% in GPT-3's GEMMs while their time and SRAM traffic differ
// by 0.3%. A change of the access pattern (a wave's first steps, slots drifting apart) moves them by tens of percent.
inline constexpr double kBurstyTolerance = 1.0 / 32.0;
// A skip inside tiles books the window's misses per unit of work for all its steps; it is taken when the misses its
// touched steps count (DeviceOpReplay::step_boundary) lie within this share of that rate, under the 1% by which bytes
// per level may differ from --exact.
inline constexpr double kSkipMissTolerance = 1.0 / 128.0;

class WaveFastForward {
 public:
  struct Boundary {
    TimeFs at_fs = 0;
    std::vector<std::uint64_t> state;      // the state class
    std::vector<std::uint64_t> epoch;      // what starts a new stretch of the state: clock changes, tiles done
    std::vector<std::uint64_t> slots;      // busy slots by progress class: equal within kSlotSlack of the total
    std::uint64_t dram_backlog_bytes = 0;  // asked of DRAM and not yet served
    std::uint64_t dram_moved_bytes = 0;    // DRAM bytes read and written so far (cumulative)
    std::vector<std::uint64_t> compared;   // cumulative counters compared between waves
    std::vector<std::uint64_t> booked;     // cumulative counters booked for skipped waves
    // Inside tiles (steady_window): the work done so far, counted continuously (a step's work is spent over its
    // phases, so that a boundary does not cut the steps in flight into whole ones), and each lane's (a slot's) steps
    // computed, in one order at every boundary.
    std::uint64_t progress = 0;
    std::vector<std::uint64_t> bursty;  // cumulative counters compared within kBurstyTolerance
    std::vector<std::uint64_t> lanes;
    // Each lane's pace group: the lanes whose units run as many of the op's tiles share their engines alike and keep
    // one pace; a partial wave has two (units with two tiles and units with one). Empty: one group.
    std::vector<std::uint32_t> lane_groups;
    std::size_t mark = 0;  // the caller's own position at the boundary (the tile spans it had recorded)
  };
  struct Skip {
    std::uint64_t waves = 0;            // a multiple of `stride`
    std::uint64_t stride = 1;           // the waves of the window that repeated
    TimeFs hold_fs = 0;                 // waves / stride x the last window's time
    std::vector<std::uint64_t> booked;  // waves / stride x the last window's increments of `booked`
    TimeFs wave_fs = 0;                 // the last window's time (of `stride` waves)
    std::size_t window_mark = 0;        // the `mark` of the boundary that began the last window
  };

  // A boundary with `full_waves_left` whole waves of tiles not yet handed out (the one starting now included), of
  // of which only as many as end within `max_skip_fs` may be skipped. Returns the waves to skip now (none: waves ==
  // 0); after a skip the detector needs kSteadyWaves windows of new boundaries.
  [[nodiscard]] Skip boundary(Boundary b, std::uint64_t full_waves_left, TimeFs max_skip_fs = kNever);

  // The window of the last two intervals inside tiles, when the state repeats there (see the file's comment).
  struct Window {
    TimeFs window_fs = 0;
    std::uint64_t progress = 0;             // made over the window (> 0)
    std::vector<std::uint64_t> booked;      // the window's increments of `booked`
    std::vector<std::uint64_t> bursty;      // and of `bursty`
    std::vector<std::uint64_t> compared;    // and of `compared`
    std::vector<std::uint64_t> lane_steps;  // each lane's steps over the window
  };
  // A boundary inside tiles; true, with `window` filled, when the state repeated over the last two intervals, or the
  // last interval, or the last two together, repeated the window last seen steady in the same state class (see the
  // file's comment).
  [[nodiscard]] bool steady_window(Boundary b, std::uint64_t lane_slack, Window& window);
  // The window last seen steady in state class `state` inside tiles (null: none).
  [[nodiscard]] const Window* seen_window(const std::vector<std::uint64_t>& state) const {
    for (const auto& s : seen_) {
      if (s.state == state) return &s.window;
    }
    return nullptr;
  }
  // Forgets the boundaries, not the windows seen steady.
  void restart() { last_.clear(); }
  // After a skip at the latest boundary: `after` is the state there with the skip's counters and steps added. The
  // boundaries kept move by the same amounts (their time stays), so that the next windows compare the steps simulated
  // on either side of the skip and need no three fresh boundaries.
  void skipped_to(const Boundary& after);

  // Whether two waves' increments agree within kSteadyTolerance (public for tests).
  [[nodiscard]] static bool same_cost(const std::vector<std::uint64_t>& a, const std::vector<std::uint64_t>& b);
  // Whether the DRAM's backlogs at two boundaries, `moved_bytes` of DRAM traffic apart, are alike: they differ by at
  // most kBurstyTolerance of the bytes moved, or by at most a quarter of the larger (a half-octave scale without the
  // class edges that a backlog hovering at one would flip across).
  [[nodiscard]] static bool steady_backlog(std::uint64_t from_bytes, std::uint64_t to_bytes, std::uint64_t moved_bytes);
  // Whether two histograms of the slots' progress differ in at most kSlotSlack of their slots.
  [[nodiscard]] static bool same_slots(const std::vector<std::uint64_t>& a, const std::vector<std::uint64_t>& b);
  // Whether two intervals' increments agree per unit of progress within kSteadyTolerance (public for tests).
  [[nodiscard]] static bool same_rate(const std::vector<std::uint64_t>& a, std::uint64_t a_progress,
                                      const std::vector<std::uint64_t>& b, std::uint64_t b_progress,
                                      double tolerance = kSteadyTolerance);
  // Whether each lane advanced from `from` to `to` within `slack` steps of every other lane of its pace group
  // (`groups`, empty: one group) (public for tests).
  [[nodiscard]] static bool in_lockstep(const std::vector<std::uint64_t>& from, const std::vector<std::uint64_t>& to,
                                        std::uint64_t slack, const std::vector<std::uint32_t>& groups = {});
  // Inside tiles: the steps each lane skips after `window` (all 0: none), a multiple of `buffers`. Each pace group
  // (`groups`, as in Boundary::lane_groups) skips at its lanes' mean pace over the window, so that every group skips
  // the same time; each lane (`left`: its tile's steps not yet loaded) keeps `keep` of them, and that time fits in
  // those and in `bound_fs` (the governor's). No group may skip none while another skips some.
  [[nodiscard]] static std::vector<std::uint32_t> steps_to_skip(const Window& window,
                                                                const std::vector<std::uint64_t>& left,
                                                                const std::vector<std::uint32_t>& groups,
                                                                std::uint64_t keep, std::uint64_t buffers,
                                                                TimeFs bound_fs);
  // The first of `rounds` rounds of skipped steps whose reads and writes pass through the cache tags (`capacities`:
  // each SRAM level's bytes, 0 for one without tags); a round holds `lane_steps_per_round` lanes' steps (the lanes of
  // one pace, `lanes` steps of one each). A cache's contents after the steps are the blocks they used last: with
  // LRU sets indexed by a hash, the steps that allocate twice a level's capacity (at the window's misses per lane
  // step, `window.bursty`) leave few sets holding a block from before them (a set of w ways keeps one when fewer than
  // w of some 2w allocations, on average, fall in it), so the steps before those need not pass through the tags.
  [[nodiscard]] static std::uint32_t first_step_through_tags(const Window& window, std::size_t lane_steps_per_round,
                                                             std::uint32_t rounds,
                                                             const std::vector<std::uint64_t>& capacities);
  // x * num / den, rounded to nearest, without overflow of the product.
  [[nodiscard]] static std::uint64_t scaled(std::uint64_t x, std::uint64_t num, std::uint64_t den);
  // Whether the misses a skip books at each SRAM level (`booked`) agree within `tolerance` of the larger with those
  // its skipped tiles' or steps' touches saw (`touched`), at the levels with tags (`capacities` not 0).
  [[nodiscard]] static bool misses_agree(const std::vector<std::uint64_t>& booked,
                                         const std::vector<std::uint64_t>& touched,
                                         const std::vector<std::uint64_t>& capacities,
                                         double tolerance = kBurstyTolerance);
  // x * num / den, rounded down, without overflow of the product.
  [[nodiscard]] static std::uint64_t scaled_down(std::uint64_t x, std::uint64_t num, std::uint64_t den);
  // A unit's share of a skip: `busy` and its waits on each engine (`waits`), scaled from a window, fit in the time
  // `booked` for it (at most the skip's hold). A window counts each phase's whole time when the phase is issued, some
  // of it after the window, so the scaled sum can exceed the hold; it is then scaled down in its own proportions.
  template <typename Waits>
  static void fit_unit_time(TimeFs booked, TimeFs& busy, Waits& waits) {
    TimeFs sum = busy;
    for (const TimeFs w : waits) sum += w;
    if (sum <= booked) return;
    // Rounded down, so that the parts never add up to more than `booked`.
    for (TimeFs& w : waits) w = scaled_down(w, booked, sum);
    busy = scaled_down(busy, booked, sum);
  }

 private:
  struct Seen {
    std::vector<std::uint64_t> state;
    Window window;
  };
  // Inside tiles: whether the interval from `from` to `to` keeps its state (class, epoch, backlog, slots) and its
  // lanes advanced, in lockstep.
  [[nodiscard]] static bool clean_interval(const Boundary& from, const Boundary& to, std::uint64_t lane_slack);
  // Inside tiles: true, with `window` the interval from `from` to `to`, when the interval costs what `seen` cost per
  // unit of work and its lanes went at its pace.
  [[nodiscard]] static bool repeats_seen(const Boundary& from, const Boundary& to, const Window& seen,
                                         std::uint64_t lane_slack, Window& window);

  // The waves from `last_`'s boundaries `stride` apart, ending at the latest, when they repeat (see `boundary`).
  [[nodiscard]] bool steady_at_stride(std::size_t stride) const;

  std::vector<Boundary> last_;  // the last kSteadyWaves x kMaxWaveStride + 1 boundaries (inside tiles: three)
  std::vector<Seen> seen_;      // inside tiles: the last steady window of each state class
};

// b - a, element by element (cumulative counters only grow).
[[nodiscard]] std::vector<std::uint64_t> increments(const std::vector<std::uint64_t>& from,
                                                    const std::vector<std::uint64_t>& to);

}  // namespace roofsim
