#pragma once
// A message crossing a FIFO link, packet by packet, computed in closed form: one calculation per message and link,
// whatever the packet count, so a packet size of 4 KiB or 1 GiB costs the same number of events.
//
// A link direction serves packets in order: packet j leaves at f(j) = max(f(j-1), a(j)) + t (t = packet bytes /
// bandwidth), the first also waiting for the link's busy-until time and paying the per-message overhead. When the
// arrival times a(j) are a maximum of lines c + j s (max-plus algebra: a message arriving all at once is one line of
// slope 0; one that crossed a link of service t arrives with slope t), then so are the departures:
//   f(j) = max( busy + o + (j+1) t,  max over lines of (c + o + (j+1) t),  max over lines with s > t of (c + s j + t) )
// (Baccelli, Cohen, Olsder, Quadrat, "Synchronization and Linearity", 1992, ch. 1: a FIFO queue in the max-plus
// algebra). The packets of full size follow the lines; a shorter last packet is tracked on its own. The result is
// exact for every packet, not an approximation of the stream.
#include <array>
#include <cstdint>

#include "sim/core/units.h"

namespace roofsim::net {

// Simulated time in femtoseconds (DESIGN.md section 1.8: the SystemC resolution), exact integer arithmetic.
using TimeFs = std::uint64_t;
inline constexpr double kFsPerSecond = 1e15;
[[nodiscard]] TimeFs to_fs(Seconds seconds);
[[nodiscard]] inline Seconds to_seconds(TimeFs fs) {
  return static_cast<double>(fs) / kFsPerSecond;
}

struct ArrivalLine {
  TimeFs start_fs = 0;    // c: arrival of packet 0 along this line
  TimeFs spacing_fs = 0;  // s: added per packet
  [[nodiscard]] TimeFs at(std::uint64_t packet) const { return start_fs + spacing_fs * packet; }
};

// The arrival times of one message's packets at the input of a link.
class PacketTrain {
 public:
  static constexpr std::size_t kMaxLines = 8;

  // A message of `bytes` whose packets (of `packet_bytes`, the last one shorter) are all present at `ready_fs`.
  PacketTrain(Bytes bytes, Bytes packet_bytes, TimeFs ready_fs);

  [[nodiscard]] std::uint64_t packets() const { return packets_; }
  [[nodiscard]] Bytes bytes() const { return bytes_; }
  [[nodiscard]] TimeFs first_arrival_fs() const;
  [[nodiscard]] TimeFs last_arrival_fs() const { return last_arrival_fs_; }
  // Arrival of full-size packet j (j < packets - 1).
  [[nodiscard]] TimeFs arrival_fs(std::uint64_t packet) const;

  // Crosses one link direction whose busy-until time is `busy_until_fs` (updated to the last packet's departure).
  // The train that comes out arrives at the next link `latency_fs` after leaving this one.
  void cross(TimeFs& busy_until_fs, BytesPerSecond bandwidth_bytes_per_s, TimeFs overhead_fs, TimeFs latency_fs);

 private:
  void add_line(ArrivalLine line);

  Bytes bytes_ = 0;
  Bytes packet_bytes_ = 0;
  Bytes last_bytes_ = 0;  // size of the last packet (0 only for an empty message)
  std::uint64_t packets_ = 1;
  std::array<ArrivalLine, kMaxLines> lines_{};  // arrivals of full-size packets 0 .. packets - 2
  std::size_t line_count_ = 0;
  TimeFs last_arrival_fs_ = 0;
};

// Time to serialise `bytes` at a bandwidth, rounded once to the femtosecond.
[[nodiscard]] TimeFs serialisation_fs(Bytes bytes, BytesPerSecond bandwidth_bytes_per_s);

}  // namespace roofsim::net
