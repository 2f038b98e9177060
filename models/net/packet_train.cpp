#include "models/net/packet_train.h"

#include <algorithm>
#include <cmath>

namespace roofsim::net {

TimeFs to_fs(Seconds seconds) {
  return static_cast<TimeFs>(std::llround(seconds * kFsPerSecond));
}

TimeFs serialisation_fs(Bytes bytes, BytesPerSecond bandwidth_bytes_per_s) {
  return static_cast<TimeFs>(std::llround(static_cast<double>(bytes) * kFsPerSecond / bandwidth_bytes_per_s));
}

PacketTrain::PacketTrain(Bytes bytes, Bytes packet_bytes, TimeFs ready_fs)
    : bytes_(bytes), packet_bytes_(packet_bytes), last_arrival_fs_(ready_fs) {
  packets_ = bytes == 0 ? 1 : (bytes + packet_bytes - 1) / packet_bytes;
  last_bytes_ = bytes - (packets_ - 1) * packet_bytes;
  if (packets_ > 1) add_line(ArrivalLine{ready_fs, 0});
}

TimeFs PacketTrain::first_arrival_fs() const {
  return packets_ > 1 ? arrival_fs(0) : last_arrival_fs_;
}

TimeFs PacketTrain::arrival_fs(std::uint64_t packet) const {
  TimeFs latest = 0;
  for (std::size_t i = 0; i < line_count_; ++i) latest = std::max(latest, lines_[i].at(packet));
  return latest;
}

void PacketTrain::add_line(ArrivalLine line) {
  // A line that is nowhere above another (no later start, no larger spacing) never sets a maximum: drop it.
  for (std::size_t i = 0; i < line_count_; ++i) {
    if (lines_[i].start_fs >= line.start_fs && lines_[i].spacing_fs >= line.spacing_fs) return;
  }
  std::size_t kept = 0;
  for (std::size_t i = 0; i < line_count_; ++i) {
    if (!(line.start_fs >= lines_[i].start_fs && line.spacing_fs >= lines_[i].spacing_fs)) lines_[kept++] = lines_[i];
  }
  line_count_ = kept;
  if (line_count_ == kMaxLines) {
    // More distinct slopes than routes have hops: replace the last line by one above both (a bound that errs late,
    // never early; unreachable with the topologies built here, whose routes have at most 6 hops).
    auto& last = lines_[kMaxLines - 1];
    last = ArrivalLine{std::max(last.start_fs, line.start_fs), std::max(last.spacing_fs, line.spacing_fs)};
    return;
  }
  lines_[line_count_++] = line;
}

void PacketTrain::cross(TimeFs& busy_until_fs, BytesPerSecond bandwidth_bytes_per_s, TimeFs overhead_fs,
                        TimeFs latency_fs) {
  const TimeFs last_service = serialisation_fs(last_bytes_, bandwidth_bytes_per_s);
  if (packets_ == 1) {
    const TimeFs leave = std::max(busy_until_fs, last_arrival_fs_) + overhead_fs + last_service;
    busy_until_fs = leave;
    last_arrival_fs_ = leave + latency_fs;
    return;
  }
  const TimeFs service = serialisation_fs(packet_bytes_, bandwidth_bytes_per_s);
  const auto input = lines_;
  const auto input_count = line_count_;
  line_count_ = 0;
  // Departures of full-size packets, as lines (see the header).
  add_line(ArrivalLine{busy_until_fs + overhead_fs + service, service});
  for (std::size_t i = 0; i < input_count; ++i) {
    add_line(ArrivalLine{input[i].start_fs + overhead_fs + service, service});
    if (input[i].spacing_fs > service) add_line(ArrivalLine{input[i].start_fs + service, input[i].spacing_fs});
  }
  const TimeFs before_last = arrival_fs(packets_ - 2);
  const TimeFs last_leave = std::max(before_last, last_arrival_fs_) + last_service;
  busy_until_fs = last_leave;
  for (std::size_t i = 0; i < line_count_; ++i) lines_[i].start_fs += latency_fs;
  last_arrival_fs_ = last_leave + latency_fs;
}

}  // namespace roofsim::net
