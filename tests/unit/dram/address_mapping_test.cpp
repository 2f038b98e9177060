// Address mapping: field order, mixed radix for non-power-of-two channel counts, the XOR permutation, the hash.
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

TEST_CASE(":hash XORs each field with the fold of the fields above it, the column excluded") {
  // RoBaChBgCo on kShape: column (32), bank group (4), channel (4), bank (4), row. Bank group's fold: channel, bank
  // and row as 2-bit slices; channel's: bank and row; bank's: row.
  const AddressMapping hashed("RoBaChBgCo:hash", kShape);
  const std::uint64_t row = 0b1101, bank = 2, channel = 3, group = 1, column = 9;
  const std::uint64_t address = ((((row * 4 + bank) * 4 + channel) * 4 + group) * 32 + column) * 32;
  const auto decoded = hashed.decode(address);
  CHECK(decoded.row == row);
  CHECK(decoded.column == column);
  CHECK(decoded.bank == (bank ^ 0b01 ^ 0b11));                          // row 0b1101 folds to 01 ^ 11
  CHECK(decoded.channel == (channel ^ bank ^ 0b01 ^ 0b11));             // key (row, bank) = 0b110110
  CHECK(decoded.bank_group == (group ^ channel ^ bank ^ 0b01 ^ 0b11));  // key (row, bank, channel)
}

TEST_CASE(":hash sends streams one bank digit apart to different channels, where :xor and the plain order do not") {
  MappingShape shape = kShape;
  shape.channels = 8;
  const std::uint64_t period = 32ull * 32 * 4 * 8;  // burst x columns x groups x channels: one bank digit
  for (const char* order : {"RoBaChBgCo", "RoBaChBgCo:xor"}) {
    const AddressMapping mapping(order, shape);
    CAPTURE(order);
    for (std::uint64_t stream = 1; stream < 4; ++stream)
      CHECK(mapping.decode(stream * period).channel == mapping.decode(0).channel);
  }
  const AddressMapping hashed("RoBaChBgCo:hash", shape);
  std::set<std::uint32_t> channels;
  for (std::uint64_t stream = 0; stream < 8; ++stream) channels.insert(hashed.decode(stream * period).channel);
  CHECK(channels.size() == 8);
}

TEST_CASE(":hash keeps a stream's balance: each aligned span below the row covers every channel and bank once") {
  for (const std::uint32_t channels : {4u, 5u, 160u}) {
    MappingShape shape = kShape;
    shape.channels = channels;
    CAPTURE(channels);
    const AddressMapping hashed("RoBaChBgCo:hash", shape);
    const std::uint64_t chunk = 32ull * 32 * 4;       // one row in each bank group: a channel's run
    const std::uint64_t span = chunk * channels * 4;  // every channel and bank under one row
    for (const std::uint64_t row : {0ull, 1ull, 6ull, 1234567ull}) {
      std::set<std::uint64_t> places;
      for (std::uint64_t at = row * span; at < (row + 1) * span; at += chunk / 4) {
        const auto d = hashed.decode(at);
        CHECK(d.row == row);
        places.insert((std::uint64_t{d.channel} * 4 + d.bank) * 4 + d.bank_group);
      }
      CHECK(places.size() == std::uint64_t{channels} * 4 * 4);
    }
    CHECK(hashed.channel_run_bursts() == 32 * 4);
    // A channel's run stays in its channel, bank and row, every bank group once.
    const std::uint64_t start = 7 * chunk;
    const auto first = hashed.decode(start);
    std::set<std::uint32_t> groups;
    for (std::uint64_t burst = 0; burst < hashed.channel_run_bursts(); ++burst) {
      const auto d = hashed.decode(start + burst * 32);
      CHECK(d.channel == first.channel);
      CHECK(d.bank == first.bank);
      CHECK(d.row == first.row);
      groups.insert(d.bank_group);
    }
    CHECK(groups.size() == 4);
  }
}

TEST_CASE(":hash never folds the column: bursts one column stride apart keep their channel, bank and row") {
  const AddressMapping hashed("RoBaBgCoCh:hash", kShape);
  const std::uint64_t stride = hashed.column_stride_bursts();
  CHECK(stride == 4);
  for (const std::uint64_t first : {0ull, 3ull, 4096ull + 2}) {
    const auto a = hashed.decode(first * 32);
    CHECK(a.column == 0);
    for (std::uint64_t step = 1; step < 32; ++step) {
      const auto b = hashed.decode((first + step * stride) * 32);
      CHECK(b.channel == a.channel);
      CHECK(b.bank == a.bank);
      CHECK(b.bank_group == a.bank_group);
      CHECK(b.row == a.row);
      CHECK(b.column == step);
    }
  }
}

TEST_CASE("a malformed order is rejected with the grammar") {
  CHECK_THROWS_AS(AddressMapping("RoBaBgCo", kShape), std::invalid_argument);
  CHECK_THROWS_AS(AddressMapping("BaRoBgCoCh", kShape), std::invalid_argument);
  CHECK_THROWS_AS(AddressMapping("RoBaBaCoCh", kShape), std::invalid_argument);
  CHECK_THROWS_AS(AddressMapping("RoBaBgCoCh:and", kShape), std::invalid_argument);
  CHECK_THROWS_AS(AddressMapping("RoBaBgCoCh:hashed", kShape), std::invalid_argument);
  CHECK_NOTHROW(AddressMapping("RoBaBgCoCh:hash", kShape));
}

}  // namespace
}  // namespace roofsim::dram
