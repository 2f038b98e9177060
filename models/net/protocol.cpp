#include "models/net/protocol.h"

#include <cctype>
#include <string>

namespace roofsim::net {

std::string_view to_string(Protocol protocol) {
  switch (protocol) {
    case Protocol::simple: return "Simple";
    case Protocol::ll: return "LL";
    case Protocol::ll128: return "LL128";
  }
  return "Simple";
}

std::optional<Protocol> parse_protocol(std::string_view text) {
  std::string lower;
  for (const char c : text) lower.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  if (lower == "simple") return Protocol::simple;
  if (lower == "ll") return Protocol::ll;
  if (lower == "ll128") return Protocol::ll128;
  return std::nullopt;
}

bool protocol_supported(Protocol protocol, Algorithm algorithm) {
  return (algorithm != Algorithm::in_switch && algorithm != Algorithm::collnet) || protocol == Protocol::simple;
}

ProtocolCost protocol_cost(Protocol protocol, Algorithm algorithm) {
  constexpr double us = 1e-6;
  ProtocolCost cost;
  if (algorithm == Algorithm::in_switch) {
    // NCCL tuning.cc: NVLS latency = hwLat[NVLINK][NVLS][Simple] = 23 us (+ hwLat[NET] 18 us across nodes), no
    // baseLat, no per-step term.
    cost.launch_s = 23 * us;
    return cost;
  }
  if (algorithm == Algorithm::collnet) {
    // NCCL tuning.cc (v2.19-2.21), CollNet Direct, Simple: no baseLat; hwLat[NVLINK] = 3.7 us inside a node, paid on
    // the way in and out, hwLat[NET] = 31 us across the fabric: 2 x 3.7 + 31 us once per collective, no per-step
    // term (NCCL's 0.4 us per local rank of arity serialisation is left out).
    cost.launch_s = (2 * 3.7 + 31) * us;
    return cost;
  }
  switch (protocol) {
    case Protocol::ll:
      // 8-byte lines: 4 bytes of data and a 4-byte flag written together by one 8-byte store [Hu et al. 2025].
      cost.line_bytes = 8;
      cost.line_payload_bytes = 4;
      cost.launch_s = 6.6 * us;              // baseLat ring LL
      cost.hop_nvlink_s = 0.6 * us;          // hwLat NVLink ring LL
      cost.hop_network_s = 2.7 * us;         // hwLat NET ring LL
      cost.buffer_bytes = 8 * 512 * 8 * 16;  // DEFAULT_LL_BUFFSIZE, 512 KiB of 16-byte FIFO lines (two 8-byte LL lines)
      cost.step_bytes = cost.buffer_bytes / kNcclSteps;  // one of NCCL_STEPS slots: 64 KiB of lines, 32 KiB of data
      break;
    case Protocol::ll128:
      // 128-byte lines: 120 bytes of data and an 8-byte flag, stored by a warp at once [Hu et al. 2025].
      cost.line_bytes = 128;
      cost.line_payload_bytes = 120;
      cost.launch_s = 14.0 * us;              // baseLat ring LL128
      cost.hop_nvlink_s = 1.9 * us;           // hwLat NVLink ring LL128
      cost.hop_network_s = 4.0 * us;          // hwLat NET ring LL128
      cost.buffer_bytes = 120 * 640 * 8 * 8;  // DEFAULT_LL128_BUFFSIZE, 4,915,200 B
      cost.step_bytes =
          cost.buffer_bytes / kNcclSteps;  // one of NCCL_STEPS slots: 614,400 B of lines, 576,000 B of data
      break;
    case Protocol::simple:
      // Data alone; each step's chunk is followed by a fence and a flag [Hu et al. 2025].
      cost.launch_s = 8.4 * us;                              // baseLat ring Simple
      cost.hop_nvlink_s = 3.4 * us;                          // hwLat NVLink ring Simple
      cost.hop_network_s = 14.0 * us;                        // hwLat NET ring Simple
      cost.buffer_bytes = Bytes{1} << 22;                    // DEFAULT_BUFFSIZE, 4 MiB
      cost.step_bytes = cost.buffer_bytes / kNcclSteps * 2;  // a slice of SLICESTEPS = 2 steps of 512 KiB
      break;
  }
  return cost;
}

}  // namespace roofsim::net
