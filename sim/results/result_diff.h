#pragma once
// `roofsim diff A B`: two result folders compared op by op. The figures of a folder are read from its report.json
// (the keys every run and roofline report carries: the ops' name, kind, bytes per level, binding, bound_by, simulated
// time and achieved rate); ops are matched by name (the k-th op of a name in A with the k-th of that name in B), and
// what only one side has is listed as added or removed.
#include <nlohmann/json.hpp>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "sim/core/units.h"
#include "sim/roofline/roofline.h"

namespace roofsim {

struct OpFigures {
  std::string name;
  std::string kind;
  Flops useful_flops = 0;
  std::vector<LevelBytes> bytes;  // per level, in the report's order
  std::string binding;            // the binding variant ("classic", ...)
  std::string bound_by;           // its resource ("memory:dram", ...)
  std::optional<Seconds> sim_time_s;
  std::optional<FlopsPerSecond> achieved_flops_per_s;
};

struct ResultFigures {
  std::string source;  // the folder (or file) the figures come from
  std::string command;
  std::string hardware;
  std::string workload;
  std::optional<Seconds> total_sim_time_s;
  std::vector<OpFigures> ops;
};

// The figures of a report.json document; `source` names it in errors. Throws InputError when an op lacks its name
// or a value has the wrong type.
[[nodiscard]] ResultFigures result_figures(const nlohmann::ordered_json& report, const std::string& source);
// The figures of `folder`/report.json (or of a report.json given directly). Throws InputError when it is missing
// or not a report.
[[nodiscard]] ResultFigures read_result_figures(const std::filesystem::path& folder);

enum class OpPresence { both, added, removed };  // added: only in B; removed: only in A
[[nodiscard]] const char* to_string(OpPresence presence);

struct LevelChange {
  std::string level;
  std::optional<Bytes> a;  // absent where that side has no such level (or no such op)
  std::optional<Bytes> b;
  [[nodiscard]] std::optional<double> ratio() const;  // b / a; absent without both sides or with a = 0
};

struct OpChange {
  std::string name;
  std::string kind;
  OpPresence presence = OpPresence::both;
  std::optional<Seconds> time_a_s;
  std::optional<Seconds> time_b_s;
  std::vector<LevelChange> bytes;  // one per level of the union of both sides' levels
  std::string bound_by_a;
  std::string bound_by_b;
  [[nodiscard]] std::optional<double> time_ratio() const;  // B / A; absent without both times or with A's time 0
  [[nodiscard]] bool bound_changed() const { return presence == OpPresence::both && bound_by_a != bound_by_b; }
};

struct ResultDiff {
  ResultFigures a;
  ResultFigures b;
  std::vector<std::string> levels;  // A's levels in order, then those only B has
  std::vector<OpChange> ops;        // A's ops in order (matched or removed), then the ops only B has, in B's order
  [[nodiscard]] std::optional<double> total_time_ratio() const;
  [[nodiscard]] std::size_t count(OpPresence presence) const;
  [[nodiscard]] std::size_t bound_changes() const;
};

[[nodiscard]] ResultDiff diff_results(ResultFigures a, ResultFigures b);

}  // namespace roofsim
