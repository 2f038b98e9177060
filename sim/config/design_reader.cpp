#include "sim/config/design_reader.h"

namespace roofsim {

void read_design(const ConfigSection& root, HardwareParams& hw) {
  auto& design = hw.design;
  if (const auto technology = root.child("technology")) technology->read_fields(design.technology.emplace());
  const auto area = root.child_or_defaults("area");
  area.read_fields(design.area);
  if (const auto memory = area.child("memory")) {
    for (const auto& level : memory->children()) {
      if (hw.level(level.name()) == nullptr) {
        memory->fail(level.name(), "the name of a level of [memory] (no [memory." + level.name() + "])");
      }
      level.read_fields(design.area.levels[level.name()]);
    }
  }
  root.child_or_defaults("cost").read_fields(design.cost);
  if (const auto power = root.child("power")) {
    design.tdp_derived = power->optional_text("tdp_source").value_or("datasheet") == "derived";
    if (design.tdp_derived && !design.technology) {
      power->fail("tdp_source", "datasheet (a derived TDP needs a [technology] section)");
    }
  }
}

}  // namespace roofsim
