#include "sim/sweep/sweep_spec.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <set>

#include "sim/config/cluster_params.h"
#include "sim/config/config_document.h"
#include "sim/config/data_paths.h"
#include "sim/config/quantity.h"
#include "sim/core/input_error.h"
#include "sim/graph/model_config.h"
#include "sim/graph/model_workload_args.h"
#include "sim/graph/workload.h"
#include "sim/graph/workload_model_template.h"

namespace roofsim {

namespace {

using namespace schema;

// A sweep of more points than this is a typo in a range, not a study.
constexpr std::size_t kMaxAxisValues = 100000;

std::string number_text(double value) {
  if (std::abs(value) < 9.0e15 && value == std::floor(value)) return fmt::format("{}", static_cast<long long>(value));
  return fmt::format("{}", value);
}

// The text a TOML value stands for on a --set command line.
std::optional<std::string> value_as_set_text(const toml::node& node) {
  if (const auto* text = node.as_string()) return text->get();
  if (const auto* integer = node.as_integer()) return std::to_string(integer->get());
  if (const auto* real = node.as_floating_point()) return number_text(real->get());
  if (const auto* flag = node.as_boolean()) return std::string(flag->get() ? "true" : "false");
  return std::nullopt;
}

// Equal ratios between consecutive values (1, 2, 4, 8 or 8MiB, 16MiB, 32MiB) make a geometric axis.
bool is_geometric(const std::vector<double>& numbers) {
  if (numbers.size() < 3) return false;
  for (const double value : numbers) {
    if (!(value > 0)) return false;
  }
  const double ratio = numbers[1] / numbers[0];
  if (std::abs(ratio - 1.0) < 1e-9) return false;
  for (std::size_t i = 2; i < numbers.size(); ++i) {
    if (std::abs(numbers[i] / numbers[i - 1] - ratio) > 1e-6 * ratio) return false;
  }
  return true;
}

bool is_file_axis(const std::string& key) {
  return key == kHardwareAxisKey || key == kWorkloadAxisKey || key == kModelAxisKey;
}

std::optional<AxisScale> scale_from_text(const std::string& text) {
  if (text == "linear") return AxisScale::linear;
  if (text == "log") return AxisScale::log;
  if (text == "category") return AxisScale::category;
  return std::nullopt;
}

// A hardware, workload or model given as a path is taken relative to the sweep file; a bare name is a bundled file.
std::string resolve_scenario_file(const std::string& value, const std::filesystem::path& base_dir) {
  const std::filesystem::path given(value);
  const bool looks_like_path = given.has_parent_path() || given.extension() == ".toml" || given.extension() == ".json";
  if (!looks_like_path) return value;
  if (given.is_absolute()) return value;
  return std::filesystem::absolute(base_dir / given).lexically_normal().string();
}

Override parse_set(const std::string& text, const ConfigSection& sweep) {
  const auto equals = text.find('=');
  if (equals == std::string::npos || equals == 0) {
    sweep.fail("set", "each entry KEY=VALUE, such as \"power.cap=450W\"");
  }
  return Override{text.substr(0, equals), text.substr(equals + 1)};
}

SweepAxis load_axis(const ConfigSection& axis) {
  SweepAxis result;
  result.key = axis.text("key");
  result.key_pos = axis.pos("key");
  result.values_pos = axis.pos(axis.has("values") ? "values" : "from");
  if (result.key.empty() || result.key.find('=') != std::string::npos) axis.fail("key", "a --set key");
  result.label = axis.optional_text("label").value_or(result.key);
  const std::string unit = axis.optional_text("unit").value_or("");
  const bool has_values = axis.has("values");
  const bool has_range = axis.has("from") || axis.has("to");
  if (has_values == has_range) {
    axis.fail_message("axis \"" + result.key +
                      "\": give either values = [...] or a range (from, to, and step or factor)");
  }
  std::optional<AxisScale> natural;
  if (has_values) {
    const auto* node = axis.node("values");
    const auto* array = node->as_array();
    if (array == nullptr || array->empty()) axis.fail("values", "a non-empty array of values");
    for (std::size_t i = 0; i < array->size(); ++i) {
      auto text = value_as_set_text(*array->get(i));
      if (!text) axis.fail("values", "an array of strings, numbers or booleans");
      const bool numeric_literal = !array->get(i)->is_string() && !array->get(i)->is_boolean();
      result.values.push_back(numeric_literal ? *text + unit : *text);
    }
  } else {
    if (!axis.has("from")) axis.fail("from", "the first value of the range");
    if (!axis.has("to")) axis.fail("to", "the last value of the range");
    const double from = axis.real("from");
    const double to = axis.real("to");
    std::optional<double> step, factor;
    if (axis.has("step")) step = axis.real("step");
    if (axis.has("factor")) factor = axis.real("factor");
    if (step.has_value() == factor.has_value()) {
      axis.fail_message("axis \"" + result.key +
                        "\": a range needs exactly one of step (linear) or factor (geometric)");
    }
    if (to < from) axis.fail("to", "a value >= from (" + number_text(from) + ")");
    if (step && !(*step > 0)) axis.fail("step", "a number > 0");
    if (factor && !(*factor > 1)) axis.fail("factor", "a number > 1");
    if (factor && !(from > 0)) axis.fail("from", "a number > 0 (a geometric range)");
    if (step && (to - from) / *step >= static_cast<double>(kMaxAxisValues)) {
      axis.fail("step", "at most " + std::to_string(kMaxAxisValues) + " values per axis");
    }
    result.values = range_values(from, to, step, factor, unit);
    natural = factor ? AxisScale::log : AxisScale::linear;
  }
  if (!natural) {
    std::vector<double> numbers;
    for (const auto& value : result.values) {
      const auto number = numeric_value(value);
      if (!number) {
        natural = AxisScale::category;
        break;
      }
      numbers.push_back(*number);
    }
    if (!natural) natural = is_geometric(numbers) ? AxisScale::log : AxisScale::linear;
  }
  result.scale = *natural;
  if (const auto scale = axis.optional_text("scale")) {
    result.scale = *scale_from_text(*scale);
    if (result.scale != AxisScale::category) {
      for (const auto& value : result.values) {
        if (!numeric_value(value)) axis.fail("scale", "category (the values \"" + value + "\" are not numbers)");
        if (result.scale == AxisScale::log && !(*numeric_value(value) > 0)) {
          axis.fail("scale", "linear or category (a log axis needs values > 0)");
        }
      }
    }
  }
  return result;
}

// What each point runs: a workload file (sweep.workload, or a workload axis) or a model (sweep.model, or a model
// axis), one of the two.
void check_workload_source(const SweepSpec& spec, const ConfigSection& sweep, const std::vector<ConfigSection>& axes) {
  const auto axis_of = [&](const char* key) -> const ConfigSection* {
    for (std::size_t a = 0; a < spec.axes.size(); ++a) {
      if (spec.axes[a].key == key) return &axes[a];
    }
    return nullptr;
  };
  const ConfigSection* model_axis = axis_of(kModelAxisKey);
  const ConfigSection* workload_axis = axis_of(kWorkloadAxisKey);
  if (!spec.workload.empty() && !spec.model.empty()) {
    sweep.fail("model", "either workload or model, not both (a model runs as `roofsim run --model`)");
  }
  if (model_axis != nullptr && (!spec.workload.empty() || workload_axis != nullptr)) {
    model_axis->fail("key", "an axis of a sweep without a workload file (a model axis runs each model with --model)");
  }
  if (workload_axis != nullptr && !spec.model.empty()) {
    workload_axis->fail("key", "an axis of a sweep without sweep.model (each point runs one workload file)");
  }
  if (spec.workload.empty() && spec.model.empty() && model_axis == nullptr) {
    sweep.fail_message(
        "a sweep needs sweep.workload (a workload file) or sweep.model (a model by name or config.json)");
  }
}

SweepSpec load_document(const ConfigDocument& document, const std::filesystem::path& base_dir,
                        const WorkLimits& limits) {
  document.check();
  const auto root = document.root();
  const auto sweep = *root.child("sweep");
  SweepSpec spec;
  spec.file = document.file_name();
  spec.name = sweep.text("name");
  spec.description = sweep.optional_text("description").value_or("");
  spec.mode = sweep.text("mode");
  spec.hardware = resolve_scenario_file(sweep.text("hardware"), base_dir);
  if (sweep.has("workload")) spec.workload = resolve_scenario_file(sweep.text("workload"), base_dir);
  if (sweep.has("model")) spec.model = resolve_scenario_file(sweep.text("model"), base_dir);
  spec.hardware_pos = sweep.pos("hardware");
  spec.workload_pos = sweep.pos("workload");
  spec.model_pos = sweep.pos("model");
  spec.set_pos = sweep.pos("set");
  for (const auto& text : sweep.text_list("set")) spec.base_overrides.push_back(parse_set(text, sweep));
  spec.combine = sweep.text("combine") == "zip" ? SweepCombine::zip : SweepCombine::grid;
  spec.metrics = sweep.text_list("metrics");
  if (spec.metrics.empty()) sweep.fail("metrics", "a non-empty array of report.json op fields");

  const auto axes = root.elements("axis");
  if (axes.empty()) root.fail_message("a sweep needs at least one [[axis]]");
  for (const auto& axis : axes) {
    spec.axes.push_back(load_axis(axis));
    if (is_file_axis(spec.axes.back().key)) {
      for (const auto& value : spec.axes.back().values) {
        spec.axes.back().files.push_back(resolve_scenario_file(value, base_dir));
      }
    }
    for (std::size_t i = 0; i + 1 < spec.axes.size(); ++i) {
      if (spec.axes[i].key == spec.axes.back().key) axis.fail("key", "a key no other axis sweeps");
      if (spec.axes[i].label == spec.axes.back().label) axis.fail("label", "a label no other axis uses");
    }
  }
  check_workload_source(spec, sweep, axes);
  if (spec.combine == SweepCombine::zip) {
    for (std::size_t i = 1; i < spec.axes.size(); ++i) {
      if (spec.axes[i].values.size() != spec.axes[0].values.size()) {
        axes[i].fail_message(fmt::format("zipped axes must have equal lengths: \"{}\" has {} values, \"{}\" has {}",
                                         spec.axes[i].key, spec.axes[i].values.size(), spec.axes[0].key,
                                         spec.axes[0].values.size()));
      }
    }
  }
  check_work_limit(axes.front().pos(), "the sweep (" + std::to_string(spec.axes.size()) + " axes)", point_count(spec),
                   limits.sweep_points, "points");

  if (const auto chart = root.child("chart")) {
    spec.chart_metric = chart->optional_text("metric").value_or("");
    spec.chart_op = chart->text("op");
    if (const auto scale = chart->optional_text("y_scale"); scale && *scale != "auto") {
      spec.chart_y_scale = scale_from_text(*scale);
    }
    if (!spec.chart_metric.empty() &&
        std::find(spec.metrics.begin(), spec.metrics.end(), spec.chart_metric) == spec.metrics.end()) {
      chart->fail("metric", "one of the sweep's metrics");
    }
  }
  if (spec.chart_metric.empty()) spec.chart_metric = spec.metrics.front();

  if (const auto trade = sweep.child("trade")) {
    spec.trade = SweepTrade{trade->text("give"), trade->text("take"), trade->text("at")};
    spec.trade_pos = sweep.pos("trade");
    if (std::none_of(spec.axes.begin(), spec.axes.end(), [&](const auto& a) { return a.key == spec.trade->give; })) {
      trade->fail("give", "the key of one of the sweep's axes");
    }
    if (std::any_of(spec.axes.begin(), spec.axes.end(), [&](const auto& a) { return a.key == spec.trade->take; })) {
      trade->fail("take", "a key no axis sets (the trade sets it)");
    }
  }
  for (const auto& text : sweep.text_list("constraint")) {
    std::string problem;
    const auto constraint = parse_constraint(text, problem);
    if (!constraint) sweep.fail("constraint", problem + ", such as \"area <= 814mm2\"");
    spec.constraints.push_back(*constraint);
  }
  spec.pareto = sweep.text_list("pareto");
  for (const auto& objective : spec.pareto) {
    const bool design = objective == "area" || objective == "cost" || objective == "tdp";
    if (!design && std::find(spec.metrics.begin(), spec.metrics.end(), objective) == spec.metrics.end()) {
      sweep.fail("pareto", "objectives among area, cost, tdp and the sweep's metrics (\"" + objective + "\" is none)");
    }
  }
  if (!spec.pareto.empty() && spec.pareto.size() < 2) sweep.fail("pareto", "at least two objectives");
  return spec;
}

}  // namespace

const KeyRegistry& sweep_registry() {
  static const KeyRegistry registry(
      "sweep",
      {
          {"sweep", K::section, Q::bytes, req, "", "The sweep: its base scenario, how axes combine, what to collect"},
          {"sweep.name", K::text, Q::bytes, req, "", "Name shown on charts"},
          {"sweep.description", K::text, Q::bytes, opt, "", "What the sweep shows"},
          {"sweep.mode", K::choice, Q::bytes, opt, "run",
           "The command each point runs: run (SystemC simulation) or roofline (analytic only)", "run|roofline"},
          {"sweep.hardware", K::text, Q::bytes, req, "",
           "Hardware file (relative to the sweep file) or a bundled device by name (\"H100-SXM5\")"},
          {"sweep.workload", K::text, Q::bytes, opt, "",
           "Workload file (relative to the sweep file) or a bundled workload by name (\"gemm\"); or give model"},
          {"sweep.model", K::text, Q::bytes, opt, "",
           "A model each point runs with --model: a bundled one by name (\"llama3_70b\") or a config.json relative "
           "to the sweep file; its workload.* keys are the model's (workload.phase, workload.batch, ...)"},
          {"sweep.set", K::text_list, Q::bytes, opt, "",
           "Overrides of every point, each \"KEY=VALUE\" as for --set (\"power.cap=450W\", "
           "\"workload.params.k=4096\")"},
          {"sweep.combine", K::choice, Q::bytes, opt, "grid",
           "grid: every combination of the axes' values; zip: the i-th value of every axis (equal lengths)",
           "grid|zip"},
          {"sweep.metrics", K::text_list, Q::bytes, req, "",
           "Op fields of report.json to collect, dotted into objects (\"sim_time_s\", \"bound_by\", "
           "\"ceilings.classic\", \"bytes.dram\"), or attainable_flops_per_s and roofline_time_s (derived)"},
          {"sweep.trade", K::section, Q::bytes, opt, "",
           "A trade at constant die area: { give = AXIS KEY, take = compute.units | dram.stacks | "
           "memory.<level>.capacity, at = \"area\" }; each point takes the largest value that keeps the base die area"},
          {"sweep.trade.give", K::text, Q::bytes, req, "", "The axis key whose values give silicon"},
          {"sweep.trade.take", K::text, Q::bytes, req, "", "The key the trade solves for"},
          {"sweep.trade.at", K::choice, Q::bytes, opt, "area", "What the trade keeps constant", "area"},
          {"sweep.constraint", K::text_list, Q::bytes, opt, "",
           "Budgets of the design model (\"area <= 814mm2\", \"cost <= 25000USD\", \"tdp <= 700W\"); a point that "
           "breaks one is dropped before it runs and listed as dropped in sweep.csv"},
          {"sweep.pareto", K::text_list, Q::bytes, opt, "",
           "Objectives, each minimized (area, cost, tdp or metrics of the total row): sweep.csv marks the "
           "Pareto-optimal "
           "points and pareto.svg draws the front of the first two"},
          {"axis", K::section_array, Q::bytes, req, "", "An axis of the sweep, in order (the first varies slowest)"},
          {"axis.[].key", K::text, Q::bytes, req, "",
           "The --set key the axis varies (\"memory.l2.capacity\", \"workload.params.batch\"), or \"hardware\", "
           "\"workload\" or \"model\": the device, workload or model itself, its values bundled names or files "
           "relative to the sweep file"},
          {"axis.[].label", K::text, Q::bytes, opt, "", "Column name in sweep.csv and axis title (default: the key)"},
          {"axis.[].values", K::any, Q::bytes, opt, "",
           "The values, as --set takes them ([\"8MiB\", \"16MiB\"] or [1, 2, 4]); or give a range instead"},
          {"axis.[].from", K::real, Q::bytes, opt, "", "Range: first value (a number; see unit)"},
          {"axis.[].to", K::real, Q::bytes, opt, "", "Range: last value (included when the steps reach it)"},
          {"axis.[].step", K::real, Q::bytes, opt, "", "Range: linear increment (> 0)"},
          {"axis.[].factor", K::real, Q::bytes, opt, "", "Range: geometric factor (> 1)"},
          {"axis.[].unit", K::text, Q::bytes, opt, "",
           "Unit appended to numeric values and range values (\"GB/s\" makes 1000 into \"1000GB/s\")"},
          {"axis.[].scale", K::choice, Q::bytes, opt, "",
           "Chart axis (default: log for a factor range or values with a constant ratio, else linear; category "
           "for non-numeric values)",
           "linear|log|category"},
          {"chart", K::section, Q::bytes, opt, "", "What sweep.svg draws"},
          {"chart.metric", K::text, Q::bytes, opt, "", "The metric on the y axis (default: the first metric)"},
          {"chart.op", K::text, Q::bytes, opt, "total", "The op whose metric is drawn, or \"total\""},
          {"chart.y_scale", K::choice, Q::bytes, opt, "auto",
           "y axis: log, linear, or auto (log when the values span more than a decade)", "auto|linear|log"},
      });
  return registry;
}

SweepSpec load_sweep(const std::filesystem::path& file, const WorkLimits& limits) {
  const ConfigDocument document(file, sweep_registry());
  return load_document(document, std::filesystem::absolute(file).parent_path(), limits);
}

SweepSpec parse_sweep(std::string_view text, const std::string& name, const std::filesystem::path& base_dir,
                      const WorkLimits& limits) {
  const ConfigDocument document(text, name, sweep_registry());
  return load_document(document, base_dir, limits);
}

std::uint64_t point_count(const SweepSpec& spec) {
  if (spec.axes.empty()) return 0;
  if (spec.combine == SweepCombine::zip) return spec.axes.front().values.size();
  std::uint64_t total = 1;
  for (const auto& axis : spec.axes) total = saturating_mul(total, axis.values.size());
  return total;
}

std::filesystem::path resolve_sweep_hardware(const std::string& hardware) {
  const auto device = resolve_data_file(hardware, "configs");
  if (path_exists(device)) return device;
  return resolve_data_file(hardware, "configs/clusters");
}

void check_sweep_keys(const SweepSpec& spec) {
  const auto hardware_file = resolve_sweep_hardware(spec.hardware);
  if (!path_exists(hardware_file)) {
    throw InputError(spec.hardware_pos, "sweep.hardware", spec.hardware,
                     "a bundled device or cluster (see `roofsim list`) or a file relative to the sweep file");
  }
  // A cluster file takes cluster keys (link.bandwidth, cluster.devices), as `roofsim run --hw CLUSTER` does.
  const bool cluster = parse_toml_file(hardware_file, "hardware").contains("cluster");
  // Every device of a hardware axis takes the same keys as the base one: all devices, or all clusters.
  for (std::size_t a = 0; a < spec.axes.size(); ++a) {
    const auto& axis = spec.axes[a];
    if (axis.key != kHardwareAxisKey) continue;
    const std::string where = "axis[" + std::to_string(a) + "].values";
    for (std::size_t v = 0; v < axis.values.size(); ++v) {
      const auto& value = axis.values[v];
      const auto file = resolve_sweep_hardware(axis.files.at(v));
      if (!path_exists(file)) {
        throw InputError(axis.values_pos, where, value,
                         "a bundled device or cluster (see `roofsim list`) or a file relative to the sweep file");
      }
      if (parse_toml_file(file, "hardware").contains("cluster") != cluster) {
        throw InputError(axis.values_pos, where, value,
                         std::string("a ") + (cluster ? "cluster" : "device") + " file, as sweep.hardware is");
      }
    }
  }
  // A workload parameter an axis or `set` gives must be one every workload of the sweep defines; a point that runs a
  // model (with --model, or a workload file built from one) takes the model's workload keys instead.
  std::vector<std::string> workloads, models;
  std::vector<SourcePos> workload_positions, model_positions;
  std::vector<std::string> workload_wheres, model_wheres;
  if (!spec.workload.empty()) {
    workloads.push_back(spec.workload);
    workload_positions.push_back(spec.workload_pos);
    workload_wheres.push_back("sweep.workload");
  }
  if (!spec.model.empty()) {
    models.push_back(spec.model);
    model_positions.push_back(spec.model_pos);
    model_wheres.push_back("sweep.model");
  }
  for (std::size_t a = 0; a < spec.axes.size(); ++a) {
    const bool model_axis = spec.axes[a].key == kModelAxisKey;
    if (spec.axes[a].key != kWorkloadAxisKey && !model_axis) continue;
    for (const auto& value : spec.axes[a].files) {
      (model_axis ? models : workloads).push_back(value);
      (model_axis ? model_positions : workload_positions).push_back(spec.axes[a].values_pos);
      (model_axis ? model_wheres : workload_wheres).push_back("axis[" + std::to_string(a) + "].values");
    }
  }
  for (std::size_t m = 0; m < models.size(); ++m) {
    const auto config = resolve_model_file(models[m]);
    if (!path_exists(config)) {
      throw InputError(model_positions[m], model_wheres[m], models[m],
                       "a bundled model (see `roofsim list`) or a config.json relative to the sweep file");
    }
    (void)load_model_config(config);
  }
  bool model_workloads = !models.empty();
  std::vector<std::pair<std::string, std::set<std::string>>> workload_params;  // file name, its parameters
  for (std::size_t w = 0; w < workloads.size(); ++w) {
    const auto workload_file = resolve_data_file(workloads[w], "workloads");
    if (!path_exists(workload_file)) {
      throw InputError(workload_positions[w], workload_wheres[w], workloads[w],
                       "a bundled workload (see `roofsim list`) or a workload file relative to the sweep file");
    }
    if (is_model_template(workload_file)) {
      (void)read_model_template(workload_file);
      model_workloads = true;
      continue;
    }
    std::set<std::string> params;
    const auto workload_table = parse_toml_file(workload_file, "workload");
    if (const auto* table = workload_table["params"].as_table()) {
      for (const auto& [name, value] : *table) params.emplace(name.str());
    }
    workload_params.emplace_back(workload_file.filename().string(), std::move(params));
  }
  const bool file_workloads = !workload_params.empty();
  const auto check = [&](const std::string& key, const SourcePos& pos, const std::string& where) {
    const bool workload_key = key.rfind("workload.", 0) == 0;
    if (workload_key && model_workloads) {
      const auto& keys = model_workload_keys();
      const std::string name = key.substr(std::string("workload.").size());
      if (std::none_of(keys.begin(), keys.end(), [&](const ModelWorkloadKey& k) { return name == k.name; })) {
        std::string known;
        for (const auto& k : keys) known += (known.empty() ? "workload." : ", workload.") + std::string(k.name);
        throw InputError(pos, where, key,
                         "a key of a model's workload, as `roofsim run --model` takes it (" + known + ")");
      }
      if (!file_workloads) return;
    }
    const auto segments = split_key_path(workload_key ? key.substr(std::string("workload.").size()) : key);
    const KeyRegistry& registry =
        workload_key ? workload_registry() : (cluster ? cluster_registry() : hardware_registry());
    const KeySpec* found = registry.find(segments);
    if (found == nullptr || found->kind == ValueKind::section || found->kind == ValueKind::section_array) {
      throw InputError(pos, where, key,
                       "a known " + registry.file_kind() + " key as --set takes it (see `roofsim list --keys`" +
                           (workload_key ? ")" : "; workload keys start with \"workload.\")"));
    }
    if (!workload_key || segments.size() != 2 || segments[0] != "params") return;
    for (const auto& [file_name, params] : workload_params) {
      if (params.count(segments[1]) != 0) continue;
      std::string names;
      for (const auto& name : params) names += (names.empty() ? "" : ", ") + name;
      throw InputError(pos, where, key, "a parameter that " + file_name + " defines (one of: " + names + ")");
    }
  };
  // A value the key does not take (a unit of another kind, a clock of 1e300 GHz) would fail its point, or every point.
  const auto check_value = [&](const std::string& key, const std::string& value, const SourcePos& pos,
                               const std::string& where) {
    const bool workload_key = key.rfind("workload.", 0) == 0;
    if (workload_key && model_workloads) {
      ModelWorkloadArgs args;
      apply_model_workload_key(args, Override{key.substr(std::string("workload.").size()), value}, pos);
      if (!file_workloads) return;
    }
    const KeyRegistry& registry =
        workload_key ? workload_registry() : (cluster ? cluster_registry() : hardware_registry());
    const auto problem =
        override_value_problem(registry, workload_key ? key.substr(std::string("workload.").size()) : key, value);
    if (problem) throw InputError(pos, where, value, *problem + " (a value of " + key + ")");
  };
  for (const auto& entry : spec.base_overrides) {
    check(entry.key, spec.set_pos, "sweep.set");
    check_value(entry.key, entry.value, spec.set_pos, "sweep.set");
  }
  for (std::size_t a = 0; a < spec.axes.size(); ++a) {
    const auto& axis = spec.axes[a];
    const std::string where = "axis[" + std::to_string(a) + "]";
    if (is_file_axis(axis.key)) continue;
    check(axis.key, axis.key_pos, where + ".key");
    for (const auto& value : axis.values) check_value(axis.key, value, axis.values_pos, where + ".values");
  }
}

std::vector<std::string> range_values(double from, double to, std::optional<double> step, std::optional<double> factor,
                                      const std::string& unit) {
  std::vector<std::string> values;
  // A relative slack so that 0.1-steps reach `to` despite binary rounding.
  const double limit = to + 1e-9 * std::max(std::abs(to), 1.0);
  for (std::size_t i = 0; i < kMaxAxisValues; ++i) {
    const double value =
        step ? from + static_cast<double>(i) * *step : from * std::pow(*factor, static_cast<double>(i));
    if (value > limit) break;
    values.push_back(number_text(value) + unit);
  }
  return values;
}

std::optional<double> numeric_value(const std::string& text) {
  if (text.empty()) return std::nullopt;
  const char* begin = text.c_str();
  char* end = nullptr;
  const double number = std::strtod(begin, &end);
  if (end == begin) return std::nullopt;
  if (*end == '\0') return number;
  for (const auto kind : {Q::bytes, Q::bandwidth, Q::frequency, Q::time, Q::power, Q::energy, Q::voltage}) {
    const auto quantity = parse_quantity(text, kind);
    if (quantity && !quantity->in_cycles) return quantity->value;
  }
  return std::nullopt;
}

std::vector<SweepPoint> expand_points(const SweepSpec& spec) {
  std::vector<SweepPoint> points;
  if (spec.axes.empty()) return points;
  std::size_t total = 1;
  if (spec.combine == SweepCombine::zip) {
    total = spec.axes.front().values.size();
  } else {
    for (const auto& axis : spec.axes) total *= axis.values.size();
  }
  for (std::size_t index = 0; index < total; ++index) {
    SweepPoint point;
    point.index = index;
    point.hardware = spec.hardware;
    point.workload = spec.workload;
    point.model = spec.model;
    point.overrides = spec.base_overrides;
    std::size_t rest = index;
    point.value_index.assign(spec.axes.size(), 0);
    for (std::size_t a = spec.axes.size(); a-- > 0;) {
      const std::size_t count = spec.axes[a].values.size();
      point.value_index[a] = spec.combine == SweepCombine::zip ? index : rest % count;
      rest /= count;
    }
    for (std::size_t a = 0; a < spec.axes.size(); ++a) {
      const auto& value = spec.axes[a].values[point.value_index[a]];
      point.values.push_back(value);
      if (spec.axes[a].key == kHardwareAxisKey) {
        point.hardware = spec.axes[a].files.at(point.value_index[a]);
      } else if (spec.axes[a].key == kWorkloadAxisKey) {
        point.workload = spec.axes[a].files.at(point.value_index[a]);
      } else if (spec.axes[a].key == kModelAxisKey) {
        point.model = spec.axes[a].files.at(point.value_index[a]);
      } else {
        point.overrides.push_back(Override{spec.axes[a].key, value});
      }
    }
    points.push_back(std::move(point));
  }
  if (spec.uses_design()) add_design_figures(spec, points);
  return points;
}

void add_design_figures(const SweepSpec& spec, std::vector<SweepPoint>& points) {
  // The hardware's own keys among a point's overrides (the workload's go to the run only).
  const auto hardware_overrides = [](const std::vector<Override>& overrides) {
    std::vector<Override> kept;
    for (const auto& entry : overrides) {
      if (entry.key.rfind("workload.", 0) != 0) kept.push_back(entry);
    }
    return kept;
  };
  std::optional<double> target_area_mm2;
  if (spec.trade) {
    const auto base = load_hardware(resolve_sweep_hardware(spec.hardware), hardware_overrides(spec.base_overrides));
    if (!base.design.technology) {
      throw InputError(spec.trade_pos, "sweep.trade: " + spec.hardware + " has no [technology] section");
    }
    target_area_mm2 = design_figures(base).area_mm2;
  }
  for (auto& point : points) {
    const auto file = resolve_sweep_hardware(point.hardware).string();
    const auto overrides = hardware_overrides(point.overrides);
    if (spec.trade) {
      const auto trade = solve_trade(*spec.trade, file, overrides, *target_area_mm2, spec.trade_pos);
      point.take_value = trade.take_value;
      point.overrides.insert(point.overrides.end(), trade.overrides.begin(), trade.overrides.end());
      point.design = trade.figures;
    } else {
      const auto hw = load_hardware(file, overrides);
      if (!hw.design.technology) {
        throw InputError(
            spec.hardware_pos,
            "sweep: " + point.hardware + " has no [technology] section (constraint and pareto need the design model)");
      }
      point.design = design_figures(hw);
    }
    point.dropped_by = broken_constraints(*point.design, spec.constraints);
  }
}

bool in_shard(std::size_t index, std::size_t shard, std::size_t shards) {
  return shards > 0 && index % shards == shard;
}

std::string override_text(const Override& entry) {
  return entry.key + "=" + entry.value;
}

}  // namespace roofsim
