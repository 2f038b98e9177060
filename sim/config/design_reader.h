#pragma once
// Stage 2 of the [technology], [area] and [cost] sections and of power.tdp_source (sim/config/design_params.h).
#include "sim/config/config_document.h"
#include "sim/config/hardware_params.h"

namespace roofsim {

// Fills hw.design from the document's root; hw's compute, levels and DRAM must be read already (an [area.memory.X]
// must name a level of [memory]). Throws InputError.
void read_design(const ConfigSection& root, HardwareParams& hw);

}  // namespace roofsim
