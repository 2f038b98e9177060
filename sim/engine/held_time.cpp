#include "sim/engine/held_time.h"

#include <algorithm>
#include <iterator>
#include <stdexcept>

namespace roofsim {

HeldTime::HeldTime(const std::vector<HeldSkip>& skips, TimeFs hold_start_fs, TimeFs end_fs) {
  TimeFs simulated_from = 0, held = 0;
  for (const HeldSkip& skip : skips) {
    if (skip.skip_fs < simulated_from || skip.skip_fs > hold_start_fs) {
      throw std::logic_error("HeldTime: skips out of order or after the hold's start");
    }
    if (skip.skip_fs > simulated_from) {
      pieces_.push_back(Piece{simulated_from, simulated_from + held, skip.skip_fs - simulated_from});
    }
    if (skip.hold_fs > 0) {
      pieces_.push_back(Piece{hold_start_fs + held, skip.skip_fs + held, skip.hold_fs});
    }
    simulated_from = skip.skip_fs;
    held += skip.hold_fs;
  }
  if (hold_start_fs > simulated_from) {
    pieces_.push_back(Piece{simulated_from, simulated_from + held, hold_start_fs - simulated_from});
  }
  if (hold_start_fs + held > end_fs) throw std::logic_error("HeldTime: the op ends inside its hold");
  if (end_fs > hold_start_fs + held) {
    pieces_.push_back(Piece{hold_start_fs + held, hold_start_fs + held, end_fs - hold_start_fs - held});
  }
}

std::vector<ClockSegment> HeldTime::own_course(const std::vector<ClockSegment>& simulated) const {
  std::vector<ClockSegment> own;
  for (const Piece& piece : pieces_) {
    TimeFs at = 0;
    const TimeFs lo = piece.sim_fs, hi = piece.sim_fs + piece.length_fs;
    for (const ClockSegment& segment : simulated) {
      const TimeFs from = std::max(at, lo), to = std::min(at + segment.duration_fs, hi);
      at += segment.duration_fs;
      if (to <= from) continue;
      if (!own.empty() && own.back().clock_hz == segment.clock_hz) {
        own.back().duration_fs += to - from;
      } else {
        own.push_back(ClockSegment{to - from, segment.clock_hz});
      }
    }
  }
  return own;
}

namespace {

// The profile's done at `at_fs`, linear between its knots.
double done_at(const std::vector<ProgressKnot>& knots, TimeFs at_fs) {
  if (knots.empty()) return 0.0;
  if (at_fs <= knots.front().at_fs) return knots.front().done;
  if (at_fs >= knots.back().at_fs) return knots.back().done;
  const auto after =
      std::upper_bound(knots.begin(), knots.end(), at_fs, [](TimeFs t, const ProgressKnot& k) { return t < k.at_fs; });
  const auto before = std::prev(after);
  const double part = static_cast<double>(at_fs - before->at_fs) / static_cast<double>(after->at_fs - before->at_fs);
  return before->done + (after->done - before->done) * part;
}

}  // namespace

std::vector<ProgressKnot> HeldTime::own_profile(const std::vector<ProgressKnot>& simulated) const {
  if (simulated.empty()) return {};
  std::vector<ProgressKnot> own{ProgressKnot{0, 0.0}};
  double done = 0;
  for (const Piece& piece : pieces_) {
    const TimeFs lo = piece.sim_fs, hi = piece.sim_fs + piece.length_fs;
    const double base = done_at(simulated, lo);
    for (const ProgressKnot& knot : simulated) {
      if (knot.at_fs <= lo || knot.at_fs >= hi) continue;
      own.push_back(ProgressKnot{piece.own_fs + (knot.at_fs - lo), done + knot.done - base});
    }
    done += done_at(simulated, hi) - base;
    own.push_back(ProgressKnot{piece.own_fs + piece.length_fs, done});
  }
  own.back().done = 1.0;
  for (auto& knot : own) knot.done = std::min(knot.done, 1.0);
  return own;
}

}  // namespace roofsim
