#include "sim/engine/op_group_memo.h"

#include <algorithm>

#include "sim/engine/op_memo.h"

namespace roofsim {

static_assert(kGroupRepresentativeInstances == kRepresentativeInstances);

OpGroupMember::OpGroupMember() = default;
OpGroupMember::OpGroupMember(OpGroupMember&&) noexcept = default;
OpGroupMember& OpGroupMember::operator=(OpGroupMember&&) noexcept = default;
OpGroupMember::~OpGroupMember() = default;

UnitTimeShares group_time_shares(const std::vector<const OpRecord*>& members, TimeFs duration_fs) {
  std::vector<double> busy, resident;
  double latency = 0, queueing = 0;
  for (const auto* m : members) {
    latency += static_cast<double>(m->latency_fs);
    queueing += static_cast<double>(m->queueing_fs);
    if (busy.size() < m->units.size()) {
      busy.resize(m->units.size(), 0.0);
      resident.resize(m->units.size(), 0.0);
    }
    for (std::size_t u = 0; u < m->units.size(); ++u) {
      const UnitResidency& r = m->units[u];
      busy[u] += static_cast<double>(r.busy_fs);
      for (const auto w : r.waited_fs) busy[u] += static_cast<double>(w);
      resident[u] += static_cast<double>(r.resident_fs);
    }
  }
  const double duration = static_cast<double>(duration_fs);
  double critical_busy = 0, critical_resident = -1;
  for (std::size_t u = 0; u < busy.size(); ++u) {
    const double r = std::min(resident[u], duration);
    if (r <= critical_resident) continue;
    critical_resident = r;
    critical_busy = busy[u];
  }
  const double chunk = latency + queueing;
  return unit_time_shares(critical_busy, std::max(critical_resident, 0.0), chunk > 0 ? latency / chunk : 1.0, 1,
                          duration_fs);
}

std::vector<ClockSegment> course_between(const std::vector<ClockSegment>& course, TimeFs from_fs, TimeFs to_fs) {
  std::vector<ClockSegment> out;
  if (course.empty() || to_fs <= from_fs) return out;
  TimeFs at = 0;
  for (std::size_t i = 0; i < course.size() && at < to_fs; ++i) {
    const bool last = i + 1 == course.size();
    const TimeFs end = last ? std::max(to_fs, at + course[i].duration_fs) : at + course[i].duration_fs;
    const TimeFs lo = std::max(at, from_fs), hi = std::min(end, to_fs);
    if (hi > lo) out.push_back(ClockSegment{hi - lo, course[i].clock_hz});
    at = end;
  }
  return out;
}

std::vector<ProgressKnot> profile_between(const std::vector<ProgressKnot>& profile, TimeFs from_fs, TimeFs to_fs) {
  std::vector<ProgressKnot> out;
  if (profile.empty() || to_fs <= from_fs) return out;
  // The shares spent by then: a profile ends at 1, so what is left of one whole is the rest.
  const double first = 1.0 - progress_left(profile, 1.0, from_fs);
  const double spent = 1.0 - progress_left(profile, 1.0, to_fs) - first;
  if (spent <= 0) return out;
  out.push_back(ProgressKnot{0, 0.0});
  for (const auto& k : profile) {
    if (k.at_fs <= from_fs || k.at_fs >= to_fs) continue;
    out.push_back(ProgressKnot{k.at_fs - from_fs, std::clamp((k.done - first) / spent, 0.0, 1.0)});
  }
  out.push_back(ProgressKnot{to_fs - from_fs, 1.0});
  return out;
}

std::vector<ProgressKnot> energy_progress(const std::vector<std::pair<TimeFs, double>>& energies, TimeFs from_fs,
                                          TimeFs to_fs) {
  std::vector<ProgressKnot> knots;
  if (to_fs <= from_fs) return knots;
  // The energy by `t`, linear between the readings, none before the first (the op had not started), the last after
  // the last.
  const auto energy_at = [&](TimeFs t) {
    double before_j = 0;
    TimeFs before_fs = from_fs;
    for (const auto& [at, energy] : energies) {
      if (at >= t) {
        if (at == before_fs) return energy;
        return before_j +
               (energy - before_j) * static_cast<double>(t - before_fs) / static_cast<double>(at - before_fs);
      }
      before_fs = std::max(at, from_fs);
      before_j = energy;
    }
    return before_j;
  };
  const double first_j = energy_at(from_fs), total_j = energy_at(to_fs) - first_j;
  if (total_j <= 0) return knots;
  knots.push_back(ProgressKnot{0, 0.0});
  for (const auto& [at, energy] : energies) {
    if (at <= from_fs || at >= to_fs) continue;
    knots.push_back(ProgressKnot{at - from_fs, std::clamp((energy - first_j) / total_j, knots.back().done, 1.0)});
  }
  knots.push_back(ProgressKnot{to_fs - from_fs, 1.0});
  return knots;
}

bool starts_on_time(TimeFs now_fs, TimeFs expected_fs, TimeFs offset_fs, TimeFs group_fs) {
  const TimeFs off = now_fs > expected_fs ? now_fs - expected_fs : expected_fs - now_fs;
  // The rounding of the members' ends, once per clock change each: a few fs.
  constexpr std::uint64_t kRoundingParts = 100000;
  return off * kMemberStartParts <= offset_fs || off * kRoundingParts <= group_fs;
}

bool groups_agree(const OpGroupRecord& first, const OpGroupRecord& next) {
  if (first.members.size() != next.members.size()) return false;
  for (std::size_t i = 0; i < first.members.size(); ++i) {
    const OpGroupMember& a = first.members[i];
    const OpGroupMember& b = next.members[i];
    if (a.delta != b.delta || a.kind_key != b.kind_key) return false;
    const TimeFs predicted = duration_at_course(*a.record, b.record->work.segments());
    if (!within_parts(b.record->duration_fs, predicted, kAgreementParts)) return false;
  }
  return true;
}

const OpGroupRecord* OpGroupStore::find(const std::string& key) const {
  const auto it = records_.find(key);
  return it == records_.end() ? nullptr : it->second.record.get();
}

std::size_t OpGroupStore::representative(const std::vector<Candidate>& candidates, std::size_t first,
                                         std::uint64_t parts, bool all) {
  const auto& course = candidates.back().record->work.segments();
  std::vector<std::pair<TimeFs, std::size_t>> times;
  for (std::size_t i = first; i < candidates.size(); ++i) {
    const OpGroupRecord& r = *candidates[i].record;
    times.emplace_back(duration_at_course(r.work, r.duration_fs, course), i);
  }
  std::sort(times.begin(), times.end());
  const std::size_t mid = times[times.size() / 2].second;
  const OpGroupRecord& median = *candidates[mid].record;
  std::size_t agreeing = 0;
  for (const auto& [time, i] : times) {
    if (i == mid || !groups_agree(median, *candidates[i].record)) continue;
    if (all && !within_parts(time, times[times.size() / 2].first, parts)) continue;
    ++agreeing;
  }
  return (all ? agreeing + 1 == times.size() : agreeing > 0) ? mid : candidates.size();
}

void OpGroupStore::insert(const std::string& key, std::unique_ptr<OpGroupRecord> record, OpInstance instance) {
  Entry& entry = records_[key];
  if (entry.record != nullptr) return;
  auto& c = entry.candidates;
  if (std::any_of(c.begin(), c.end(), [&](const Candidate& k) { return k.instance == instance; })) return;
  c.push_back(Candidate{std::move(record), instance});
  if (c.size() > instances_) c.erase(c.begin());
  const std::size_t chosen = settled_choice(
      c.size(), instances_, kSettledInstances,
      [&](std::size_t first, std::uint64_t parts, bool all) { return representative(c, first, parts, all); });
  if (chosen == c.size()) return;
  entry.record = std::move(c[chosen].record);
  c.clear();
}

}  // namespace roofsim
