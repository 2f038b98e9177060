#include "models/dram/address_mapping.h"

#include <stdexcept>
#include <vector>

#include "models/dram/dram_params.h"

namespace roofsim::dram {

namespace {
bool is_power_of_two(std::uint64_t value) {
  return value != 0 && (value & (value - 1)) == 0;
}

// Permutes a digit with the row (XOR when the radix is a power of two, so that it stays a bit-field mapping).
std::uint32_t permute(std::uint32_t digit, std::uint64_t row, std::uint32_t radix) {
  if (radix <= 1) return digit;
  if (is_power_of_two(radix)) return static_cast<std::uint32_t>((digit ^ row) & (radix - 1));
  return static_cast<std::uint32_t>((digit + row) % radix);
}

// Folds `key` into one digit of `radix`: XOR of its log2(radix)-bit slices for a power of two, the sum of its
// base-radix digits modulo the radix otherwise. Every slice (digit) of the key moves the result, so keys that differ
// in one slice fold to different values.
std::uint32_t fold(std::uint64_t key, std::uint32_t radix) {
  if (radix <= 1) return 0;
  std::uint64_t folded = 0;
  if (is_power_of_two(radix)) {
    const std::uint64_t mask = radix - 1;
    int bits = 0;
    while ((std::uint64_t{1} << bits) < radix) ++bits;
    for (; key != 0; key >>= bits) folded ^= key & mask;
    return static_cast<std::uint32_t>(folded);
  }
  for (; key != 0; key /= radix) folded += key % radix;
  return static_cast<std::uint32_t>(folded % radix);
}
}  // namespace

std::string AddressMapping::grammar() {
  return "the fields Ro, Ba, Bg, Co, Ch once each, most significant first (\"RoBaBgCoCh\"), optionally followed by "
         "\":xor\" (bank, bank group and channel permuted with the low row bits) or \":hash\" (each field but the "
         "column XORed with a fold of all the fields above it)";
}

AddressMapping::AddressMapping(const std::string& order, const MappingShape& shape) : order_(order), shape_(shape) {
  std::string fields = order;
  const auto colon = fields.find(':');
  if (colon != std::string::npos) {
    const std::string suffix = fields.substr(colon + 1);
    if (suffix == "xor") {
      permutation_ = Permutation::row_xor;
    } else if (suffix == "hash") {
      permutation_ = Permutation::fold;
    } else {
      throw std::invalid_argument(grammar());
    }
    fields = fields.substr(0, colon);
  }
  if (fields.size() != 10) throw std::invalid_argument(grammar());
  std::vector<std::string> tokens;
  for (std::size_t i = 0; i < fields.size(); i += 2) tokens.push_back(fields.substr(i, 2));
  if (tokens.front() != "Ro") throw std::invalid_argument(grammar() + "; the row (Ro) must come first");
  bool seen[4] = {false, false, false, false};
  std::size_t slot = 0;
  for (auto token = tokens.rbegin(); token != tokens.rend() - 1; ++token) {
    Field field{};
    if (*token == "Ch") {
      field = kChannel;
    } else if (*token == "Bg") {
      field = kBankGroup;
    } else if (*token == "Ba") {
      field = kBank;
    } else if (*token == "Co") {
      field = kColumn;
    } else {
      throw std::invalid_argument(grammar() + "; '" + *token + "' is not a field");
    }
    if (seen[field]) throw std::invalid_argument(grammar() + "; '" + *token + "' appears twice");
    seen[field] = true;
    low_to_high_[slot++] = field;
  }
  if (shape_.burst_bytes == 0) throw std::invalid_argument("a burst of at least one byte");
  bit_fields_ = is_power_of_two(shape_.burst_bytes);
  const auto log2 = [](std::uint64_t value) {
    int bits = 0;
    while ((std::uint64_t{1} << bits) < value) ++bits;
    return bits;
  };
  burst_shift_ = log2(shape_.burst_bytes);
  int position = burst_shift_;
  for (std::size_t i = 0; i < low_to_high_.size(); ++i) {
    switch (low_to_high_[i]) {
      case kChannel: radix_[i] = shape_.channels; break;
      case kBankGroup: radix_[i] = shape_.bank_groups; break;
      case kBank: radix_[i] = shape_.banks_per_group; break;
      case kColumn: radix_[i] = shape_.columns; break;
    }
    bit_fields_ = bit_fields_ && is_power_of_two(radix_[i]);
    shift_[i] = position;
    position += log2(radix_[i]);
  }
  shift_[4] = position;
  for (std::size_t i = 0; i < low_to_high_.size() && low_to_high_[i] != kColumn; ++i)
    column_stride_bursts_ *= radix_[i];
  for (std::size_t i = 0; i < low_to_high_.size() && low_to_high_[i] != kChannel; ++i) channel_run_bursts_ *= radix_[i];
  per_burst_ = Divider(shape_.burst_bytes);
  for (std::size_t i = 0; i < low_to_high_.size(); ++i) per_radix_[i] = Divider(radix_[i]);
  per_column_stride_ = Divider(column_stride_bursts_);
}

DramAddress AddressMapping::decode(std::uint64_t address) const {
  DramAddress decoded;
  std::uint32_t digits[4] = {0, 0, 0, 0};
  std::uint64_t rest = 0;
  if (bit_fields_) {
    for (std::size_t i = 0; i < 4; ++i) {
      digits[i] = static_cast<std::uint32_t>((address >> shift_[i]) & (radix_[i] - 1));
    }
    rest = address >> shift_[4];
  } else {
    rest = per_burst_.div(address);
    for (std::size_t i = 0; i < 4; ++i) {
      const std::uint64_t above = per_radix_[i].div(rest);
      digits[i] = static_cast<std::uint32_t>(rest - above * radix_[i]);
      rest = above;
    }
  }
  for (std::size_t i = 0; i < 4; ++i) {
    switch (low_to_high_[i]) {
      case kChannel: decoded.channel = digits[i]; break;
      case kBankGroup: decoded.bank_group = digits[i]; break;
      case kBank: decoded.bank = digits[i]; break;
      case kColumn: decoded.column = digits[i]; break;
    }
  }
  decoded.row = rest;
  if (permutation_ == Permutation::fold) {
    // From the top down, each field permuted with the raw fields above it: the decode stays a bijection.
    std::uint32_t permuted[4] = {digits[0], digits[1], digits[2], digits[3]};
    for (std::size_t i = 0; i < 4; ++i) {
      if (low_to_high_[i] == kColumn) continue;
      permuted[i] = permute(digits[i], fold_above(i, digits, rest), radix_[i]);
    }
    for (std::size_t i = 0; i < 4; ++i) {
      switch (low_to_high_[i]) {
        case kChannel: decoded.channel = permuted[i]; break;
        case kBankGroup: decoded.bank_group = permuted[i]; break;
        case kBank: decoded.bank = permuted[i]; break;
        case kColumn: break;
      }
    }
  } else if (permutation_ == Permutation::row_xor) {
    decoded.bank = permute(decoded.bank, rest, shape_.banks_per_group);
    decoded.bank_group = permute(decoded.bank_group, rest / shape_.banks_per_group, shape_.bank_groups);
    decoded.channel =
        permute(decoded.channel, rest / (static_cast<std::uint64_t>(shape_.banks_per_group) * shape_.bank_groups),
                shape_.channels);
  }
  return decoded;
}

std::uint32_t AddressMapping::fold_above(std::size_t slot, const std::uint32_t* digits, std::uint64_t row) const {
  // The fields above `slot` but the column, as one mixed-radix number under the row, folded to the field's radix.
  // Past 2^64 the key wraps; it stays a function of the address, which is all a hash needs.
  std::uint64_t key = row;
  for (std::size_t i = low_to_high_.size(); i-- > slot + 1;) {
    if (low_to_high_[i] == kColumn) continue;
    key = key * radix_[i] + digits[i];
  }
  return fold(key, radix_[slot]);
}

}  // namespace roofsim::dram

namespace roofsim {

std::optional<std::string> mapping_order_problem(const std::string& order) {
  try {
    (void)dram::AddressMapping(order, dram::MappingShape{});
  } catch (const std::invalid_argument& error) {
    return std::string(error.what());
  }
  return std::nullopt;
}

}  // namespace roofsim
