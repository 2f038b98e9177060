#include "sim/config/work_limits.h"

#include <fmt/format.h>

namespace roofsim {

void check_work_limit(const SourcePos& pos, const std::string& what, std::uint64_t count, std::uint64_t limit,
                      const std::string& unit) {
  if (count <= limit) return;
  const std::string amount =
      count == std::numeric_limits<std::uint64_t>::max() ? "more than 2^64" : fmt::format("{}", count);
  throw InputError(pos, fmt::format("{} has {} {}, above the limit of {} {} (a typo in a count?); pass --allow-large "
                                    "to run it anyway",
                                    what, amount, unit, limit, unit));
}

std::uint64_t saturating_mul(std::uint64_t a, std::uint64_t b) {
  std::uint64_t product = 0;
  return __builtin_mul_overflow(a, b, &product) ? std::numeric_limits<std::uint64_t>::max() : product;
}

std::uint64_t saturating_add(std::uint64_t a, std::uint64_t b) {
  std::uint64_t sum = 0;
  return __builtin_add_overflow(a, b, &sum) ? std::numeric_limits<std::uint64_t>::max() : sum;
}

}  // namespace roofsim
