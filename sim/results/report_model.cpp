#include "sim/results/report_model.h"

namespace roofsim {

Bytes OpReport::bytes_at(std::string_view level) const {
  for (const auto& entry : bytes) {
    if (entry.level == level) return entry.bytes;
  }
  return 0;
}

FlopsPerByte OpReport::oi_at(std::string_view level) const {
  return operational_intensity(useful_flops, bytes_at(level));
}

Flops Report::total_useful_flops() const {
  Flops total = 0;
  for (const auto& op : ops) total += op.useful_flops;
  return total;
}

}  // namespace roofsim
