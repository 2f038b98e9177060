#include "sim/engine/op_activity.h"

#include <algorithm>
#include <cmath>

#include <stdexcept>

#include <systemc>
#include "sim/graph/counting.h"
#include "sim/graph/hardware_check.h"

namespace roofsim {

namespace {

double replay_left(const OpExecution& execution, std::uint64_t count, TimeFs now) {
  return replay_left(execution, static_cast<double>(count), now);
}

}  // namespace

OpActivity::OpActivity(const std::vector<OpExecution>& executions, const DispatchPolicy& policy,
                       const Workload& workload, const EnergyModel& model, const std::vector<std::string>& level_names,
                       const EngineDramAdapter* dram)
    : executions_(executions), policy_(policy), dram_(dram), dram_level_(model.dram_index()) {
  if (dram_ != nullptr) banks_ = std::max(1u, dram_->device().params().standard.banks());
  if (level_names != model.level_names()) {
    throw std::logic_error("OpActivity: the memory system's levels are not the energy model's");
  }
  for (std::size_t op = 0; op < executions.size(); ++op) {
    slots_.push_back(model.flop_slot(executions[op].engine, workload.ops[op].dtype));
    // An op without matrix work (element-wise, reduction, softmax, normalization) does its FLOPs as the lane
    // operations its steps count: their energy is the operations', not the FLOPs' again.
    flops_on_lanes_.push_back(engine_work(workload.ops[op]).flops == 0);
    // Each kind of lane operation on the engine that runs it, at the energy of its class there.
    const auto vector = vector_classes(vector_data_type(workload.ops[op]));
    const std::array<EngineOpClass, kWorkKinds - 1> classes = {vector[0], vector[1], EngineOpClass::exp2,
                                                               EngineOpClass::reciprocal, EngineOpClass::rsqrt};
    std::array<std::size_t, kWorkKinds - 1> op_slots{};
    for (std::size_t kind = 0; kind + 1 < kWorkKinds; ++kind) {
      const auto class_index =
          static_cast<std::size_t>(std::find(kAllEngineOpClasses.begin(), kAllEngineOpClasses.end(), classes[kind]) -
                                   kAllEngineOpClasses.begin());
      op_slots[kind] = model.op_slot(executions[op].work_engine[kind + 1], class_index);
    }
    op_slots_.push_back(op_slots);
  }
  unfinished_.assign(executions.size(), UnfinishedWork{});
  reported_flops_.assign(executions.size(), 0);
  reported_ops_.assign(executions.size(), {});
  finished_active_.assign(executions.size(), false);
  reported_link_.assign(executions.size(), 0);
}

void OpActivity::count_dram_bytes_over_their_bursts(SimpleDram& dram) {
  in_flight_ = &dram.in_flight();
  in_flight_->track(dram.channels());
  dram_unfinished_.assign(executions_.size(), 0.0);
  reported_dram_.assign(executions_.size(), 0);
}

void OpActivity::count_steps_over_their_interval(std::vector<const ComputeUnit*> units) {
  units_ = std::move(units);
}

void OpActivity::add_op_activity(std::size_t op, Activity& into) const {
  const auto& execution = executions_[op];
  Flops flops = execution.executed_flops;
  const auto& work = execution.executed_work;
  std::array<std::uint64_t, kWorkKinds - 1> ops = {work.vector_fma, work.vector_alu, work.exp2, work.reciprocal,
                                                   work.rsqrt};
  const TimeFs now = sc_core::sc_time_stamp().value();
  {
    if (now != read_at_fs_) {
      read_at_fs_ = now;
      std::fill(unfinished_.begin(), unfinished_.end(), UnfinishedWork{});
      if (in_flight_ != nullptr) {
        std::fill(dram_unfinished_.begin(), dram_unfinished_.end(), 0.0);
        in_flight_->add_unfinished(now, dram_unfinished_);
      }
      for (const auto* unit : units_) unit->add_unfinished_work(now, unfinished_);
      links_.read(now);
    }
    const UnfinishedWork left_work = unfinished_of(op, now);
    // Counts are integers and never go down between readings (the even-pace shares are doubles).
    const auto done = [](std::uint64_t issued, double unfinished_share, std::uint64_t& reported) {
      const auto unfinished = static_cast<std::uint64_t>(std::ceil(unfinished_share));
      reported = std::max(reported, unfinished < issued ? issued - unfinished : 0);
      return reported;
    };
    flops = done(flops, left_work.flops, reported_flops_[op]);
    for (std::size_t kind = 0; kind < ops.size(); ++kind) {
      ops[kind] = done(ops[kind], left_work.ops[kind], reported_ops_[op][kind]);
    }
  }
  // A replay's bytes and DRAM commands, too, at an even pace over its interval, and the skipped waves' over the hold
  // (`skipped`: their part of `count`).
  const bool replaying = execution.replay_end_fs != kNever && now < execution.replay_end_fs;
  const bool holding = execution.skipped.hold_fs != 0 && policy_.times(op).end_fs == kNever;
  const auto part = [&](std::uint64_t count, double skipped = 0) {
    if (!replaying && !holding) return count;
    double left = 0;
    if (replaying) left += replay_left(execution, count, now);
    if (holding) left += skipped_left(op, skipped, now);
    const auto unfinished = static_cast<std::uint64_t>(std::ceil(left));
    return unfinished < count ? count - unfinished : 0;
  };
  if (clock_ != nullptr) {
    if (active_unit_fs_.empty()) {
      active_unit_fs_.assign(executions_.size(), 0.0);
      active_unit_cycles_.assign(executions_.size(), 0.0);
    }
    // An op not started has no unit time, and one ended and read after its end no more.
    const auto& times = policy_.times(op);
    if (times.start_fs != kNever && times.start_fs <= now && !finished_active_[op]) {
      // The clock has not changed since the last reading: the time since then was all at the current clock.
      const double fs = active_unit_fs(op, now);
      if (fs > active_unit_fs_[op]) {
        active_unit_cycles_[op] += (fs - active_unit_fs_[op]) * 1e-15 * clock_->clock_hz();
        active_unit_fs_[op] = fs;
      }
      if (times.end_fs != kNever && times.end_fs <= now && !replaying) finished_active_[op] = true;
    }
    into.active_unit_cycles += static_cast<std::uint64_t>(active_unit_cycles_[op]);
  }
  reported_link_[op] = std::max(reported_link_[op], static_cast<Bytes>(std::floor(links_.spent(op))));
  into.network_bytes += reported_link_[op];
  (flops_on_lanes_[op] ? into.lane_flops : into.flops[slots_[op]]) += flops;
  for (std::size_t kind = 0; kind < ops.size(); ++kind) into.ops[op_slots_[op][kind]] += ops[kind];
  for (std::size_t level = 0; level < execution.bytes.size() && level < into.level_bytes.size(); ++level) {
    Bytes bytes =
        part(execution.bytes[level], level < execution.skipped.bytes.size() ? execution.skipped.bytes[level] : 0.0);
    if (in_flight_ != nullptr && level == dram_level_) {
      const auto unfinished = static_cast<Bytes>(std::ceil(dram_unfinished_[op]));
      bytes = std::max(reported_dram_[op], unfinished < bytes ? bytes - unfinished : 0);
      reported_dram_[op] = bytes;
    }
    into.level_bytes[level] += bytes;
  }
  if (dram_ != nullptr && op < dram_->op_counters().size()) {
    const auto& c = dram_->op_counters()[op];
    auto& commands = into.dram_commands;
    const auto& skipped = execution.skipped.dram_commands;
    commands.act += part(c.acts, skipped[0]);
    commands.pre += part(c.pres, skipped[1]);
    commands.rd += part(c.read_bursts, skipped[2]);
    commands.wr += part(c.write_bursts, skipped[3]);
    // Activity counts all-bank refreshes; per-bank ones count as whole all-bank equivalents of the op's running total
    // (the counts are cumulative, so a later snapshot minus an earlier one stays exact to within one per op). The
    // per-bank ones are paced before they are divided: a skip's share of them, divided and then rounded up, can
    // exceed what the division left of the count by one, and a count that goes down wraps the governor's reading.
    commands.ref += part(c.refs_all_bank, skipped[4]) + part(c.refs_per_bank, skipped[5]) / banks_;
  }
}

UnfinishedWork OpActivity::unfinished_of(std::size_t op, TimeFs now) const {
  // A memoized replay books its counters at its start, and a fast-forward those of the waves it skipped at the skip:
  // they are spent at an even pace over the replay or the hold, as a simulated op's steps are over theirs. Added for
  // the op read only, so that a reading costs no pass over all the graph's ops.
  const auto& e = executions_[op];
  UnfinishedWork left = unfinished_[op];
  if (e.skipped.hold_fs != 0) {
    left.flops += skipped_left(op, e.skipped.flops, now);
    for (std::size_t kind = 0; kind < e.skipped.ops.size(); ++kind) {
      left.ops[kind] += skipped_left(op, e.skipped.ops[kind], now);
    }
  }
  if (e.replay_end_fs != kNever && now < e.replay_end_fs) {
    const auto& w = e.executed_work;
    const std::array<std::uint64_t, kWorkKinds - 1> counts = {w.vector_fma, w.vector_alu, w.exp2, w.reciprocal,
                                                              w.rsqrt};
    left.flops += replay_left(e, e.executed_flops, now);
    for (std::size_t kind = 0; kind < counts.size(); ++kind) left.ops[kind] += replay_left(e, counts[kind], now);
  }
  return left;
}

double OpActivity::active_unit_fs(std::size_t op, TimeFs now) const {
  const auto& execution = executions_[op];
  double fs = 0;
  for (const auto& unit : execution.units) {
    fs += static_cast<double>(unit.resident_fs);
    if (unit.resident > 0 && now > unit.since_fs) fs += static_cast<double>(now - unit.since_fs);
  }
  // A replay books its units' time at its start, and the units hold its tiles through it: the time is spent along
  // the replay's progress, as its counters are (a re-timed replay scales the part still to come with its duration,
  // sim/engine/op_replay.h).
  // Not at an even pace: a weight-gradient GEMM replayed beside the data-gradient GEMM holds no unit until that one
  // ends, and its units' time spread over the overlap too would have the governor read both ops' units active there
  // and step the clock down (pp_training on H100: 738 W at the group's start against --exact's 675 W, 1.69 GHz
  // against 1.76 GHz for the rest of the backward pass, the energy 1.7% short).
  if (execution.replay_end_fs != kNever && now < execution.replay_end_fs) {
    fs = replay_units_spent_fs(execution, fs, now);
  }
  // A fast-forward books the skipped waves' unit time at the skip.
  if (execution.skipped.hold_fs != 0) fs -= skipped_left(op, execution.skipped.unit_fs, now);
  return fs;
}

double OpActivity::skipped_left(std::size_t op, double amount, TimeFs now) const {
  const SkippedWaves& skipped = executions_[op].skipped;
  if (skipped.hold_fs == 0 || amount == 0) return 0.0;
  const auto& times = policy_.times(op);
  // The skipped waves' time follows the op's simulated tiles: until its hold begins they are all to come.
  if (!times.held) return amount;
  return PacedAmount{amount, times.replay_end_fs - skipped.hold_fs, times.replay_end_fs}.left(now);
}

bool OpActivity::finished(TimeFs& end_fs) const {
  if (!policy_.all_done()) return false;
  end_fs = 0;
  for (std::size_t op = 0; op < executions_.size(); ++op) {
    const TimeFs end = policy_.times(op).end_fs;
    if (end != kNever) end_fs = std::max(end_fs, end);
  }
  return true;
}

bool OpActivity::settled(std::size_t op) const {
  // As of the last reading (read_at_fs_): the op ended by then, and nothing of it was left to spend.
  const auto& e = executions_[op];
  const auto& times = policy_.times(op);
  if (times.end_fs == kNever || times.end_fs > read_at_fs_ || read_at_fs_ == kNever) return false;
  if (e.replay_end_fs != kNever && e.replay_end_fs > read_at_fs_) return false;
  const UnfinishedWork left = unfinished_of(op, read_at_fs_);
  if (left.flops != 0 || std::any_of(left.ops.begin(), left.ops.end(), [](double v) { return v != 0; })) return false;
  if (in_flight_ != nullptr && dram_unfinished_[op] != 0) return false;
  if (clock_ != nullptr && !finished_active_[op]) return false;
  // Its link transfers may still be spending its energy (none starts after its end: a collective ends when its last
  // message is in); the detailed DRAM charges commands to ops as it issues them, which an op's end (its writes
  // acknowledged) leaves none of.
  return !links_.busy_after(read_at_fs_, op);
}

bool OpActivity::replaying(TimeFs now_fs) const {
  if (links_.busy_after(now_fs)) return true;
  // Only launched ops replay or hold, and an ended one has done both.
  for (std::size_t op = policy_.first_open(); op < policy_.launched_end(); ++op) {
    const auto& e = executions_[op];
    if (e.replay_end_fs != kNever && e.replay_start_fs <= now_fs && now_fs < e.replay_end_fs) return true;
    // A fast-forwarded op from its skip to its end: its hold begins when its last tile ends, which no event tells
    // a governor asleep through what it took for an idle stretch.
    if (e.skipped.hold_fs != 0 && policy_.times(op).end_fs == kNever) return true;
  }
  return false;
}

}  // namespace roofsim
