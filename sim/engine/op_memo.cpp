#include "sim/engine/op_memo.h"

#include <algorithm>

namespace roofsim {

std::uint64_t residency_class(Bytes resident, Bytes total) {
  if (total == 0) return 0;
  const Bytes clipped = std::min(resident, total);
  // Nearest class, ties up, in integers: floor((2 r K + t) / 2t); tensors stay far below 2^57 bytes, so 2 r K fits.
  return (clipped * 2 * kResidencyClasses + total) / (total * 2);
}

Bytes valid_bytes_in(Bytes block_address, std::uint64_t valid, Bytes sector_bytes, Bytes address, Bytes bytes) {
  const Bytes end = address + bytes;
  Bytes total = 0;
  while (valid != 0) {
    const auto sector = static_cast<unsigned>(__builtin_ctzll(valid));
    valid &= valid - 1;
    const Bytes lo = std::max(block_address + sector * sector_bytes, address);
    const Bytes hi = std::min(block_address + (sector + 1) * sector_bytes, end);
    if (hi > lo) total += hi - lo;
  }
  return total;
}

}  // namespace roofsim
