#include "sim/results/result_diff.h"

#include <fstream>
#include <map>
#include <utility>

#include "sim/core/input_error.h"
#include "sim/core/input_file.h"

namespace roofsim {

namespace {

// Ordered, so that the levels keep the order report.json lists them in (from the units outward).
using Json = nlohmann::ordered_json;

// A report.json grows with its ops; this is far above a real one.
constexpr std::uintmax_t kMaxReportBytes = std::uintmax_t{1} << 30;

[[noreturn]] void bad_report(const std::string& source, const std::string& key, const std::string& expected) {
  throw InputError(SourcePos{source}, key, "", expected);
}

// A name given as a string, or as an object with a "name" (report.json writes {"name", "file"}).
std::string name_of(const Json& value) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_object() && value.contains("name") && value["name"].is_string()) return value["name"].get<std::string>();
  return "";
}

std::string string_at(const Json& object, const char* key) {
  const auto found = object.find(key);
  return found != object.end() && found->is_string() ? found->get<std::string>() : std::string();
}

std::optional<double> number_at(const Json& object, const char* key, const std::string& source,
                                const std::string& where) {
  const auto found = object.find(key);
  if (found == object.end() || found->is_null()) return std::nullopt;
  if (!found->is_number()) bad_report(source, where + "." + key, "a number or null");
  return found->get<double>();
}

OpFigures op_figures(const Json& op, const std::string& source, std::size_t index) {
  const std::string where = "ops[" + std::to_string(index) + "]";
  if (!op.is_object()) bad_report(source, where, "an object");
  OpFigures figures;
  const auto name = op.find("name");
  if (name == op.end() || !name->is_string()) bad_report(source, where + ".name", "a string");
  figures.name = name->get<std::string>();
  figures.kind = string_at(op, "kind");
  figures.binding = string_at(op, "binding");
  figures.bound_by = string_at(op, "bound_by");
  if (const auto flops = op.find("useful_flops");
      flops != op.end() && flops->is_number_integer() && flops->get<std::int64_t>() >= 0) {
    figures.useful_flops = flops->get<Flops>();
  }
  if (const auto bytes = op.find("bytes"); bytes != op.end() && !bytes->is_null()) {
    if (!bytes->is_object()) bad_report(source, where + ".bytes", "an object of bytes per level");
    for (const auto& [level, value] : bytes->items()) {
      if (!value.is_number_integer() || value.get<std::int64_t>() < 0)
        bad_report(source, where + ".bytes." + level, "a whole number of bytes");
      figures.bytes.push_back(LevelBytes{level, value.get<Bytes>()});
    }
  }
  figures.sim_time_s = number_at(op, "sim_time_s", source, where);
  figures.achieved_flops_per_s = number_at(op, "achieved_flops_per_s", source, where);
  return figures;
}

std::optional<Bytes> bytes_at(const OpFigures& op, const std::string& level) {
  for (const auto& entry : op.bytes) {
    if (entry.level == level) return entry.bytes;
  }
  return std::nullopt;
}

void add_levels(std::vector<std::string>& levels, const ResultFigures& figures) {
  for (const auto& op : figures.ops) {
    for (const auto& entry : op.bytes) {
      bool known = false;
      for (const auto& level : levels) known = known || level == entry.level;
      if (!known) levels.push_back(entry.level);
    }
  }
}

OpChange change_of(const OpFigures* a, const OpFigures* b, const std::vector<std::string>& levels) {
  OpChange change;
  const OpFigures& any = a != nullptr ? *a : *b;
  change.name = any.name;
  change.kind = any.kind;
  change.presence = a == nullptr ? OpPresence::added : b == nullptr ? OpPresence::removed : OpPresence::both;
  if (a != nullptr) {
    change.time_a_s = a->sim_time_s;
    change.bound_by_a = a->bound_by;
  }
  if (b != nullptr) {
    change.time_b_s = b->sim_time_s;
    change.bound_by_b = b->bound_by;
  }
  for (const auto& level : levels) {
    LevelChange entry{level, std::nullopt, std::nullopt};
    if (a != nullptr) entry.a = bytes_at(*a, level);
    if (b != nullptr) entry.b = bytes_at(*b, level);
    change.bytes.push_back(std::move(entry));
  }
  return change;
}

