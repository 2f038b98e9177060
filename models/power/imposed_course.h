#pragma once
// A clock course imposed on the compute domain from outside the governor's policy (GovernorModule::impose), plain
// C++: which of its changes are due, when the next one or its end comes, and which state the policy resumes in. The
// module owns only the wakes at those times and applies what this class says.
#include <cstddef>
#include <optional>

#include "models/kernel/time_fs.h"
#include "models/power/governor_policy.h"

namespace roofsim {

class ImposedCourse {
 public:
  // The course starts at `start_fs`; `before` is the policy's state then (resumed if the course is released early).
  void begin(TimeFs start_fs, ClockTrajectory trajectory, GovernorSnapshot before);
  [[nodiscard]] bool active() const { return active_; }
  [[nodiscard]] TimeFs end_fs() const { return start_fs_ + course_.duration_fs; }
  // When the module must wake next: the next change, or the course's end.
  [[nodiscard]] TimeFs next_event_fs() const;
  // The next change due by `now_fs`, taken (none: no more are due).
  [[nodiscard]] std::optional<std::size_t> take_due(TimeFs now_fs);
  // The course ran to its end: the policy's state then, in absolute times. The course is no longer active.
  [[nodiscard]] GovernorSnapshot finish();
  // The course ends early at `now_fs` with the clock at `state`: the policy resumes as it was at the start, with a
  // new window from now, no change pending, and its kept windows dropped when the clock is no longer at their state.
  [[nodiscard]] GovernorSnapshot release(TimeFs now_fs, std::size_t state);

 private:
  bool active_ = false;
  TimeFs start_fs_ = 0;
  ClockTrajectory course_;
  std::size_t next_ = 0;
  GovernorSnapshot before_;
};

}  // namespace roofsim
