#include "models/power/clock_scaled_work.h"

#include <algorithm>
#include <stdexcept>
#include <utility>

namespace roofsim {

UnitTimeShares unit_time_shares(double busy_fs, double resident_fs, double latency_share, std::size_t units,
                                TimeFs duration_fs) {
  UnitTimeShares shares;
  if (units == 0 || duration_fs == 0) return shares;
  const double total = static_cast<double>(units) * static_cast<double>(duration_fs);
  const double busy = std::clamp(busy_fs, 0.0, total);
  const double stall = std::clamp(resident_fs, busy, total) - busy;
  const double latency = std::clamp(latency_share, 0.0, 1.0);
  shares.compute = busy / total;
  shares.latency = stall * latency / total;
  shares.bandwidth = stall * (1.0 - latency) / total;
  return shares;
}

ClockScaledWork::ClockScaledWork(std::vector<ClockSegment> segments, UnitTimeShares shares)
    : segments_(std::move(segments)), shares_(shares) {
  if (shares_.compute < 0 || shares_.latency < 0 || shares_.bandwidth < 0 ||
      shares_.compute + shares_.latency + shares_.bandwidth > 1 + 1e-12) {
    throw std::invalid_argument("ClockScaledWork: unit time shares outside [0, 1]");
  }
  for (const auto& s : segments_) {
    if (s.clock_hz <= 0) throw std::invalid_argument("ClockScaledWork: a segment without a clock");
    duration_fs_ += s.duration_fs;
  }
}

double ClockScaledWork::stretch(std::size_t i, Hertz clock_hz) const {
  const Hertz recorded = segments_[i].clock_hz;
  if (clock_hz == recorded) return 1.0;
  const double r = recorded / clock_hz;
  const double k = shares_.compute, l = shares_.latency, b = shares_.bandwidth;
  const double o = std::max(0.0, 1.0 - k - l - b);
  const double phi = l + b > 0 ? b / (l + b) : 0.0;
  return o * r + (1.0 - phi) * (k * r + l + b) + phi * std::max(k * r + l, k + l + b);
}

TimeFs ClockScaledWork::duration_under(const std::vector<ClockSegment>& course) const {
  if (course.empty()) return duration_fs_;
  ReplayProgress progress(*this);
  TimeFs elapsed = 0;
  for (std::size_t i = 0; i + 1 < course.size(); ++i) {
    const TimeFs left = progress.remaining_fs(course[i].clock_hz);
    if (left <= course[i].duration_fs) return elapsed + left;
    progress.advance(course[i].duration_fs, course[i].clock_hz);
    elapsed += course[i].duration_fs;
  }
  return elapsed + progress.remaining_fs(course.back().clock_hz);
}

void ReplayProgress::advance(TimeFs elapsed_fs, Hertz clock_hz) {
  const auto& segments = work_->segments();
  double wall = static_cast<double>(elapsed_fs);
  while (wall > 0 && segment_ < segments.size()) {
    const double left = static_cast<double>(segments[segment_].duration_fs) - into_fs_;
    const double s = work_->stretch(segment_, clock_hz);
    if (wall < left * s) {
      into_fs_ += wall / s;
      return;
    }
    wall -= left * s;
    before_fs_ += static_cast<double>(segments[segment_].duration_fs);
    into_fs_ = 0;
    ++segment_;
  }
}

TimeFs ReplayProgress::remaining_fs(Hertz clock_hz) const {
  const auto& segments = work_->segments();
  double wall = 0;
  for (std::size_t i = segment_; i < segments.size(); ++i) {
    const double left = static_cast<double>(segments[i].duration_fs) - (i == segment_ ? into_fs_ : 0.0);
    wall += left * work_->stretch(i, clock_hz);
  }
  return round_fs(std::max(wall, 0.0));
}

bool ReplayProgress::as_recorded(Hertz clock_hz) const {
  const auto& segments = work_->segments();
  for (std::size_t i = segment_; i < segments.size(); ++i) {
    if (segments[i].clock_hz != clock_hz) return false;
  }
  return true;
}

double ReplayProgress::wall_to(double recorded_fs, Hertz clock_hz) const {
  const auto& segments = work_->segments();
  double wall = 0, start = before_fs_;
  for (std::size_t i = segment_; i < segments.size(); ++i) {
    const double length = static_cast<double>(segments[i].duration_fs);
    const double from = i == segment_ ? into_fs_ : 0.0;
    const double to = std::min(length, recorded_fs - start);
    if (to > from) wall += (to - from) * work_->stretch(i, clock_hz);
    start += length;
    if (start >= recorded_fs) break;
  }
  return wall;
}

void ReplayProgress::knots_ahead(TimeFs now_fs, Hertz clock_hz, const std::vector<ProgressKnot>& profile,
                                 std::vector<ProgressKnot>& into) const {
  const auto& segments = work_->segments();
  const double total = static_cast<double>(work_->duration_fs());
  const auto share = [&](double recorded_fs) {
    if (recorded_fs >= total) return 1.0;
    if (profile.empty()) return total > 0 ? recorded_fs / total : 1.0;
    return 1.0 - progress_left(profile, 1.0, static_cast<TimeFs>(recorded_fs));
  };
  const double done = done_fs();
  // The recorded times of the knots ahead: segment ends and the profile's knots.
  std::vector<double> ahead;
  double end = before_fs_;
  for (std::size_t i = segment_; i < segments.size(); ++i) {
    end += static_cast<double>(segments[i].duration_fs);
    ahead.push_back(end);
  }
  for (const auto& k : profile) {
    if (static_cast<double>(k.at_fs) > done && static_cast<double>(k.at_fs) < total) {
      ahead.push_back(static_cast<double>(k.at_fs));
    }
  }
  std::sort(ahead.begin(), ahead.end());
  into.push_back(ProgressKnot{now_fs, share(done)});
  for (const double at : ahead) {
    if (at <= done) continue;
    into.push_back(ProgressKnot{now_fs + round_fs(wall_to(at, clock_hz)), share(at)});
  }
  if (into.back().done < 1.0) into.push_back(ProgressKnot{now_fs + remaining_fs(clock_hz), 1.0});
}

}  // namespace roofsim
