#include "sim/sweep/design_sweep.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <numeric>

#include "sim/core/input_error.h"
#include "sim/design/design_model.h"

namespace roofsim {

namespace {

std::string trim(std::string text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.erase(text.begin());
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.pop_back();
  return text;
}

struct UnitScale {
  const char* unit;
  double factor;
};

std::optional<double> parse_limit(const std::string& text, DesignQuantity quantity) {
  std::size_t end = 0;
  double number = 0;
  try {
    number = std::stod(text, &end);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  const auto unit = trim(text.substr(end));
  static constexpr UnitScale kArea[] = {{"mm2", 1.0}, {"cm2", 100.0}};
  static constexpr UnitScale kCost[] = {{"USD", 1.0}, {"kUSD", 1e3}, {"MUSD", 1e6}};
  static constexpr UnitScale kPower[] = {{"W", 1.0}, {"kW", 1e3}, {"mW", 1e-3}};
  const auto lookup = [&](const auto& table) -> std::optional<double> {
    for (const auto& entry : table) {
      if (unit == entry.unit) return number * entry.factor;
    }
    return std::nullopt;
  };
  switch (quantity) {
    case DesignQuantity::area: return lookup(kArea);
    case DesignQuantity::cost: return lookup(kCost);
    case DesignQuantity::tdp: return lookup(kPower);
  }
  return std::nullopt;
}

const char* quantity_name(DesignQuantity quantity) {
  switch (quantity) {
    case DesignQuantity::area: return "area";
    case DesignQuantity::cost: return "cost";
    case DesignQuantity::tdp: return "tdp";
  }
  return "?";
}

std::string figure_text(double value, DesignQuantity quantity) {
  switch (quantity) {
    case DesignQuantity::area: return fmt::format("{:.1f} mm2", value);
    case DesignQuantity::cost: return fmt::format("{:.0f} USD", value);
    case DesignQuantity::tdp: return fmt::format("{:.1f} W", value);
  }
  return "";
}

double area_with(const std::string& file, std::vector<Override> overrides, const std::string& key,
                 const std::string& value, const std::vector<Override>& extra = {}) {
  overrides.push_back({key, value});
  overrides.insert(overrides.end(), extra.begin(), extra.end());
  return estimate_design(load_hardware(file, overrides)).area.total_mm2;
}

}  // namespace

std::optional<SweepConstraint> parse_constraint(const std::string& text, std::string& problem) {
  SweepConstraint constraint;
  constraint.text = text;
  auto op = text.find("<=");
  constraint.at_most = true;
  if (op == std::string::npos) {
    op = text.find(">=");
    constraint.at_most = false;
  }
  if (op == std::string::npos) {
    problem = "QUANTITY <= LIMIT or QUANTITY >= LIMIT";
    return std::nullopt;
  }
  const auto name = trim(text.substr(0, op));
  if (name == "area") {
    constraint.quantity = DesignQuantity::area;
  } else if (name == "cost") {
    constraint.quantity = DesignQuantity::cost;
  } else if (name == "tdp") {
    constraint.quantity = DesignQuantity::tdp;
  } else {
    problem = "a quantity area, cost or tdp (not \"" + name + "\")";
    return std::nullopt;
  }
  const auto limit = parse_limit(trim(text.substr(op + 2)), constraint.quantity);
  if (!limit) {
    problem = std::string("a limit with its unit: ") +
              (constraint.quantity == DesignQuantity::area   ? "\"814mm2\" (mm2, cm2)"
               : constraint.quantity == DesignQuantity::cost ? "\"25000USD\" (USD, kUSD, MUSD)"
                                                             : "\"700W\" (mW, W, kW)");
    return std::nullopt;
  }
  constraint.limit = *limit;
  return constraint;
}

double design_figure(const DesignFigures& figures, DesignQuantity quantity) {
  switch (quantity) {
    case DesignQuantity::area: return figures.area_mm2;
    case DesignQuantity::cost: return figures.cost_usd;
    case DesignQuantity::tdp: return figures.tdp_w;
  }
  return 0;
}

std::string broken_constraints(const DesignFigures& figures, const std::vector<SweepConstraint>& constraints) {
  std::string broken;
  for (const auto& constraint : constraints) {
    const double value = design_figure(figures, constraint.quantity);
    const bool kept = constraint.at_most ? value <= constraint.limit : value >= constraint.limit;
    if (kept) continue;
    broken += fmt::format("{}{} {} {} {}", broken.empty() ? "" : "; ", quantity_name(constraint.quantity),
                          figure_text(value, constraint.quantity), constraint.at_most ? ">" : "<",
                          figure_text(constraint.limit, constraint.quantity));
  }
  return broken;
}

DesignFigures design_figures(const HardwareParams& hw) {
  const auto design = estimate_design(hw);
  return {design.area.total_mm2, 0.0, design.cost.total_usd, design.power.tdp_w};
}

TradeResult solve_trade(const SweepTrade& trade, const std::string& hardware_file,
                        const std::vector<Override>& overrides, double target_area_mm2, const SourcePos& pos) {
  const auto hw = load_hardware(hardware_file, overrides);
  if (!hw.design.technology) {
    throw InputError(pos, "sweep.trade: the hardware has no [technology] section, so its area is unknown");
  }
  const double area0 = estimate_design(hw).area.total_mm2;
  std::vector<Override> extra;
  double granule = 1, start = 0;
  bool bytes = false;
  std::string level_name;
  if (trade.take == "compute.units") {
    start = static_cast<double>(hw.compute.units);
  } else if (trade.take == "dram.stacks") {
    if (!hw.dram) throw InputError(pos, "sweep.trade: take = \"dram.stacks\" on a device without [dram]");
    start = static_cast<double>(hw.dram->stacks);
  } else if (trade.take.rfind("memory.", 0) == 0 && trade.take.size() > 16 &&
             trade.take.substr(trade.take.size() - 9) == ".capacity") {
    level_name = trade.take.substr(7, trade.take.size() - 16);
    const auto* level = hw.level(level_name);
    if (level == nullptr)
      throw InputError(pos, "sweep.trade: take = \"" + trade.take + "\" names no level of [memory]");
    bytes = true;
    const std::uint64_t set_bytes =
        level->line_bytes * (level->kind == LevelKind::cache ? level->associativity : std::uint64_t{1});
    granule = static_cast<double>(std::lcm(set_bytes, level->tracking_bytes));
    start = static_cast<double>(level->capacity_bytes);
  } else {
    throw InputError(
        pos, "sweep.trade: take = \"" + trade.take + "\" is not compute.units, dram.stacks or memory.<level>.capacity");
  }
  const auto text_of = [&](double value) {
    return bytes ? fmt::format("{}B", static_cast<std::uint64_t>(value))
                 : fmt::format("{}", static_cast<long long>(value));
  };
  // More stacks bring their capacity: dram.capacity follows the stacks at the base device's capacity per stack.
  const auto extras_for = [&](double value) {
    std::vector<Override> more;
    if (trade.take == "dram.stacks") {
      const double per_stack = static_cast<double>(hw.dram->capacity_bytes) / static_cast<double>(hw.dram->stacks);
      more.push_back({"dram.capacity", fmt::format("{}B", static_cast<std::uint64_t>(per_stack * value))});
    }
    return more;
  };
  const auto area_at = [&](double value) {
    return area_with(hardware_file, overrides, trade.take, text_of(value), extras_for(value));
  };
  // The area is affine in the take (each unit, stack or granule adds the same silicon): one more evaluation gives
  // the slope, and a step either way settles the rounding.
  const double probe = start + granule * (bytes ? std::max(1.0, std::floor(start / granule / 8)) : 1.0);
  const double slope = (area_at(probe) - area0) / (probe - start);
  if (!(slope > 0)) throw InputError(pos, "sweep.trade: the area does not grow with " + trade.take);
  double value = std::floor((start + (target_area_mm2 - area0) / slope) / granule + 1e-9) * granule;
  double area = 0;
  for (int step = 0; step < 4; ++step) {
    if (value < granule) {
      throw InputError(pos, fmt::format("sweep.trade: no value of {} keeps the die area at {:.1f} mm2 or below",
                                        trade.take, target_area_mm2));
    }
    area = area_at(value);
    if (area <= target_area_mm2 * (1 + 1e-12)) break;
    value -= granule;
  }
  TradeResult result;
  result.take_value = text_of(value);
  result.overrides.push_back({trade.take, result.take_value});
  for (auto& more : extras_for(value)) result.overrides.push_back(more);
  auto all = overrides;
  all.insert(all.end(), result.overrides.begin(), result.overrides.end());
  result.figures = design_figures(load_hardware(hardware_file, all));
  result.figures.filler_mm2 = target_area_mm2 - result.figures.area_mm2;
  return result;
}

std::vector<bool> pareto_front(const std::vector<std::vector<std::optional<double>>>& objectives) {
  const std::size_t n = objectives.size();
  std::vector<bool> front(n, false);
  const auto complete = [](const std::vector<std::optional<double>>& point) {
    return !point.empty() && std::all_of(point.begin(), point.end(), [](const auto& v) { return v.has_value(); });
  };
  for (std::size_t i = 0; i < n; ++i) {
    if (!complete(objectives[i])) continue;
    bool dominated = false;
    for (std::size_t j = 0; j < n && !dominated; ++j) {
      if (j == i || !complete(objectives[j])) continue;
      bool no_worse = true, better = false;
      for (std::size_t k = 0; k < objectives[i].size(); ++k) {
        if (*objectives[j][k] > *objectives[i][k]) no_worse = false;
        if (*objectives[j][k] < *objectives[i][k]) better = true;
      }
      dominated = no_worse && better;
    }
    front[i] = !dominated;
  }
  return front;
}

}  // namespace roofsim
