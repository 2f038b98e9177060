#include "models/dram/engine_dram_adapter.h"

#include <algorithm>

#include "models/dram/dram_timing_checker.h"

namespace roofsim {

namespace {
// The on-chip part of the unloaded latency: `dram.latency` less what the controller itself takes for a lone read
// of a closed bank (ACT to RD tRCD, RD to data tCL, one burst on the pins).
TimeFs path_latency_fs(const DramParams& dram) {
  const auto timing = dram::CheckerTiming::from(dram.standard);
  const Seconds controller_s = static_cast<double>(timing.tRCD + timing.tCL + timing.burst) * dram.standard.tck_s;
  return seconds_to_fs(std::max(0.0, dram.latency_s - controller_s));
}
}  // namespace

EngineDramAdapter::EngineDramAdapter(const sc_core::sc_module_name& name, const DramParams& dram)
    : sc_core::sc_module(name),
      device_("controller", dram),
      unloaded_(SimpleDramParams::from(dram)),
      burst_bytes_(std::max<Bytes>(1, dram.standard.burst_bytes())),
      per_burst_(burst_bytes_),
      path_latency_fs_(path_latency_fs(dram)) {
  device_.set_observer(this);
  device_.keep_read_latencies(false);
  SC_METHOD(retry);
  sensitive << device_.space_event();
  dont_initialize();
}

TimeFs EngineDramAdapter::unloaded_fs(Bytes address, Bytes bytes) const {
  return unloaded_.unloaded_fs(address, bytes);
}

void EngineDramAdapter::submit(const DramRequest& request, DramCompletionSink& sink) {
  std::uint32_t slot = 0;
  if (free_slots_.empty()) {
    slot = static_cast<std::uint32_t>(slots_.size());
    slots_.emplace_back();
  } else {
    slot = free_slots_.back();
    free_slots_.pop_back();
  }
  slots_[slot] = Slot{&sink, request.tag, request.op};
  if (request.op >= ops_.size()) ops_.resize(request.op + 1);
  ops_[request.op].bytes += request.bytes;
  (request.write ? bytes_written_ : bytes_read_) += request.bytes;
  if (request.bytes > 0) {
    const Bytes first = per_burst_.div(request.address);
    const Bytes last = per_burst_.div(request.address + request.bytes - 1);
    asked_burst_bytes_ += (last - first + 1) * burst_bytes_;
  }
  if (request_log_ != nullptr) {
    request_log_->push_back(request);
    request_log_->back().arrival_fs = sc_core::sc_time_stamp().value();
  }
  DramRequest tagged = request;
  tagged.tag = slot;
  // Requests wait in arrival order: a later one never overtakes one refused for a full queue.
  if (!waiting_.empty() || !device_.try_submit(tagged, this)) waiting_.push_back(tagged);
}

void EngineDramAdapter::retry() {
  while (!waiting_.empty()) {
    if (!device_.try_submit(waiting_.front(), this)) return;
    waiting_.pop_front();
  }
}

void EngineDramAdapter::part_done(std::uint64_t tag, const dram::SegmentDone& part) {
  auto& op = ops_[slots_[tag].op];
  op.bursts += part.bursts;
  op.row_opens += part.opened_row ? 1 : 0;
  if (part.turnaround) ++(part.is_write ? op.turnarounds_to_write : op.turnarounds_to_read);
  op.refresh_cycles += static_cast<std::uint64_t>(part.refresh_cycles);
  op.acts += part.opened_row ? 1 : 0;
  op.pres += part.precharges;
  (part.is_write ? op.write_bursts : op.read_bursts) += part.bursts;
  op.refs_all_bank += part.refreshes_all_bank;
  op.refs_per_bank += part.refreshes_per_bank;
  served_bursts_ += part.bursts;
}

void EngineDramAdapter::dram_done(std::uint64_t tag, TimeFs done_fs) {
  const auto slot = static_cast<std::uint32_t>(tag);
  const Slot record = slots_[slot];
  free_slots_.push_back(slot);
  record.sink->dram_done(record.tag, done_fs + path_latency_fs_);
}

void EngineDramAdapter::add_replayed(std::uint32_t op, const OpDramCounters& counters, Bytes asked_burst_bytes,
                                     TimeFs end_fs) {
  device_.refresh_idle_until(end_fs);
  if (ops_.size() <= op) ops_.resize(op + 1);
  ops_[op] += counters;
  served_bursts_ += counters.bursts;
  asked_burst_bytes_ += asked_burst_bytes;
}

}  // namespace roofsim
