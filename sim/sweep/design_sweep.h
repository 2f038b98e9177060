#pragma once
// Sweeps with a price: a trade that keeps the die area constant while an axis moves silicon between compute units,
// SRAM and DRAM interfaces; budgets (area, cost, TDP) that drop the points breaking them before they run, reported as
// dropped; and the Pareto-optimal points over a set of objectives. Plain C++ over the design model (sim/design).
#include <optional>
#include <string>
#include <vector>

#include "sim/config/hardware_params.h"
#include "sim/core/input_error.h"

namespace roofsim {

// trade = { give = "memory.l2.capacity", take = "compute.units", at = "area" }: the axis sets `give`; each point's
// `take` is then the largest value whose die area does not exceed the base device's.
struct SweepTrade {
  std::string give;
  std::string take;  // compute.units, dram.stacks, or memory.<level>.capacity
  std::string at = "area";
};

enum class DesignQuantity { area, cost, tdp };

// "area <= 814mm2", "cost <= 25000USD", "tdp <= 700W": a budget the design model's figure must keep.
struct SweepConstraint {
  std::string text;  // as written
  DesignQuantity quantity = DesignQuantity::area;
  bool at_most = true;  // <= (else >=)
  double limit = 0;     // mm^2, USD or W
};

// Parses a constraint; nullopt with `problem` set when the text is not one.
[[nodiscard]] std::optional<SweepConstraint> parse_constraint(const std::string& text, std::string& problem);

// The design figures of one point.
struct DesignFigures {
  double area_mm2 = 0;
  double filler_mm2 = 0;  // of a trade that takes whole units or stacks: the area left below the target
  double cost_usd = 0;
  double tdp_w = 0;
};

[[nodiscard]] double design_figure(const DesignFigures& figures, DesignQuantity quantity);
// The constraints a point breaks, "area 851 mm2 > 814 mm2; tdp 713 W > 700 W"; empty when it keeps all.
[[nodiscard]] std::string broken_constraints(const DesignFigures& figures,
                                             const std::vector<SweepConstraint>& constraints);

struct TradeResult {
  std::string take_value;           // as --set takes it ("118", "75497472B")
  std::vector<Override> overrides;  // the take's, and dram.capacity following dram.stacks
  DesignFigures figures;
};

// Solves a trade for one point: the largest `take` (a whole number of units or stacks, or a capacity in whole
// granules of the level: line x associativity x tracking granularity) such that the die area with `overrides` and
// that take value is at most `target_area_mm2`. Throws InputError at `pos` (the sweep's trade) when even the
// smallest take exceeds the target.
[[nodiscard]] TradeResult solve_trade(const SweepTrade& trade, const std::string& hardware_file,
                                      const std::vector<Override>& overrides, double target_area_mm2,
                                      const SourcePos& pos);

// Figures of a loaded device (requires [technology]).
[[nodiscard]] DesignFigures design_figures(const HardwareParams& hw);

// Marks the points that no other point dominates, every objective minimized; a point with a missing objective is
// neither marked nor dominates. Equal points are all marked.
[[nodiscard]] std::vector<bool> pareto_front(const std::vector<std::vector<std::optional<double>>>& objectives);

}  // namespace roofsim
