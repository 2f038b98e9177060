#pragma once
// How the charts name an op that a power cap slowed, so that the slowdowns show op by op in the charts: its name and
// the mean clock its engines ran at over their busy time, "block.qkv @1.25 GHz". Read from the "power" object
// `roofsim run` adds to each op (sim/results/power_report.cpp); other reports leave the name alone.
#include <string>

#include "sim/results/report_model.h"

namespace roofsim {

// The op's chart label: its name, plus " @<clock>" when it lost time to throttling.
[[nodiscard]] std::string op_chart_label(const OpReport& op);

// True when any op of the report lost time to throttling (the charts then explain the "@" in a note).
[[nodiscard]] bool any_throttled(const Report& report);

// The note that explains the "@<clock>" labels.
[[nodiscard]] std::string throttled_label_note();

}  // namespace roofsim
