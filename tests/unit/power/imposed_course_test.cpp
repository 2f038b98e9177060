#include <doctest/doctest.h>

#include "models/power/imposed_course.h"

using namespace roofsim;

namespace {

// Two changes at 10 and 20 fs into a 30 fs course, started at 1000 fs, after which the policy sits at state 1 with
// its window starting 25 fs in.
ClockTrajectory two_changes() {
  ClockTrajectory course;
  course.changes = {{10, 3}, {20, 1}};
  course.duration_fs = 30;
  course.end.state = 1;
  course.end.window_start_fs = 25;
  return course;
}

GovernorSnapshot before_at_state_4() {
  GovernorSnapshot before;
  before.state = 4;
  before.window_start_fs = 990;
  before.change_pending = true;
  before.pending_at_fs = 1005;
  before.pending_state = 3;
  before.at_state = {PowerSplit{1, 2, 3, 4}};
  return before;
}

}  // namespace

TEST_CASE("an imposed course wakes at each change and at its end, and hands out each change once") {
  ImposedCourse course;
  CHECK_FALSE(course.active());
  course.begin(1000, two_changes(), before_at_state_4());
  CHECK(course.active());
  CHECK(course.end_fs() == 1030);
  CHECK(course.next_event_fs() == 1010);
  CHECK_FALSE(course.take_due(1009).has_value());
  CHECK(course.take_due(1015) == std::optional<std::size_t>(3));
  CHECK_FALSE(course.take_due(1015).has_value());
  CHECK(course.next_event_fs() == 1020);
  CHECK(course.take_due(1020) == std::optional<std::size_t>(1));
  CHECK(course.next_event_fs() == 1030);
  const GovernorSnapshot end = course.finish();
  CHECK_FALSE(course.active());
  CHECK(end.state == 1);
  CHECK(end.window_start_fs == 1025);
}

TEST_CASE("a course released early resumes the policy as it began, with a fresh window and nothing pending") {
  ImposedCourse course;
  course.begin(1000, two_changes(), before_at_state_4());
  const GovernorSnapshot same_state = course.release(1012, 4);
  CHECK_FALSE(course.active());
  CHECK(same_state.state == 4);
  CHECK(same_state.window_start_fs == 1012);
  CHECK_FALSE(same_state.change_pending);
  CHECK(same_state.at_state.size() == 1);  // the kept windows were measured at the state the clock is at

  course.begin(1000, two_changes(), before_at_state_4());
  const GovernorSnapshot moved_state = course.release(1012, 3);
  CHECK(moved_state.state == 3);
  CHECK(moved_state.at_state.empty());  // measured at another state: they say nothing of this one
}
