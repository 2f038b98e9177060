#pragma once
// The one parser of quantities with units. Every TOML value that is a physical quantity is a string with its unit
// ("80GiB", "3.35TB/s", "1.98GHz", "700W", "30cycles"); a bare number is rejected, so a unit is never guessed.
#include <optional>
#include <string>
#include <string_view>

#include "sim/core/units.h"

namespace roofsim {

enum class QuantityKind {
  bytes,      // B, KB, KiB, MB, MiB, GB, GiB, TB, TiB (decimal KB = 1000 B, binary KiB = 1024 B)
  bandwidth,  // B/s with the byte prefixes; bits: b/s, Kb/s, Mb/s, Gb/s, Tb/s, Kbps, Mbps, Gbps, Tbps
  frequency,  // Hz, kHz, MHz, GHz
  time,       // s, ms, us, ns, ps, fs, and "cycles" where a clock is known
  power,      // W, mW, kW
  energy,     // J, mJ, uJ, nJ, pJ, fJ
  voltage,    // V, mV
};

[[nodiscard]] std::string_view to_string(QuantityKind kind);
// The units accepted for a kind, for error messages: "a byte size such as \"80GiB\" (B, KB, KiB, ...)".
[[nodiscard]] std::string expected_text(QuantityKind kind);

// A parsed quantity in base units (bytes, B/s, Hz, s, W, J, V). A time given in cycles keeps its cycle count; the
// caller converts it with the clock it belongs to.
struct Quantity {
  double value = 0.0;
  bool in_cycles = false;
};

// Returns nullopt when the text is not a number followed by a unit of this kind.
[[nodiscard]] std::optional<Quantity> parse_quantity(std::string_view text, QuantityKind kind);

// Byte sizes must be whole bytes; nullopt for fractions ("0.5B") and negative sizes.
[[nodiscard]] std::optional<Bytes> parse_bytes(std::string_view text);

// Formats a value in base units with an SI prefix for reports: format_si(3.35e12, "B/s") == "3.35 TB/s".
[[nodiscard]] std::string format_si(double value, std::string_view unit, int significant_digits = 3);
// Formats a byte count with binary prefixes: format_bytes(80 * 2^30) == "80 GiB".
[[nodiscard]] std::string format_bytes(Bytes bytes);

}  // namespace roofsim
