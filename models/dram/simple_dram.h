#pragma once
// The DRAM channel model: independent channels, each a FIFO with a bandwidth and a fixed latency;
// addresses interleave over the channels at `interleave_bytes`. A request's bytes are split over the channels it
// touches; it completes when its last channel has moved its share, plus the latency.
#include <cstdint>
#include <string>
#include <vector>

#include "models/dram/dram_params.h"
#include "models/dram/in_flight_bytes.h"
#include "models/kernel/busy_until.h"
#include "models/kernel/dram_interface.h"
#include "models/kernel/fast_index.h"

namespace roofsim {

struct SimpleDramParams {
  std::uint32_t channels = 1;
  BytesPerSecond channel_bandwidth_bytes_per_s = 0;
  Seconds latency_s = 0;
  Bytes interleave_bytes = 256;

  // From a device's DRAM: pseudo-channels as channels, the pin bandwidth of each, the unloaded latency, and the
  // interleave implied by the address mapping.
  [[nodiscard]] static SimpleDramParams from(const DramParams& dram);
};

// Bytes of consecutive addresses that stay in one channel under an address mapping ("RoBaBgCoCh": the fields
// below Ch, times the burst): a burst when Ch is the lowest field, a whole row when the column bits are below it.
[[nodiscard]] Bytes channel_interleave_bytes(const std::string& mapping, const DramStandardParams& standard);

class SimpleDram final : public DramInterface {
 public:
  explicit SimpleDram(const SimpleDramParams& params);

  void submit(const DramRequest& request, DramCompletionSink& sink) override;
  // The completion time of a request of `op` (what submit reports), for callers that need it at once.
  TimeFs access(Bytes address, Bytes bytes, bool write, TimeFs arrival_fs, std::uint32_t op = 0);
  // Each channel's transfers over their burst intervals, per op, once a reader asked to track them (the power
  // domain: a transfer's energy is spent while its bytes move, not when the request was issued).
  [[nodiscard]] InFlightBytes& in_flight() { return in_flight_; }

  [[nodiscard]] Bytes bytes_read() const override { return bytes_read_; }
  [[nodiscard]] Bytes bytes_written() const override { return bytes_written_; }
  [[nodiscard]] std::uint32_t channels() const override { return params_.channels; }
  [[nodiscard]] TimeFs unloaded_fs(Bytes address, Bytes bytes) const override;
  [[nodiscard]] const std::vector<Bytes>& channel_bytes() const { return channel_bytes_; }
  [[nodiscard]] TimeFs channel_busy_fs(std::uint32_t channel) const { return channels_[channel].busy_fs(); }

 private:
  // Bytes of [address, address + bytes) on each channel into `share_`, the channels touched into `touched_`.
  void split(Bytes address, Bytes bytes);

  SimpleDramParams params_;
  TimeFs latency_fs_;
  TransferRate channel_rate_;
  std::vector<BusyUntil> channels_;
  std::vector<Bytes> channel_bytes_;
  std::vector<Bytes> share_;
  std::vector<std::uint32_t> touched_;
  Divider per_unit_;     // by interleave_bytes
  Divider per_channel_;  // by channels
  Bytes bytes_read_ = 0;
  Bytes bytes_written_ = 0;
  InFlightBytes in_flight_;
};

}  // namespace roofsim
