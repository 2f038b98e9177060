#include "models/dram/simple_dram.h"

#include <algorithm>
#include <stdexcept>

namespace roofsim {

Bytes channel_interleave_bytes(const std::string& mapping, const DramStandardParams& standard) {
  Bytes span = std::max<Bytes>(standard.burst_bytes(), 1);
  const auto ch = mapping.rfind("Ch");
  if (ch == std::string::npos) return span;
  // Fields after "Ch" are less significant: their combined size stays in one channel.
  for (std::size_t at = ch + 2; at + 1 < mapping.size();) {
    if (mapping[at] == 'X') {
      ++at;
      continue;
    }
    const std::string field = mapping.substr(at, 2);
    if (field == "Co") span *= std::max<Bytes>(1, standard.row_bytes / std::max<Bytes>(standard.burst_bytes(), 1));
    if (field == "Ba") span *= std::max<Bytes>(1, standard.banks_per_group);
    if (field == "Bg") span *= std::max<Bytes>(1, standard.bank_groups);
    at += 2;
  }
  return span;
}

SimpleDramParams SimpleDramParams::from(const DramParams& dram) {
  SimpleDramParams params;
  params.channels = std::max<std::uint32_t>(1, dram.channels());
  params.channel_bandwidth_bytes_per_s = dram.standard.channel_bandwidth_bytes_per_s();
  params.latency_s = dram.latency_s;
  params.interleave_bytes = channel_interleave_bytes(dram.mapping, dram.standard);
  return params;
}

SimpleDram::SimpleDram(const SimpleDramParams& params)
    : params_(params),
      latency_fs_(seconds_to_fs(params.latency_s)),
      channel_rate_(params.channel_bandwidth_bytes_per_s),
      channels_(params.channels),
      channel_bytes_(params.channels, 0),
      share_(params.channels, 0),
      per_unit_(params.interleave_bytes),
      per_channel_(params.channels) {
  if (params.channels == 0 || params.channel_bandwidth_bytes_per_s <= 0 || params.interleave_bytes == 0) {
    throw std::invalid_argument("a DRAM channel model needs channels, a bandwidth and an interleave");
  }
}

void SimpleDram::split(Bytes address, Bytes bytes) {
  const Bytes g = params_.interleave_bytes;
  const std::uint64_t n = params_.channels;
  touched_.clear();
  const auto add = [this](std::uint64_t channel, Bytes part) {
    if (share_[channel] == 0) touched_.push_back(static_cast<std::uint32_t>(channel));
    share_[channel] += part;
  };
  Bytes at = address;
  const Bytes end = address + bytes;
  // The first partial unit, then whole rounds over all channels, then the rest one unit at a time (the channel
  // advancing by one per unit, so only the first needs a division).
  std::uint64_t channel = (at / g) % n;
  if (at % g != 0) {
    const Bytes take = std::min(end - at, g - at % g);
    add(channel, take);
    at += take;
    channel = channel + 1 == n ? 0 : channel + 1;
  }
  const Bytes rounds = (end - at) / (g * n);
  if (rounds > 0) {
    for (std::uint64_t c = 0; c < n; ++c) add(c, rounds * g);
    at += rounds * g * n;
  }
  while (at < end) {
    const Bytes take = std::min(end - at, g);
    add(channel, take);
    at += take;
    channel = channel + 1 == n ? 0 : channel + 1;
  }
  // Each channel is reserved once per request with its whole share, so the order of the channels does not matter.
}

TimeFs SimpleDram::access(Bytes address, Bytes bytes, bool write, TimeFs arrival_fs, std::uint32_t op) {
  (write ? bytes_written_ : bytes_read_) += bytes;
  const std::uint64_t unit = per_unit_.div(address);
  if (bytes != 0 && per_unit_.div(address + bytes - 1) == unit) {
    // Within one interleave unit (a missed sector run of a tile's row): one channel takes it all.
    const auto c = static_cast<std::uint32_t>(per_channel_.mod(unit));
    channel_bytes_[c] += bytes;
    const TimeFs duration = channel_rate_.time_fs(bytes);
    const TimeFs end = channels_[c].reserve(arrival_fs, duration);
    if (in_flight_.tracking()) in_flight_.add(c, op, end - duration, end, bytes);
    return end + latency_fs_;
  }
  split(address, bytes);
  TimeFs done = arrival_fs;
  for (const auto c : touched_) {
    const TimeFs duration = channel_rate_.time_fs(share_[c]);
    const TimeFs end = channels_[c].reserve(arrival_fs, duration);
    if (in_flight_.tracking()) in_flight_.add(c, op, end - duration, end, share_[c]);
    done = std::max(done, end);
    channel_bytes_[c] += share_[c];
    share_[c] = 0;
  }
  return done + latency_fs_;
}

void SimpleDram::submit(const DramRequest& request, DramCompletionSink& sink) {
  sink.dram_done(request.tag, access(request.address, request.bytes, request.write, request.arrival_fs, request.op));
}

TimeFs SimpleDram::unloaded_fs(Bytes, Bytes bytes) const {
  // The busiest channel of an aligned range carries ceil(units / channels) interleave units (at most the range).
  const Bytes g = params_.interleave_bytes;
  const Bytes units = (bytes + g - 1) / g;
  const Bytes most = std::min(bytes, (units + params_.channels - 1) / params_.channels * g);
  return channel_rate_.time_fs(most) + latency_fs_;
}

}  // namespace roofsim
