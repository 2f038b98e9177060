// Divider against the hardware's division: powers of two (shifts), divisors below 2^32 (a multiply for dividends
// below 2^32, the division above) and divisors above 2^32, at the edges of each range and at random.
#include <doctest/doctest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "models/kernel/fast_index.h"

using namespace roofsim;

TEST_CASE("Divider's quotients and remainders are the division's for every kind of divisor and dividend") {
  const std::vector<std::uint64_t> divisors = {
      1,       2,          3,          5,          6,           7,           12,         80,         128,       160,
      1000003, 0x7FFFFFFF, 0x80000001, 0xFFFFFFFF, 0x100000000, 0x100000001, 1ULL << 40, 3ULL << 40, ~0ULL / 3, ~0ULL};
  std::mt19937_64 random(5);
  for (const std::uint64_t d : divisors) {
    CAPTURE(d);
    const Divider divider(d);
    CHECK(divider.value() == d);
    std::vector<std::uint64_t> dividends = {0,          1,          d - 1,       d,           d + 1,     2 * d - 1,
                                            0xFFFFFFFE, 0xFFFFFFFF, 0x100000000, 0x100000001, ~0ULL - 1, ~0ULL};
    for (int i = 0; i < 20000; ++i) {
      dividends.push_back(random() >> 32);               // below 2^32: the multiply
      dividends.push_back(random() >> (random() % 64));  // any size
    }
    std::size_t wrong = 0;
    for (const std::uint64_t x : dividends) {
      if ((divider.div(x) != x / d || divider.mod(x) != x % d) && wrong++ < 3) MESSAGE("x = ", x);
    }
    CHECK(wrong == 0);
  }
}
