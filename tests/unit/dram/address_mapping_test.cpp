// Address mapping: field order, mixed radix for non-power-of-two channel counts, the XOR permutation.
#include <doctest/doctest.h>

#include <set>
#include <stdexcept>

#include "models/dram/address_mapping.h"

namespace roofsim::dram {
namespace {

const MappingShape kShape{4, 4, 4, 32, 32};  // 4 channels, 4 bank groups of 4, 32 bursts of 32 B per row

TEST_CASE("fields follow the order string, least significant last, above the burst offset") {
  const AddressMapping mapping("RoBaBgCoCh", kShape);
  // address = ((((row * 4 + bank) * 4 + group) * 32 + column) * 4 + channel) * 32 + offset
  const std::uint64_t address = ((((5ull * 4 + 3) * 4 + 2) * 32 + 17) * 4 + 1) * 32 + 7;
  const auto decoded = mapping.decode(address);
  CHECK(decoded.channel == 1);
  CHECK(decoded.column == 17);
  CHECK(decoded.bank_group == 2);
  CHECK(decoded.bank == 3);
  CHECK(decoded.row == 5);
  const AddressMapping interleaved("RoBaCoBgCh", kShape);
  const auto next_burst = interleaved.decode(32 * 4);  // one burst past every channel
  CHECK(next_burst.channel == 0);
  CHECK(next_burst.bank_group == 1);
  CHECK(next_burst.column == 0);
}

TEST_CASE("a channel count that is not a power of two is a mixed-radix digit") {
  MappingShape shape = kShape;
  shape.channels = 5;
  const AddressMapping mapping("RoBaBgCoCh", shape);
  std::set<std::uint32_t> channels;
  for (std::uint64_t burst = 0; burst < 10; ++burst) channels.insert(mapping.decode(burst * 32).channel);
  CHECK(channels.size() == 5);
  CHECK(mapping.decode(5 * 32).column == 1);
}

TEST_CASE("the :xor mapping sends addresses one row apart to different banks") {
  const AddressMapping plain("RoBaBgCoCh", kShape);
  const AddressMapping permuted("RoBaBgCoCh:xor", kShape);
  const std::uint64_t row_stride = 32ull * 4 * 32 * 4 * 4;  // burst x channels x columns x groups x banks
  std::set<std::uint32_t> plain_banks, permuted_banks;
  for (std::uint64_t row = 0; row < 16; ++row) {
    const auto a = plain.decode(row * row_stride);
    const auto b = permuted.decode(row * row_stride);
    plain_banks.insert(a.bank_group * 4 + a.bank);
    permuted_banks.insert(b.bank_group * 4 + b.bank);
    CHECK(a.row == b.row);
  }
  CHECK(plain_banks.size() == 1);
  CHECK(permuted_banks.size() == 16);
}

TEST_CASE("a malformed order is rejected with the grammar") {
  CHECK_THROWS_AS(AddressMapping("RoBaBgCo", kShape), std::invalid_argument);
  CHECK_THROWS_AS(AddressMapping("BaRoBgCoCh", kShape), std::invalid_argument);
  CHECK_THROWS_AS(AddressMapping("RoBaBaCoCh", kShape), std::invalid_argument);
  CHECK_THROWS_AS(AddressMapping("RoBaBgCoCh:and", kShape), std::invalid_argument);
}

}  // namespace
}  // namespace roofsim::dram
