#include "sim/config/field.h"

#include "sim/config/config_document.h"
#include "sim/config/key_spec.h"

namespace roofsim::field_value {

namespace {

std::string_view key_of(const KeySpec& spec) {
  return spec.path.substr(spec.path.rfind('.') + 1);
}

bool absent(const ConfigSection& section, const KeySpec& spec) {
  return !section.has(key_of(spec)) && spec.default_value.empty();
}

}  // namespace

std::optional<std::string> text(const ConfigSection& section, const KeySpec& spec) {
  if (absent(section, spec)) return std::nullopt;
  return section.text(key_of(spec));
}

std::optional<bool> flag(const ConfigSection& section, const KeySpec& spec) {
  if (absent(section, spec)) return std::nullopt;
  return section.flag(key_of(spec));
}

std::optional<std::uint64_t> unsigned_integer(const ConfigSection& section, const KeySpec& spec) {
  if (absent(section, spec)) return std::nullopt;
  const auto key = key_of(spec);
  switch (spec.kind) {
    case ValueKind::count: return section.count(key);
    case ValueKind::quantity: return section.bytes(key);
    default: return static_cast<std::uint64_t>(section.integer(key));
  }
}

std::optional<double> real(const ConfigSection& section, const KeySpec& spec, Hertz cycles_clock_hz) {
  if (absent(section, spec)) return std::nullopt;
  const auto key = key_of(spec);
  if (spec.kind == ValueKind::real) return section.real(key);
  if (spec.quantity == QuantityKind::time) return section.time(key, cycles_clock_hz);
  return section.quantity(key, spec.quantity);
}

void fail_choice(const ConfigSection& section, const KeySpec& spec, std::string_view choices) {
  section.fail(key_of(spec), "one of " + std::string(choices));
}

}  // namespace roofsim::field_value
