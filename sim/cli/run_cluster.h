#pragma once
// `roofsim run --hw CLUSTER`: the SPMD run of a workload over a cluster file (cmd_run.cpp hands it over when the
// hardware file's top-level table is [cluster], as `roofsim validate` recognises kinds).
#include <filesystem>
#include <string>
#include <vector>

#include "sim/cli/model_option.h"
#include "sim/report/report_writers.h"
#include "sim/report/trace_writer.h"

namespace roofsim::cli {

struct ClusterRunArgs {
  std::filesystem::path cluster_file;
  std::string workload;
  std::vector<std::string> sets;
  std::string out_dir = "results";
  bool write_files = true;
  bool full = false;      // simulate the compute of every rank (no symmetry collapse)
  std::string algorithm;  // "" = ring
  bool allow_large = false;
  ModelOptions model;  // --model in place of `workload`
  bool exact = false;  // simulate every op (no memoized replay)
  TableOptions table;
  bool summary = false;       // one line per op instead of the tables
  bool quiet = false;         // no progress lines on stderr
  bool fast_forward = false;  // with memoized replay: skip identical waves inside ops running alone
  TraceOptions trace;         // trace.json's budgets of events
};

[[nodiscard]] bool is_cluster_file(const std::filesystem::path& file);
int run_cluster_scenario(const ClusterRunArgs& args);

}  // namespace roofsim::cli
