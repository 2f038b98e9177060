#include "models/dram/address_mapping.h"

#include <stdexcept>
#include <vector>

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
}  // namespace

std::string AddressMapping::grammar() {
  return "the fields Ro, Ba, Bg, Co, Ch once each, most significant first (\"RoBaBgCoCh\"), optionally followed by "
         "\":xor\"";
}

AddressMapping::AddressMapping(const std::string& order, const MappingShape& shape) : order_(order), shape_(shape) {
  std::string fields = order;
  const auto colon = fields.find(':');
  if (colon != std::string::npos) {
    if (fields.substr(colon + 1) != "xor") throw std::invalid_argument(grammar());
    xor_ = true;
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
}

DramAddress AddressMapping::decode(std::uint64_t address) const {
  std::uint64_t rest = address / shape_.burst_bytes;
  DramAddress decoded;
  for (const auto field : low_to_high_) {
    switch (field) {
      case kChannel:
        decoded.channel = static_cast<std::uint32_t>(rest % shape_.channels);
        rest /= shape_.channels;
        break;
      case kBankGroup:
        decoded.bank_group = static_cast<std::uint32_t>(rest % shape_.bank_groups);
        rest /= shape_.bank_groups;
        break;
      case kBank:
        decoded.bank = static_cast<std::uint32_t>(rest % shape_.banks_per_group);
        rest /= shape_.banks_per_group;
        break;
      case kColumn:
        decoded.column = static_cast<std::uint32_t>(rest % shape_.columns);
        rest /= shape_.columns;
        break;
    }
  }
  decoded.row = rest;
  if (xor_) {
    decoded.bank = permute(decoded.bank, rest, shape_.banks_per_group);
    decoded.bank_group = permute(decoded.bank_group, rest / shape_.banks_per_group, shape_.bank_groups);
    decoded.channel =
        permute(decoded.channel, rest / (static_cast<std::uint64_t>(shape_.banks_per_group) * shape_.bank_groups),
                shape_.channels);
  }
  return decoded;
}

}  // namespace roofsim::dram
