#include "models/power/imposed_course.h"

#include <algorithm>
#include <utility>

namespace roofsim {

void ImposedCourse::begin(TimeFs start_fs, ClockTrajectory trajectory, GovernorSnapshot before) {
  active_ = true;
  start_fs_ = start_fs;
  course_ = std::move(trajectory);
  next_ = 0;
  before_ = std::move(before);
}

TimeFs ImposedCourse::next_event_fs() const {
  if (next_ < course_.changes.size()) return std::min(end_fs(), start_fs_ + course_.changes[next_].at_fs);
  return end_fs();
}

std::optional<std::size_t> ImposedCourse::take_due(TimeFs now_fs) {
  if (next_ >= course_.changes.size() || start_fs_ + course_.changes[next_].at_fs > now_fs) return std::nullopt;
  return course_.changes[next_++].state;
}

GovernorSnapshot ImposedCourse::finish() {
  active_ = false;
  return course_.end.moved(0, start_fs_);
}

GovernorSnapshot ImposedCourse::release(TimeFs now_fs, std::size_t state) {
  active_ = false;
  GovernorSnapshot resumed = before_;
  resumed.window_start_fs = now_fs;
  resumed.change_pending = false;
  resumed.state = state;
  if (state != before_.state) resumed.at_state.clear();
  return resumed;
}

}  // namespace roofsim
