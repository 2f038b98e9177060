#include "sim/engine/dram_run.h"

#include <algorithm>
#include <optional>
#include <random>
#include <utility>

#include <systemc>

#include "models/dram/address_mapping.h"
#include "models/dram/dram_device.h"
#include "sim/engine/simulation_loop.h"

namespace roofsim {

namespace {

// A source over requests held in memory.
class VectorSource final : public dram::DramRequestSource {
 public:
  explicit VectorSource(DramRequests requests) : requests_(std::move(requests)) {}
  [[nodiscard]] std::optional<DramRequest> peek() const override {
    if (next_ >= requests_.size()) return std::nullopt;
    return requests_[next_];
  }
  void pop() override { ++next_; }

 private:
  DramRequests requests_;
  std::size_t next_ = 0;
};

}  // namespace

DramRequests make_pattern_requests(const DramPattern& pattern) {
  const Bytes count = (pattern.total_bytes + pattern.request_bytes - 1) / pattern.request_bytes;
  const Bytes slots = std::max<Bytes>(1, pattern.footprint_bytes / pattern.request_bytes);
  std::mt19937_64 random(pattern.seed);
  DramRequests requests;
  requests.reserve(count);
  for (Bytes i = 0; i < count; ++i) {
    DramRequest request;
    request.bytes = pattern.request_bytes;
    if (pattern.kind == "stream") {
      request.address = i * pattern.request_bytes;
    } else if (pattern.kind == "strided") {
      request.address = i * pattern.stride_bytes;
    } else {
      request.address = (random() % slots) * pattern.request_bytes;
    }
    // 53 random bits as a fraction in [0, 1): the same on every platform, unlike std::uniform_real_distribution.
    const double draw = static_cast<double>(random() >> 11) * 0x1.0p-53;
    request.write = pattern.read_ratio < 1.0 && draw >= pattern.read_ratio;
    requests.push_back(request);
  }
  return requests;
}

DramRunResult run_dram_requests(const DramParams& dram, std::uint32_t channels, DramRequests requests) {
  VectorSource source(std::move(requests));
  dram::DramDevice device("dram", dram, channels);
  device.attach_source(source);
  device.set_sole_process(true);
  DramRunResult result;
  result.complete = simulate_until_idle_or_interrupted();
  result.stats = device.collect();
  result.summary = dram::summarize(result.stats, dram.standard);
  return result;
}

std::string dram_mapping_grammar() {
  return dram::AddressMapping::grammar();
}

}  // namespace roofsim