std::optional<double> ratio_of(std::optional<double> a, std::optional<double> b) {
  if (!a || !b || *a == 0) return std::nullopt;
  return *b / *a;
}

}  // namespace

ResultFigures result_figures(const Json& report, const std::string& source) {
  if (!report.is_object()) bad_report(source, "", "a report.json object");
  const auto ops = report.find("ops");
  if (ops == report.end() || !ops->is_array()) bad_report(source, "ops", "an array of ops (a run or roofline report)");
  ResultFigures figures;
  figures.source = source;
  figures.command = string_at(report, "command");
  if (report.contains("hardware")) figures.hardware = name_of(report["hardware"]);
  if (report.contains("workload")) figures.workload = name_of(report["workload"]);
  if (const auto total = report.find("total"); total != report.end() && total->is_object()) {
    figures.total_sim_time_s = number_at(*total, "sim_time_s", source, "total");
  }
  for (std::size_t i = 0; i < ops->size(); ++i) figures.ops.push_back(op_figures((*ops)[i], source, i));
  return figures;
}

ResultFigures read_result_figures(const std::filesystem::path& folder) {
  const auto file = std::filesystem::is_directory(folder) ? folder / "report.json" : folder;
  check_input_file(file, "report.json of a result folder", kMaxReportBytes);
  std::ifstream in(file, std::ios::binary);
  Json report;
  try {
    report = Json::parse(in);
  } catch (const Json::parse_error& error) {
    throw InputError(SourcePos{file.string()}, std::string("not JSON: ") + error.what());
  }
  auto figures = result_figures(report, file.string());
  figures.source = folder.string();
  return figures;
}

const char* to_string(OpPresence presence) {
  switch (presence) {
    case OpPresence::both: return "both";
    case OpPresence::added: return "added";
    case OpPresence::removed: return "removed";
  }
  return "both";
}

std::optional<double> LevelChange::ratio() const {
  if (!a || !b) return std::nullopt;
  return ratio_of(static_cast<double>(*a), static_cast<double>(*b));
}

std::optional<double> OpChange::time_ratio() const {
  return ratio_of(time_a_s, time_b_s);
}

std::optional<double> ResultDiff::total_time_ratio() const {
  return ratio_of(a.total_sim_time_s, b.total_sim_time_s);
}

std::size_t ResultDiff::count(OpPresence presence) const {
  std::size_t n = 0;
  for (const auto& op : ops) n += op.presence == presence ? 1 : 0;
  return n;
}

std::size_t ResultDiff::bound_changes() const {
  std::size_t n = 0;
  for (const auto& op : ops) n += op.bound_changed() ? 1 : 0;
  return n;
}

ResultDiff diff_results(ResultFigures a, ResultFigures b) {
  ResultDiff diff;
  add_levels(diff.levels, a);
  add_levels(diff.levels, b);
  // The k-th op of a name in A matches the k-th of that name in B, so repeated names (a layer template expanded
  // without distinct names) still pair in order.
  std::map<std::string, std::vector<std::size_t>> b_by_name;
  for (std::size_t i = 0; i < b.ops.size(); ++i) b_by_name[b.ops[i].name].push_back(i);
  std::map<std::string, std::size_t> seen;
  std::vector<bool> b_matched(b.ops.size(), false);
  for (const auto& op : a.ops) {
    const std::size_t occurrence = seen[op.name]++;
    const auto found = b_by_name.find(op.name);
    const OpFigures* match = nullptr;
    if (found != b_by_name.end() && occurrence < found->second.size()) {
      const auto index = found->second[occurrence];
      match = &b.ops[index];
      b_matched[index] = true;
    }
    diff.ops.push_back(change_of(&op, match, diff.levels));
  }
  for (std::size_t i = 0; i < b.ops.size(); ++i) {
    if (!b_matched[i]) diff.ops.push_back(change_of(nullptr, &b.ops[i], diff.levels));
  }
  diff.a = std::move(a);
  diff.b = std::move(b);
  return diff;
}

}  // namespace roofsim
