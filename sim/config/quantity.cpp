#include "sim/config/quantity.h"

#include <array>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <utility>

namespace roofsim {

namespace {

struct UnitFactor {
  std::string_view unit;
  double factor;
};

constexpr double kKi = 1024.0;
constexpr double kMi = kKi * 1024.0;
constexpr double kGi = kMi * 1024.0;
constexpr double kTi = kGi * 1024.0;

constexpr std::array kByteUnits = {
    UnitFactor{"B", 1.0},   UnitFactor{"KB", 1e3},  UnitFactor{"kB", 1e3}, UnitFactor{"KiB", kKi},
    UnitFactor{"MB", 1e6},  UnitFactor{"MiB", kMi}, UnitFactor{"GB", 1e9}, UnitFactor{"GiB", kGi},
    UnitFactor{"TB", 1e12}, UnitFactor{"TiB", kTi},
};

constexpr std::array kBitRateUnits = {
    UnitFactor{"b/s", 1.0 / 8},  UnitFactor{"Kb/s", 1e3 / 8}, UnitFactor{"kb/s", 1e3 / 8},
    UnitFactor{"Mb/s", 1e6 / 8}, UnitFactor{"Gb/s", 1e9 / 8}, UnitFactor{"Tb/s", 1e12 / 8},
    UnitFactor{"bps", 1.0 / 8},  UnitFactor{"Kbps", 1e3 / 8}, UnitFactor{"kbps", 1e3 / 8},
    UnitFactor{"Mbps", 1e6 / 8}, UnitFactor{"Gbps", 1e9 / 8}, UnitFactor{"Tbps", 1e12 / 8},
};

constexpr std::array kFrequencyUnits = {UnitFactor{"Hz", 1.0}, UnitFactor{"kHz", 1e3}, UnitFactor{"KHz", 1e3},
                                        UnitFactor{"MHz", 1e6}, UnitFactor{"GHz", 1e9}};

constexpr std::array kTimeUnits = {UnitFactor{"s", 1.0},   UnitFactor{"ms", 1e-3},  UnitFactor{"us", 1e-6},
                                   UnitFactor{"ns", 1e-9}, UnitFactor{"ps", 1e-12}, UnitFactor{"fs", 1e-15}};

constexpr std::array kPowerUnits = {UnitFactor{"W", 1.0}, UnitFactor{"mW", 1e-3}, UnitFactor{"kW", 1e3}};

constexpr std::array kEnergyUnits = {UnitFactor{"J", 1.0},   UnitFactor{"mJ", 1e-3},  UnitFactor{"uJ", 1e-6},
                                     UnitFactor{"nJ", 1e-9}, UnitFactor{"pJ", 1e-12}, UnitFactor{"fJ", 1e-15}};

constexpr std::array kVoltageUnits = {UnitFactor{"V", 1.0}, UnitFactor{"mV", 1e-3}};

template <std::size_t N>
std::optional<double> lookup(const std::array<UnitFactor, N>& table, std::string_view unit) {
  for (const auto& entry : table) {
    if (entry.unit == unit) return entry.factor;
  }
  return std::nullopt;
}

std::string_view trim(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  return text;
}

// Splits "3.35 TB/s" into 3.35 and "TB/s". The number must be a plain decimal (optionally with an exponent).
std::optional<std::pair<double, std::string_view>> split_number(std::string_view text) {
  text = trim(text);
  std::size_t end = 0;
  bool digits = false;
  if (end < text.size() && (text[end] == '+' || text[end] == '-')) ++end;
  while (end < text.size() && (std::isdigit(static_cast<unsigned char>(text[end])) || text[end] == '.')) {
    digits = digits || std::isdigit(static_cast<unsigned char>(text[end]));
    ++end;
  }
  if (!digits) return std::nullopt;
  if (end + 1 < text.size() && (text[end] == 'e' || text[end] == 'E') &&
      (std::isdigit(static_cast<unsigned char>(text[end + 1])) || text[end + 1] == '-' || text[end + 1] == '+')) {
    ++end;
    if (text[end] == '-' || text[end] == '+') ++end;
    while (end < text.size() && std::isdigit(static_cast<unsigned char>(text[end]))) ++end;
  }
  const std::string number(text.substr(0, end));
  char* parse_end = nullptr;
  const double value = std::strtod(number.c_str(), &parse_end);
  if (parse_end != number.c_str() + number.size() || !std::isfinite(value)) return std::nullopt;
  return std::pair{value, trim(text.substr(end))};
}

}  // namespace

std::string_view to_string(QuantityKind kind) {
  switch (kind) {
    case QuantityKind::bytes: return "bytes";
    case QuantityKind::bandwidth: return "bandwidth";
    case QuantityKind::frequency: return "frequency";
    case QuantityKind::time: return "time";
    case QuantityKind::power: return "power";
    case QuantityKind::energy: return "energy";
    case QuantityKind::voltage: return "voltage";
  }
  return "?";
}

std::string expected_text(QuantityKind kind) {
  switch (kind) {
    case QuantityKind::bytes:
      return "a byte size with a unit, such as \"80GiB\" (B, KB, KiB, MB, MiB, GB, GiB, TB, TiB)";
    case QuantityKind::bandwidth:
      return "a bandwidth with a unit, such as \"3.35TB/s\" or \"400Gb/s\" (B/s, KB/s, KiB/s, ..., TB/s; b/s, Gb/s, "
             "Gbps, ...)";
    case QuantityKind::frequency: return "a frequency with a unit, such as \"1.98GHz\" (Hz, kHz, MHz, GHz)";
    case QuantityKind::time:
      return "a time with a unit, such as \"700ns\" (s, ms, us, ns, ps, fs, or cycles where the clock is known)";
    case QuantityKind::power: return "a power with a unit, such as \"700W\" (mW, W, kW)";
    case QuantityKind::energy: return "an energy with a unit, such as \"0.5pJ\" (fJ, pJ, nJ, uJ, mJ, J)";
    case QuantityKind::voltage: return "a voltage with a unit, such as \"0.9V\" (mV, V)";
  }
  return "a quantity with a unit";
}

std::optional<Quantity> parse_quantity(std::string_view text, QuantityKind kind) {
  const auto split = split_number(text);
  if (!split) return std::nullopt;
  const auto [number, unit] = *split;
  if (unit.empty()) return std::nullopt;
  std::optional<double> factor;
  switch (kind) {
    case QuantityKind::bytes: factor = lookup(kByteUnits, unit); break;
    case QuantityKind::bandwidth:
      if (unit.size() > 2 && unit.substr(unit.size() - 2) == "/s")
        factor = lookup(kByteUnits, unit.substr(0, unit.size() - 2));
      if (!factor) factor = lookup(kBitRateUnits, unit);
      break;
    case QuantityKind::frequency: factor = lookup(kFrequencyUnits, unit); break;
    case QuantityKind::time:
      if (unit == "cycles" || unit == "cycle") return Quantity{number, true};
      factor = lookup(kTimeUnits, unit);
      break;
    case QuantityKind::power: factor = lookup(kPowerUnits, unit); break;
    case QuantityKind::energy: factor = lookup(kEnergyUnits, unit); break;
    case QuantityKind::voltage: factor = lookup(kVoltageUnits, unit); break;
  }
  if (!factor) return std::nullopt;
  return Quantity{number * *factor, false};
}

std::optional<Bytes> parse_bytes(std::string_view text) {
  const auto quantity = parse_quantity(text, QuantityKind::bytes);
  if (!quantity || quantity->value < 0) return std::nullopt;
  const double rounded = std::round(quantity->value);
  // Whole bytes only, tolerating the representation error of decimal fractions such as "1.1KB".
  if (std::abs(rounded - quantity->value) > 1e-6 * std::max(1.0, quantity->value)) return std::nullopt;
  if (rounded >= 1.8e19) return std::nullopt;
  return static_cast<Bytes>(rounded);
}

std::string format_si(double value, std::string_view unit, int significant_digits) {
  static constexpr std::array<std::pair<double, const char*>, 11> kPrefixes = {{{1e18, "E"},
                                                                                {1e15, "P"},
                                                                                {1e12, "T"},
                                                                                {1e9, "G"},
                                                                                {1e6, "M"},
                                                                                {1e3, "k"},
                                                                                {1.0, ""},
                                                                                {1e-3, "m"},
                                                                                {1e-6, "u"},
                                                                                {1e-9, "n"},
                                                                                {1e-12, "p"}}};
  if (value == 0.0 || !std::isfinite(value)) {
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%g %.*s", value, static_cast<int>(unit.size()), unit.data());
    return buffer;
  }
  const double magnitude = std::abs(value);
  auto chosen = kPrefixes.back();
  for (const auto& prefix : kPrefixes) {
    if (magnitude >= prefix.first * 0.9995) {
      chosen = prefix;
      break;
    }
  }
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*g %s%.*s", significant_digits, value / chosen.first, chosen.second,
                static_cast<int>(unit.size()), unit.data());
  return buffer;
}

std::string format_bytes(Bytes bytes) {
  static constexpr std::array<const char*, 5> kNames = {"B", "KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes);
  std::size_t index = 0;
  while (value >= 1024.0 && index + 1 < kNames.size()) {
    value /= 1024.0;
    ++index;
  }
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.4g %s", value, kNames[index]);
  return buffer;
}

}  // namespace roofsim
