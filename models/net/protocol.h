#pragma once
// NCCL's three wire protocols as the network model plays them (plain C++). A protocol changes two things:
// - what a byte of payload costs on the wire (its payload efficiency): LL sends 8-byte lines of 4 bytes of data and a
//   4-byte flag, LL128 128-byte lines of 120 bytes of data and an 8-byte flag, Simple the data alone (synchronised by
//   a flag written after a memory fence per chunk step);
// - what one step from a GPU to the next costs beyond the wire (the flag polling, fences and proxy work of the
//   protocol), and what a collective's launch costs.
// Line formats: NVIDIA NCCL documentation and Hu et al., "Demystifying NCCL: An In-depth Analysis of GPU
// Communication Protocols and Algorithms" (arXiv 2507.04786, 2025), section 3. Latencies: NCCL's published tuning
// model (src/graph/tuning.cc, v2.19-2.21): baseLat of the ring row and hwLat per hardware class, in microseconds.
// Buffers: NCCL src/init.cc (v2.12-2.21) DEFAULT_BUFFSIZE = 4 MiB for Simple (NCCL_BUFFSIZE), DEFAULT_LL_BUFFSIZE =
// NCCL_LL_LINES_PER_THREAD (8) x NCCL_LL_MAX_NTHREADS (512) x NCCL_STEPS (8) x 16-byte LL FIFO lines = 512 KiB,
// DEFAULT_LL128_BUFFSIZE = NCCL_LL128_ELEMS_PER_THREAD (120) x NCCL_LL128_MAX_NTHREADS (640) x NCCL_STEPS (8) x 8 B =
// 4,915,200 B; NCCL_STEPS = 8 slots per connection (src/include/device.h); the NCCL documentation's NCCL_BUFFSIZE,
// NCCL_LL_BUFFSIZE and NCCL_LL128_BUFFSIZE variables override them.
#include <algorithm>
#include <optional>
#include <string_view>

#include "models/net/collectives.h"
#include "sim/core/units.h"

namespace roofsim::net {

// Slots of a connection's buffer (NCCL_STEPS, src/include/device.h): a sender moves one step of buffer / kNcclSteps.
inline constexpr Bytes kNcclSteps = 8;

enum class Protocol { simple, ll, ll128 };
inline constexpr Protocol kAllProtocols[] = {Protocol::ll, Protocol::ll128, Protocol::simple};

[[nodiscard]] std::string_view to_string(Protocol protocol);                  // "Simple", "LL", "LL128"
[[nodiscard]] std::optional<Protocol> parse_protocol(std::string_view text);  // simple, ll, ll128 (any case)

// What the network core charges for a protocol. The default is an ideal wire: every byte is payload, no step costs
// anything beyond the links (the network as the cluster runs play it, and the closed forms of the older tests).
struct ProtocolCost {
  // Wire bytes per `line_bytes` line, of which `line_payload_bytes` are data (1/1: no framing).
  Bytes line_bytes = 1;
  Bytes line_payload_bytes = 1;
  Seconds launch_s = 0;       // once per collective, before its first step
  Seconds hop_nvlink_s = 0;   // per step between GPUs of one node (NVLink or a switch of GPU links)
  Seconds hop_network_s = 0;  // per step that crosses a NIC
  // The receive buffer of one connection, in wire bytes: NCCL_STEPS = 8 slots of buffer / 8 bytes each, so a sender
  // runs at most a buffer ahead of its receiver (CollectiveRequest::send_window_bytes). 0: unlimited.
  Bytes buffer_bytes = 0;
  // What a sender moves at a time, in wire bytes: NCCL's step (buffer / NCCL_STEPS) times the steps of a slice
  // (stepSize and SLICESTEPS in src/enqueue.cc and src/include/collectives.h: 2 steps for Simple, 1 for LL and LL128),
  // so the window holds several pieces in flight. 0: the request's chunk alone.
  Bytes step_bytes = 0;

  [[nodiscard]] double payload_efficiency() const {
    return static_cast<double>(line_payload_bytes) / static_cast<double>(line_bytes);
  }
  // The payload the receive buffer holds (whole lines); 0: unlimited.
  [[nodiscard]] Bytes buffer_payload_bytes() const { return buffer_bytes / line_bytes * line_payload_bytes; }
  // The pipelining chunk a protocol plays: its step's payload, at most `configured_bytes` (the cluster's chunk).
  [[nodiscard]] Bytes chunk_bytes(Bytes configured_bytes) const {
    if (step_bytes == 0) return configured_bytes;
    return std::min(configured_bytes, step_bytes / line_bytes * line_payload_bytes);
  }
  // The bytes a message of `payload` bytes puts on the wire: whole lines.
  [[nodiscard]] Bytes wire_bytes(Bytes payload) const {
    return (payload + line_payload_bytes - 1) / line_payload_bytes * line_bytes;
  }
};

// NCCL's figures for an algorithm run with a protocol. The step latencies are NCCL's hwLat, which count the whole
// step (wire included); the network core adds only what exceeds the simulated route's own latency (see
// NetworkCore). Tree steps use the ring's figures: NCCL's tree/Simple figure is the latency of a whole 256 kB chunk
// ("~ base lat + 256k/12GB/s", tuning.cc), whose transfer the simulation times itself. In-switch reduction (NVLS) runs
// the Simple protocol only and NCCL charges its latency once per collective (hwLat NVLS: 23 us on NVLink, 18 us more
// across the network), not per step.
[[nodiscard]] ProtocolCost protocol_cost(Protocol protocol, Algorithm algorithm);

// Whether NCCL runs the algorithm with the protocol: NVLS and CollNet are Simple only.
[[nodiscard]] bool protocol_supported(Protocol protocol, Algorithm algorithm);

}  // namespace roofsim::net
