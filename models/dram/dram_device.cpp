#include "models/dram/dram_device.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>

#include "sim/core/input_error.h"

namespace roofsim::dram {

namespace {
MappingShape shape_of(const DramStandardParams& standard, std::uint32_t channels) {
  MappingShape shape;
  shape.channels = std::max(1u, channels);
  shape.bank_groups = std::max(1u, standard.bank_groups);
  shape.banks_per_group = std::max(1u, standard.banks_per_group);
  shape.burst_bytes = std::max<Bytes>(1, standard.burst_bytes());
  shape.columns = static_cast<std::uint32_t>(std::max<Bytes>(1, standard.row_bytes / shape.burst_bytes));
  return shape;
}

AddressMapping make_mapping(const DramParams& dram, std::uint32_t channels) {
  try {
    return AddressMapping(dram.mapping, shape_of(dram.standard, channels));
  } catch (const std::invalid_argument& error) {
    throw InputError(SourcePos{"dram.mapping"}, "dram.mapping", dram.mapping, error.what());
  }
}
}  // namespace

DramDevice::DramDevice(const sc_core::sc_module_name& name, const DramParams& dram, std::uint32_t channels)
    : sc_core::sc_module(name),
      dram_(dram),
      clock_(dram.standard.tck_s),
      mapping_(make_mapping(dram, channels == 0 ? std::max(1u, dram.channels()) : channels)) {
  const auto policy = ChannelPolicy::from(dram_);
  for (std::uint32_t i = 0; i < mapping_.shape().channels; ++i) {
    channels_.push_back(std::make_unique<DramChannel>(dram_.standard, policy, &decision_scratch_));
  }
  bus_group_ = dram_.standard.shared_command_bus ? std::max(1u, dram_.standard.pseudo_channels) : 1;
  for (std::uint32_t i = 0; i < channels_.size(); ++i) {
    if (i % bus_group_ != 0) channels_[i]->share_command_buses(*channels_[i - i % bus_group_]);
  }
  stats_.channels.resize(channels_.size());
  blocked_channels_.assign((channels_.size() + 63) / 64, 0);
  front_end_.resize(channels_.size());
  // One channel has no other to serve while its requests wait: its source simply waits.
  front_end_depth_ = channels_.size() > 1 ? std::max<std::size_t>(policy.read_queue, mapping_.channel_run_bursts()) : 0;
  channel_parts_.assign(channels_.size(), 0);
  busy_channels_.assign((channels_.size() + 63) / 64, 0);
  due_.assign(channels_.size(), kNever);
  SC_METHOD(wake);
  sensitive << wake_event_;
  dont_initialize();
}

bool DramDevice::enqueue(const DramRequest& request, DramCompletionSink* done_sink, sc_core::sc_event* done_event) {
  const std::uint64_t address = request.address;
  const Bytes bytes = request.bytes;
  const bool is_write = request.write;
  const auto& shape = mapping_.shape();
  const std::uint32_t banks_per_group = shape.banks_per_group;
  // A request refused for lack of room is offered again after the next decision: keep its parts.
  const bool same_request = parts_valid_ && parts_address_ == address && parts_bytes_ == bytes;
  const TimeFs now_fs = now_fs_;
  const Cycle arrival = clock_.cycle_at_or_after(now_fs);
  if (same_request && parts_write_ == is_write && parts_epoch_ == space_epoch_) {
    // Refused before, and no channel has queued or released an entry since: its room is what it was (a decision
    // moves an entry from the queue to the held ones). Still refused unless a part's channel releases by now.
    bool releases = false;
    for (const auto& part : parts_) releases = releases || channels_[part.channel]->next_release() <= arrival;
    if (!releases) return false;
  }
  parts_valid_ = false;
  if (same_request) {
    for (auto& part : parts_) part.segment.is_write = is_write;
  } else {
    // The request's bursts by progression: bursts one column stride apart share a channel, bank and row until the
    // column wraps, so each part is decoded once, not once per burst. Distinct parts never share a channel, bank
    // and row: they differ in a field below the column, or in the row or a field above it.
    parts_.clear();
    const Divider& per_burst = mapping_.per_burst();
    const std::uint64_t first_burst = per_burst.div(address);
    const std::uint64_t last_burst = per_burst.div(address + std::max<Bytes>(bytes, 1) - 1);
    const std::uint64_t stride = mapping_.column_stride_bursts();
    const std::uint64_t progressions = std::min(stride, last_burst - first_burst + 1);
    for (std::uint64_t offset = 0; offset < progressions; ++offset) {
      for (std::uint64_t burst = first_burst + offset; burst <= last_burst;) {
        const auto decoded = mapping_.decode(burst * shape.burst_bytes);
        const std::uint64_t bursts = std::min<std::uint64_t>(mapping_.per_column_stride().div(last_burst - burst) + 1,
                                                             shape.columns - decoded.column);
        // Fields written in place: a temporary is stored field by field and reloaded whole, a reload that waits for
        // the stores.
        Part& part = parts_.emplace_back();
        part.channel = decoded.channel;
        part.segment.row = decoded.row;
        part.segment.bank = decoded.bank_group * banks_per_group + decoded.bank;
        part.segment.bursts = static_cast<std::uint32_t>(bursts);
        part.segment.is_write = is_write;
        part.first_burst = burst;
        burst += bursts * stride;
      }
    }
    // Queued in the order of their first bursts.
    if (stride > 1) {
      std::sort(parts_.begin(), parts_.end(),
                [](const Part& a, const Part& b) { return a.first_burst < b.first_burst; });
    }
  }
  bool room = true;
  for (const auto& part : parts_) ++channel_parts_[part.channel];
  for (const auto& part : parts_) {
    auto& channel = *channels_[part.channel];
    if (channel.next_release() <= arrival) {
      channel.release_until(arrival);
      ++space_epoch_;
    }
    if (!channel.has_space(is_write, channel_parts_[part.channel])) {
      room = false;
      blocked_channels_[part.channel / 64] |= std::uint64_t{1} << (part.channel % 64);
    }
  }
  for (const auto& part : parts_) channel_parts_[part.channel] = 0;
  if (!room) {
    parts_valid_ = true;
    parts_address_ = address;
    parts_bytes_ = bytes;
    parts_write_ = is_write;
    parts_epoch_ = space_epoch_;
    return false;
  }
  ++space_epoch_;

  std::uint64_t id = 0;
  if (free_slots_.empty()) {
    id = in_flight_.size();
    in_flight_.emplace_back();
  } else {
    id = free_slots_.back();
    free_slots_.pop_back();
  }
  auto& flight = in_flight_[id];
  flight.arrival_fs = now_fs;
  flight.done = 0;
  flight.remaining = static_cast<std::uint32_t>(parts_.size());
  flight.bytes = bytes;
  flight.is_write = is_write;
  flight.done_event = done_event;
  flight.done_sink = done_sink;
  flight.tag = request.tag;
  if (!any_request_) {
    any_request_ = true;
    stats_.first_arrival_s = DramClock::seconds(now_fs);
  }
  enqueued_ = true;
  for (auto& part : parts_) {
    part.segment.parent = id;
    part.segment.arrival = arrival;
    channels_[part.channel]->enqueue(part.segment);
    due_[part.channel] = channels_[part.channel]->decision_cycle();
    busy_channels_[part.channel / 64] |= std::uint64_t{1} << (part.channel % 64);
  }
  return true;
}

bool DramDevice::try_submit(const DramRequest& request, DramCompletionSink* sink, sc_core::sc_event* done_event) {
  if (!in_wake_) now_fs_ = sc_core::sc_time_stamp().value();
  if (!enqueue(request, sink, done_event)) {
    waiting_for_space_ = true;
    return false;
  }
  if (!in_wake_) wake_.notify_at(sc_core::sc_time_stamp().value());
  return true;
}

void DramDevice::attach_source(DramRequestSource& source) {
  source_ = &source;
  source_blocked_ = false;
  wake_.notify_at(sc_core::sc_time_stamp().value());
}

void DramDevice::pull_source() {
  if (source_ == nullptr) return;
  if (front_end_count_ > 0) drain_front_end();
  for (auto next = source_->peek(); next; next = source_->peek()) {
    if (next->arrival_fs > now_fs_) {
      source_blocked_ = false;
      return;
    }
    if (front_end_count_ > 0 || !enqueue(*next, nullptr, nullptr)) {
      if (front_end_depth_ == 0) {
        source_blocked_ = true;
        return;
      }
      // Behind the requests its channel already buffers, or in front of them when there are none.
      auto& buffer = front_end_[mapping_.decode(next->address).channel];
      if (front_end_count_ > 0 && buffer.empty() && enqueue(*next, nullptr, nullptr)) {
        source_->pop();
        continue;
      }
      if (buffer.size() >= front_end_depth_) {
        source_blocked_ = true;
        return;
      }
      buffer.push_back(*next);
      ++front_end_count_;
    }
    source_->pop();
  }
  source_blocked_ = false;
}

void DramDevice::drain_front_end() {
  for (auto& buffer : front_end_) {
    while (!buffer.empty() && enqueue(buffer.front(), nullptr, nullptr)) {
      buffer.pop_front();
      --front_end_count_;
    }
  }
}

bool DramDevice::release_blocked(Cycle now_cycle) {
  bool released = false;
  for (std::size_t word = 0; word < blocked_channels_.size(); ++word) {
    for (std::uint64_t bits = blocked_channels_[word]; bits != 0; bits &= bits - 1) {
      const auto index = word * 64 + static_cast<std::size_t>(__builtin_ctzll(bits));
      auto& channel = *channels_[index];
      if (channel.next_release() > now_cycle) continue;
      channel.release_until(now_cycle);
      ++space_epoch_;
      blocked_channels_[word] &= ~(std::uint64_t{1} << (index % 64));
      released = true;
    }
  }
  return released;
}

void DramDevice::complete_part(const SegmentDone& part) {
  auto& request = in_flight_[part.parent];
  if (observer_ != nullptr) observer_->part_done(request.tag, part);
  request.done = std::max(request.done, part.done);
  if (--request.remaining > 0) return;
  const TimeFs done_fs = clock_.time_fs(request.done);
  if (request.is_write) {
    ++stats_.write_requests;
    stats_.bytes_written += request.bytes;
  } else {
    ++stats_.read_requests;
    stats_.bytes_read += request.bytes;
    if (keep_latencies_) stats_.read_latency_s.push_back(DramClock::seconds(done_fs - request.arrival_fs));
  }
  stats_.last_done_s = std::max(stats_.last_done_s, DramClock::seconds(done_fs));
  // A receiver may submit a request, which may grow in_flight_: read the request's fields before calling them.
  auto* const done_sink = request.done_sink;
  auto* const done_event = request.done_event;
  const std::uint64_t tag = request.tag;
  if (done_sink != nullptr) done_sink->dram_done(tag, done_fs);
  if (done_event != nullptr) done_event->notify(sc_core::sc_time::from_value(done_fs - now_fs_));
  free_slots_.push_back(part.parent);
}

void DramDevice::wake() {
  now_fs_ = sc_core::sc_time_stamp().value();
  for (std::uint32_t step = 1;; ++step) {
    TimeFs next_fs = 0;
    if (!wake_step(next_fs)) return;
    next_fs = std::max(next_fs, now_fs_);
    // Alone, the device goes on to its next wake-up itself: the kernel would run nothing else in between.
    if (!sole_process_ || step >= kStepsPerActivation) {
      wake_.notify_at(next_fs);
      return;
    }
    now_fs_ = next_fs;
  }
}

bool DramDevice::wake_step(TimeFs& next_fs) {
  ++activations_;
  const Cycle now_cycle = clock_.cycle_at_or_after(now_fs_);
  in_wake_ = true;
  if (release_blocked(now_cycle)) space_freed_ = true;
  pull_source();
  // Passes over the channels with work, in index order, while a pass queued new work (a completion's callback may
  // submit a request); the due cycles sit in one array, so a pass touches only the channels it serves. The last pass
  // queued nothing, so it saw every channel with work as it leaves it: the earliest due cycle is taken on the way.
  Cycle next_cycle = kNever;
  for (bool again = true; again;) {
    enqueued_ = false;
    next_cycle = kNever;
    for (std::size_t word = 0; word < busy_channels_.size(); ++word) {
      for (std::uint64_t bits = busy_channels_[word]; bits != 0; bits &= bits - 1) {
        const auto index = word * 64 + static_cast<std::size_t>(__builtin_ctzll(bits));
        if (due_[index] > now_cycle) {
          next_cycle = std::min(next_cycle, due_[index]);
          continue;
        }
        auto& channel = *channels_[index];
        while (channel.has_work() && channel.decision_cycle() <= now_cycle) {
          for (const auto& part : channel.decide(now_cycle)) complete_part(part);
          space_freed_ = true;
          if (source_blocked_ || front_end_count_ > 0) pull_source();
        }
        due_[index] = channel.has_work() ? channel.decision_cycle() : kNever;
        next_cycle = std::min(next_cycle, due_[index]);
        if (!channel.has_work()) busy_channels_[word] &= ~(std::uint64_t{1} << (index % 64));
      }
    }
    again = enqueued_;
  }
  in_wake_ = false;
  if (space_freed_ && waiting_for_space_) {
    waiting_for_space_ = false;
    space_event_.notify(sc_core::SC_ZERO_TIME);
  }
  space_freed_ = false;

  // A refused request waits for the next entry its full channels release.
  for (std::size_t word = 0; word < blocked_channels_.size(); ++word) {
    for (std::uint64_t bits = blocked_channels_[word]; bits != 0; bits &= bits - 1) {
      next_cycle =
          std::min(next_cycle, channels_[word * 64 + static_cast<std::size_t>(__builtin_ctzll(bits))]->next_release());
    }
  }
  bool has_next = next_cycle < kNever;
  next_fs = has_next ? clock_.time_fs(next_cycle) : 0;
  if (source_ != nullptr && !source_blocked_) {
    if (const auto request = source_->peek()) {
      next_fs = has_next ? std::min(next_fs, request->arrival_fs) : request->arrival_fs;
      has_next = true;
    }
  }
  return has_next;
}

void DramDevice::refresh_idle_until(TimeFs end_fs) {
  const Cycle end = clock_.cycle_at_or_after(end_fs);
  for (auto& channel : channels_) {
    if (!channel->has_work()) channel->finish(end);
  }
}

void DramDevice::refresh_idle_until(TimeFs end_fs, const std::vector<TimeFs>& lag_fs) {
  std::vector<Cycle>& finished = finished_scratch_;
  finished.assign(channels_.size(), kNever);
  for (std::size_t c = 0; c < channels_.size(); ++c) {
    const TimeFs lag = c < lag_fs.size() ? std::min(lag_fs[c], end_fs) : 0;
    if (channels_[c]->has_work()) continue;
    finished[c] = clock_.cycle_at_or_after(end_fs - lag);
    channels_[c]->finish(finished[c]);
  }
  // A channel idle up to now asks its buses about no earlier cycle than its refreshes still to come (each due after
  // the cycle it refreshed to, none owed) and its decisions (from now on). Where every channel on a row bus is such
  // a channel, what the bus and the checkers hold before the earliest of those cycles can go: otherwise a channel
  // idle through a run of replayed ops keeps every refresh it caught up on, the row bus's list of them grows without
  // bound (1280 channels held 2.4 GB of them in a 1024-GPU training step), and each new refresh searches it.
  for (std::size_t first = 0; first < channels_.size(); first += bus_group_) {
    const std::size_t end = std::min<std::size_t>(first + bus_group_, channels_.size());
    Cycle forget = kNever;
    for (std::size_t c = first; c < end && forget != 0; ++c) {
      forget = finished[c] == kNever || channels_[c]->refresh_owed() > 0 ? 0 : std::min(forget, finished[c]);
    }
    if (forget == 0) continue;
    for (std::size_t c = first; c < end; ++c) channels_[c]->forget_before(forget);
  }
}

std::vector<TimeFs> DramDevice::refresh_lag_fs(TimeFs at_fs) const {
  std::vector<TimeFs> lag(channels_.size(), 0);
  for (std::size_t c = 0; c < channels_.size(); ++c) {
    const Cycle due = channels_[c]->refresh_due();
    if (due >= kNever) continue;
    const TimeFs due_fs = clock_.time_fs(due);
    if (due_fs < at_fs) lag[c] = at_fs - due_fs;
  }
  return lag;
}

DramRunStats DramDevice::collect() {
  const Cycle end = static_cast<Cycle>(std::ceil(stats_.last_done_s / dram_.standard.tck_s - 1e-6));
  for (std::size_t i = 0; i < channels_.size(); ++i) {
    channels_[i]->finish(end);
    stats_.channels[i] = channels_[i]->counters();
  }
  return stats_;
}

}  // namespace roofsim::dram
