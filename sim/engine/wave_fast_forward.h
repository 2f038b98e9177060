#pragma once
// Steady-state fast-forward inside an op, the plain part: the decision when to skip identical waves.
//
// An op's tiles go out in waves of `units x occupancy`. A wave boundary is the moment the dispatcher hands out tile
// w x (units x occupancy): the first slot of wave w - 1's tiles has freed. At each boundary the caller gives
// - the state class: what decides how the next wave runs and is not a counter: the compute clock's state and its
//   change count, the reads the units have issued and the chunks in flight to DRAM (on a half-octave scale: the load
//   the memory sees), and the histogram of the busy slots by the share of their k-steps done (kProgressClasses; it
//   may differ in kSlotSlack of the slots). The caches' contents are not classed: a level whose contents matter
//   shows it in the misses of a wave, which are compared;
// - the counters so far, split in two: `compared` (time and bytes per level and to DRAM: what the wave costs) and
//   `booked` (every counter a report reads: work, latency sums, DRAM commands, per-unit time, ...).
// The state repeats when the classes at three consecutive boundaries are equal and the two waves between them cost the
// same: each compared counter's increments differ by at most kSteadyTolerance of the larger (the DRAM's queue and
// bank state and the cache contents are not classed exactly; a wave that costs what the one before cost, in time,
// hits and misses per level and DRAM bytes, shows they repeat at the granularity that matters). Then every wave left
// but the last kKeptWaves (which, with the partial wave, give the op its tail) is skipped: each skipped wave adds the
// last wave's increments of the booked counters, exactly, and its time. The caller runs the kept waves after the skip
// and ends the op that much later.
//
// Under a power cap the governor may change the clock while waves are skipped, which the skipped waves' cost would
// not show; the caller bounds a skip to the waves that end before the governor could decide anything
// (GovernorModule::skip_bound_fs) and the detector starts afresh after each skip, so an op is simulated on through the
// window that decides and skipped again once its new state repeats.
#include <cstdint>
#include <vector>

#include "models/kernel/time_fs.h"

namespace roofsim {

inline constexpr std::uint64_t kProgressClasses = 8;
inline constexpr std::uint64_t kKeptWaves = 2;
// Relative: 1/256 of a wave's cost, well inside the 1% that bytes per level may differ from --exact.
inline constexpr double kSteadyTolerance = 1.0 / 256.0;
// The slots' progress histogram may differ in this share of its slots (a slot a hair either side of a class edge
// moves between classes; a wave whose slots are out of step moves many).
inline constexpr double kSlotSlack = 1.0 / 16.0;

class WaveFastForward {
 public:
  struct Boundary {
    TimeFs at_fs = 0;
    std::vector<std::uint64_t> state;     // the state class
    std::vector<std::uint64_t> slots;     // busy slots by progress class: equal within kSlotSlack of the total
    std::vector<std::uint64_t> compared;  // cumulative counters compared between waves
    std::vector<std::uint64_t> booked;    // cumulative counters booked for skipped waves
    std::uint64_t progress = 0;           // cumulative work done (boundary() with wave_progress only)
    std::vector<std::uint64_t> lanes;     // the same per lane (a slot), in one order at every boundary
  };
  struct Skip {
    std::uint64_t waves = 0;
    TimeFs hold_fs = 0;                 // waves x the last wave's time
    std::vector<std::uint64_t> booked;  // waves x the last wave's increments of `booked`
    TimeFs wave_fs = 0;                 // the last wave's time
  };

  // A boundary with `full_waves_left` whole waves of tiles not yet handed out (the one starting now included), of
  // of which only as many as end within `max_skip_fs` may be skipped. Returns the waves to skip now (none: waves ==
  // 0); after a skip the detector needs three new boundaries.
  // With `wave_progress` > 0 the waves are not whole: a wave is `wave_progress` units of the boundaries' `progress`,
  // the costs are compared per unit of progress, and a skipped wave costs the progress-weighted mean of the last two.
  // The lanes must advance alike: their progress over the last two intervals may differ by at most `lane_slack`.
  [[nodiscard]] Skip boundary(Boundary b, std::uint64_t full_waves_left, TimeFs max_skip_fs = kNever,
                              std::uint64_t wave_progress = 0, std::uint64_t lane_slack = 0);
  // Whether every lane advanced from `from` to `to` within `slack` of every other (public for tests).
  [[nodiscard]] static bool in_lockstep(const std::vector<std::uint64_t>& from, const std::vector<std::uint64_t>& to,
                                        std::uint64_t slack);

  // Whether two waves' increments agree within kSteadyTolerance (public for tests).
  [[nodiscard]] static bool same_cost(const std::vector<std::uint64_t>& a, const std::vector<std::uint64_t>& b);
  // Whether two histograms of the slots' progress differ in at most kSlotSlack of their slots.
  [[nodiscard]] static bool same_slots(const std::vector<std::uint64_t>& a, const std::vector<std::uint64_t>& b);
  // Whether two intervals' increments agree per unit of progress within kSteadyTolerance (public for tests).
  [[nodiscard]] static bool same_rate(const std::vector<std::uint64_t>& a, std::uint64_t a_progress,
                                      const std::vector<std::uint64_t>& b, std::uint64_t b_progress);
  // x * num / den, rounded to nearest, without overflow of the product.
  [[nodiscard]] static std::uint64_t scaled(std::uint64_t x, std::uint64_t num, std::uint64_t den);
  [[nodiscard]] std::uint64_t skips() const { return skips_; }

 private:
  [[nodiscard]] Skip skip_by_rate(std::uint64_t full_waves_left, TimeFs max_skip_fs, std::uint64_t wave_progress,
                                  std::uint64_t lane_slack);
  std::vector<Boundary> last_;  // the last three boundaries, oldest first
  std::uint64_t skips_ = 0;
};

// b - a, element by element (cumulative counters only grow).
[[nodiscard]] std::vector<std::uint64_t> increments(const std::vector<std::uint64_t>& from,
                                                    const std::vector<std::uint64_t>& to);

}  // namespace roofsim
