// Overlap groups on one device (op_group_memo.h): DeviceOpReplay's part that records and replays them.
#include <algorithm>

#include <fmt/format.h>

#include "sim/engine/op_replay.h"

namespace roofsim {

namespace {

// Ops that launched together start in the same dispatcher pass; the group's key takes those within this many op
// indices of the first (a layer's backward launches its two GEMMs of one op next to each other).
constexpr std::size_t kCoStartScan = 64;

}  // namespace

std::string DeviceOpReplay::kind_key(std::size_t op) const {
  const Op& o = workload_.ops[op];
  const OpExecution& e = executions_[op];
  const OpShape& s = o.shape;
  std::string key = fmt::format("{}|{}|{}|{}|{}|{} {} {} {}|{} {} {}|{} {} {} {}|", to_string(o.kind),
                                to_string(o.dtype), e.engine, e.lowering->description(), e.lowering->tiles(), s.batch,
                                s.m, s.n, s.k, s.elements, s.rows, s.cols, s.heads, s.seq_q, s.seq_kv, s.head_dim);
  for (const auto* t : tensors_of(op)) key += fmt::format("{} ", t->bytes);
  return key;
}

TimeFs DeviceOpReplay::group_starting(std::size_t op, TimeFs now) {
  OpGroupStore& groups = store_.groups;
  if (group_) {
    GroupRun& g = *group_;
    g.open.push_back(op);
    // A member starts when its launch latency is over, not when the dispatcher first hands it to this hook: while a
    // simulated member has tiles left to issue the dispatcher wakes only when a tile finishes, so a member whose
    // latency ends while the weight-gradient GEMM fills every unit reaches the hook a tile later (30 us of a GPT-3
    // layer's 778 us mlp.up group on H100), whereas beside replayed members, which hold no unit, it reaches it on
    // time. Measured from its launch both ways, its start follows from its launcher's end alone.
    const TimeFs start_fs = policy_.times(op).start_fs;
    if (g.replaying != nullptr) {
      const auto& members = g.replaying->members;
      if (!g.diverged && g.next < members.size()) {
        const OpGroupMember& m = members[g.next];
        // Its recorded offset at the live clock: the group's progress moves as its members' replays do (their records
        // hold the group's clock course and shares over their own time, close_group).
        const TimeFs expected_fs =
            g.read_fs + round_fs(g.progress.wall_to(static_cast<double>(m.offset_fs), clock_.clock_hz()));
        if (op >= g.first_op && op - g.first_op == m.delta &&
            starts_on_time(start_fs, expected_fs, m.offset_fs, g.replaying->duration_fs) &&
            kind_key(op) == m.kind_key) {
          ++g.next;
          replay(op, *m.record, start_fs);
          ++groups.members_replayed;
          ++store_.replayed;
          return executions_[op].replay_end_fs;
        }
      }
      // Something outside the group launched this op, or the pattern moved: it runs beside members that are
      // replayed as if it did not.
      if (!g.diverged) ++groups.diverged;
      g.diverged = true;
      return kNever;
    }
    ++groups.in_unagreed_group;
    if (capped()) governor_->follow(op);
    g.members.push_back(start_recording(op, {}, start_fs));
    g.records.emplace_back();
    return kNever;
  }
  if (std::any_of(started_.begin(), started_.end(), [op](std::size_t o) { return o != op; })) {
    ++groups.beside_started;
    return kNever;
  }
  // A group starts: this op and those launched with it, which start now, in the order the dispatcher starts them.
  GroupRun g;
  g.start_fs = now;
  g.first_op = op;
  g.open.push_back(op);
  g.key = fmt::format("0:{}\n", signature(op));
  const std::size_t end = std::min(workload_.ops.size(), op + 1 + kCoStartScan);
  for (std::size_t j = op + 1; j < end; ++j) {
    const auto& t = policy_.times(j);
    if (executions_[j].lowering == nullptr || policy_.tiles(j) == 0 || t.launch_fs == kNever || t.end_fs != kNever ||
        t.start_fs != now || t.issued != 0 || t.announced) {
      continue;
    }
    g.key += fmt::format("{}:{}\n", j - op, signature(j));
  }
  const OpGroupRecord* record = groups.find(g.key);
  if (record != nullptr && record->members.front().kind_key == kind_key(op)) {
    g.replaying = record;
    g.next = 1;
    g.progress = ReplayProgress(record->work);
    g.read_fs = now;
    // The counters the members share, at once, as a single op's replay books them; the DRAM's idle channels issue
    // the refreshes due by now (each member's replay books its own bursts).
    memory_.add_replayed(record->levels, record->dram_read_bytes, record->dram_written_bytes);
    if (dram_ != nullptr) dram_->add_replayed(static_cast<std::uint32_t>(op), OpDramCounters{}, 0, now);
    group_ = std::move(g);
    replay(op, *record->members.front().record, now);
    ++groups.members_replayed;
    ++store_.replayed;
    return executions_[op].replay_end_fs;
  }
  ++groups.in_unagreed_group;
  g.levels = memory_.counters();
  g.dram_read = memory_.dram_bytes_read();
  g.dram_written = memory_.dram_bytes_written();
  g.clock_changes = clock_.changes();
  g.clock_state = clock_.state();
  // The power sampled so far closes at the group's start, so that its samples over the group are the group's.
  if (throttled()) {
    governor_->mark(now);
    g.samples = governor_->trace().size();
  }
  if (capped()) governor_->follow(op);
  g.members.push_back(start_recording(op, {}, now));
  g.records.emplace_back();
  group_ = std::move(g);
  return kNever;
}

void DeviceOpReplay::group_finished(std::size_t op, TimeFs now) {
  GroupRun& g = *group_;
  const auto it = std::find(g.open.begin(), g.open.end(), op);
  if (it == g.open.end()) return;
  g.open.erase(it);
  if (g.replaying == nullptr) {
    for (std::size_t i = 0; i < g.members.size(); ++i) {
      if (g.members[i].op != op) continue;
      auto rec = record(g.members[i], now, std::nullopt);
      // The shared counters and the cache contents are the group's; its clock course and power profile too
      // (close_group).
      rec->levels.clear();
      rec->dram_read_bytes = rec->dram_written_bytes = rec->dram_asked_burst_bytes = 0;
      rec->resident.clear();
      rec->activity.clear();
      g.records[i] = std::move(rec);
      break;
    }
  }
  if (g.open.empty()) close_group(now);
}

void DeviceOpReplay::close_group(TimeFs now) {
  GroupRun g = std::move(*group_);
  group_.reset();
  OpGroupStore& groups = store_.groups;
  std::vector<std::vector<const Tensor*>> tensors;
  std::vector<std::vector<std::pair<TimeFs, double>>> member_energies;  // per member, recorded under a cap
  if (g.replaying != nullptr) {
    if (g.next != g.replaying->members.size() && !g.diverged) ++groups.diverged;
    ++groups.replayed;
    // Only the members this group replayed: a record may hold members that joined its twin later (on the rank that
    // recorded it, the next micro-batch's receive and first GEMM, which came while the weight gradient still ran),
    // and here start after the group's end or run simulated beside it. Installing their tensors' blocks would leave
    // their operands resident where nothing read them (a 134 MB weight, half of MI300X's infinity cache, which the
    // next micro-batch's GEMM then found there), and their op indices may lie past the workload's last op.
    for (std::size_t i = 0; i < g.replaying->members.size(); ++i) {
      tensors.push_back(i < g.next ? tensors_of(g.first_op + g.replaying->members[i].delta)
                                   : std::vector<const Tensor*>{});
    }
    // The cache contents the recorded group left of its members' tensors, at this group's, oldest use first so that
    // LRU order follows; ready from the group's end.
    install_resident(
        g.replaying->resident,
        [&](const OpGroupRecord::Resident& r) -> const Tensor* {
          return r.member < tensors.size() && r.tensor < tensors[r.member].size() ? tensors[r.member][r.tensor]
                                                                                  : nullptr;
        },
        [&](const OpGroupRecord::Resident&, CacheTags& tags, Bytes lo, Bytes hi) { tags.write(lo, hi - lo, now); });
    return;
  }
  if (capped()) {
    // The members' energies up to the group's end (a power profile is read only once the clock has moved).
    if (throttled()) governor_->mark(now);
    for (const auto& m : g.members) member_energies.push_back(governor_->unfollow(m.op));
  }
  if (std::any_of(g.records.begin(), g.records.end(), [](const auto& r) { return r == nullptr; })) {
    ++groups.unrecorded;
    return;
  }
  auto rec = std::make_unique<OpGroupRecord>();
  rec->duration_fs = now - g.start_fs;
  const auto levels = memory_.counters();
  for (std::size_t l = 0; l < levels.size(); ++l) rec->levels.push_back(levels[l] - g.levels[l]);
  rec->dram_read_bytes = memory_.dram_bytes_read() - g.dram_read;
  rec->dram_written_bytes = memory_.dram_bytes_written() - g.dram_written;
  // The group as one unit of clock-scaled work, and its power profile (it ran alone on the device).
  std::vector<const OpRecord*> member_records;
  for (const auto& r : g.records) member_records.push_back(r.get());
  rec->work = ClockScaledWork(clock_course(g.clock_changes, g.clock_state, g.start_fs, now),
                              group_time_shares(member_records, rec->duration_fs));
  const std::vector<ProgressKnot> profile =
      throttled() && rec->duration_fs > 0 ? power_profile(g.samples, g.start_fs, now) : std::vector<ProgressKnot>{};
  for (std::size_t i = 0; i < g.members.size(); ++i) {
    OpGroupMember m;
    m.delta = g.members[i].op - g.first_op;
    m.offset_fs = g.members[i].start_fs - g.start_fs;
    m.kind_key = kind_key(g.members[i].op);
    m.record = std::move(g.records[i]);
    OpRecord& member = *m.record;
    const TimeFs member_end_fs = m.offset_fs + member.duration_fs;
    member.work = ClockScaledWork(course_between(rec->work.segments(), m.offset_fs, member_end_fs), rec->work.shares());
    // A member's counters are spent at its own pace, not along the group's power profile, where they would crowd
    // into its overlap with the others: a weight-gradient GEMM beside the data-gradient GEMM does little while they
    // overlap, and with its FLOPs there the governor would read 30 % over the power --exact draws (B200's training
    // stage) and step the clock down from 1.85 to 1.63 GHz for the rest of the step. Its pace is its energy as the
    // governor read it, not its tiles' residency: a weight-gradient tile that runs at half speed beside a
    // data-gradient tile and then at full speed spreads its work evenly over its residency, and the weight-gradient
    // GEMM's FLOPs landed 100 us late in an A100 training stage's backward; the governor climbed on the dip.
    if (!profile.empty()) {
      if (g.members.size() > 1 && i < member_energies.size()) {
        member.activity =
            energy_progress(member_energies[i], g.members[i].start_fs, g.members[i].start_fs + member.duration_fs);
      }
      if (member.activity.empty()) member.activity = profile_between(profile, m.offset_fs, member_end_fs);
    }
    // The DRAM serves a member's requests until the group's end (writes posted late, fills behind the other
    // members'): its counters then. The requests in flight at a member's start or end are not its own, so what the
    // group asked of the DRAM does not split over its members; a replayed member books its bursts as asked when
    // served, so that the run's asked and served bytes balance.
    const std::size_t op = g.members[i].op;
    if (dram_ != nullptr && op < dram_->op_counters().size()) {
      member.dram = dram_->op_counters()[op];
      member.dram_asked_burst_bytes = member.dram.bursts * dram_->burst_bytes();
    }
    rec->members.push_back(std::move(m));
    tensors.push_back(tensors_of(g.members[i].op));
  }
  // The cache contents of the members' tensors (each tensor once, at its first member) at the group's end.
  std::vector<const Tensor*> seen;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> distinct;  // (member, tensor)
  for (std::size_t m = 0; m < tensors.size(); ++m) {
    for (std::size_t t = 0; t < tensors[m].size(); ++t) {
      if (std::find(seen.begin(), seen.end(), tensors[m][t]) != seen.end()) continue;
      seen.push_back(tensors[m][t]);
      distinct.emplace_back(static_cast<std::uint32_t>(m), static_cast<std::uint32_t>(t));
    }
  }
  for (std::size_t level = 0; level < sram_levels_; ++level) {
    for (std::size_t a = 0; a < memory_.tag_arrays(level); ++a) {
      const CacheTags& tags = memory_.tags(level, a);
      const Bytes block_bytes = tags.tracking_bytes();
      tags.for_each_block([&](Bytes block, std::uint64_t valid, std::uint64_t last_use) {
        for (const auto& [m, t] : distinct) {
          const Tensor& tensor = *tensors[m][t];
          if (block + block_bytes <= tensor.address || block >= tensor.address + tensor.bytes) continue;
          rec->resident.push_back(OpGroupRecord::Resident{
              static_cast<std::uint32_t>(level), static_cast<std::uint32_t>(a), m, t,
              static_cast<std::int64_t>(block) - static_cast<std::int64_t>(tensor.address), valid, last_use});
        }
      });
    }
  }
  std::stable_sort(
      rec->resident.begin(), rec->resident.end(),
      [](const OpGroupRecord::Resident& x, const OpGroupRecord::Resident& y) { return x.last_use < y.last_use; });
  ++groups.recorded;
  store_.recorded += rec->members.size();
  groups.insert(g.key, std::move(rec), OpInstance{&workload_, g.first_op});
}

}  // namespace roofsim
