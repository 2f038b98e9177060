#pragma once
// Integer helpers for the per-range hot path (a chunk's ranges are mapped to tags, sectors, banks and channels):
// division by a power of two as a shift, and hashing into n buckets by a multiply instead of a modulo
// (D. Lemire, "Fast random integer generation in an interval", ACM TOMACS 29(1), 2019).
#include <cstdint>

namespace roofsim {

// x / d and x % d: shifts when d is a power of two; else, for d and x below 2^32, the high half of x times
// c = ceil(2^64 / d), exact for every such x (D. Lemire, O. Kaser, N. Kurz, "Faster remainder by direct computation",
// Software: Practice and Experience 49(6), 2019, theorem 1), where a 64-bit division takes tens of cycles; a
// dividend of 2^32 or more takes the division.
class Divider {
 public:
  Divider() = default;
  explicit Divider(std::uint64_t d) : d_(d == 0 ? 1 : d), pow2_((d_ & (d_ - 1)) == 0) {
    while (pow2_ && (1ULL << shift_) < d_) ++shift_;
    if (!pow2_ && d_ <= kMax32) magic_ = ~0ULL / d_ + 1;
  }
  [[nodiscard]] std::uint64_t div(std::uint64_t x) const {
    if (pow2_) return x >> shift_;
    __extension__ using Wide = unsigned __int128;
    if (magic_ != 0 && x <= kMax32) return static_cast<std::uint64_t>((Wide{magic_} * x) >> 64);
    return x / d_;
  }
  [[nodiscard]] std::uint64_t mod(std::uint64_t x) const { return pow2_ ? x & (d_ - 1) : x - div(x) * d_; }
  [[nodiscard]] std::uint64_t value() const { return d_; }

 private:
  static constexpr std::uint64_t kMax32 = 0xFFFFFFFFULL;
  std::uint64_t d_ = 1;
  std::uint64_t magic_ = 0;  // ceil(2^64 / d) when d is no power of two and below 2^32, else 0
  unsigned shift_ = 0;
  bool pow2_ = true;
};

// A hash of `key` mapped onto [0, n < 2^32): Fibonacci hashing (Knuth, TAOCP vol. 3, 6.4), whose high bits mix
// strided keys well, then the multiply-shift reduction of its high 32 bits.
[[nodiscard]] inline std::uint64_t hash_bucket(std::uint64_t key, std::uint64_t n) {
  const std::uint64_t mixed = (key ^ (key >> 29)) * 0x9E3779B97F4A7C15ULL;
  return ((mixed >> 32) * n) >> 32;
}

}  // namespace roofsim
