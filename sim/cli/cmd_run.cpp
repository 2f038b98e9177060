// `roofsim run`, the default scenario (`roofsim` alone) and the engine benchmark: load a device and a workload,
// simulate, and report each op's simulated time beside its ceilings.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <memory>
#include <optional>

#include <fmt/format.h>

#include "sim/cli/app.h"
#include "sim/cli/input_names.h"
#include "sim/cli/model_option.h"
#include "sim/cli/provenance.h"
#include "sim/cli/run_cluster.h"
#include "sim/config/cluster_params.h"
#include "sim/config/data_paths.h"
#include "sim/core/input_error.h"
#include "sim/core/interrupt.h"
#include "sim/core/output_file.h"
#include "sim/core/output_folder.h"
#include "sim/design/design_model.h"
#include "sim/engine/cluster_run.h"
#include "sim/engine/empty_model.h"
#include "sim/engine/engine.h"
#include "sim/report/design_table.h"
#include "sim/report/dram_table.h"
#include "sim/report/dram_trace_writer.h"
#include "sim/report/engine_table.h"
#include "sim/report/html_report.h"
#include "sim/report/power_table.h"
#include "sim/report/report_writers.h"
#include "sim/report/trace_writer.h"
#include "sim/results/design_report.h"
#include "sim/results/model_report.h"
#include "sim/results/run_report.h"
#include "sim/results/run_trace.h"
#include "sim/roofline/roofline.h"

namespace roofsim::cli {

namespace {

struct RunOptions {
  std::string hardware;
  std::string workload;
  std::vector<std::string> sets;
  std::string out_dir = "results";
  bool write_files = true;
  std::uint64_t trace_tiles = TraceOptions{}.max_tile_events;
  std::uint64_t trace_links = TraceOptions{}.max_link_events;
  bool full = false;
  std::string algorithm;
  bool allow_large = false;
  std::string dram_trace;
  ModelOptions model;
  bool exact = false;
  bool fast_forward = true;
  bool quiet = false;
  TableOptions table;
  bool summary = false;  // one line per op instead of the tables
};

struct Scenario {
  HardwareParams hardware;
  Workload workload;
  RunResult result;
  std::optional<nlohmann::ordered_json> model;  // --model: the model's summary for report.json
};

Scenario load_scenario(const RunOptions& options) {
  const auto overrides = split_overrides(options.sets);
  Scenario scenario;
  scenario.hardware =
      load_hardware(find_input_file("--hw", options.hardware, {"configs"}, "device"), overrides.hardware);
  (void)apply_derived_tdp(scenario.hardware);
  if (!options.model.model.empty()) {
    auto model =
        load_model_workload(options.model, overrides.workload, scenario.hardware, 0, work_limits(options.allow_large));
    scenario.model = model_report_json(model, scenario.hardware.dram ? scenario.hardware.dram->capacity_bytes : 0);
    scenario.workload = std::move(model.workload);
    return scenario;
  }
  scenario.workload = load_workload(find_input_file("--workload", options.workload, {"workloads"}, "workload"),
                                    overrides.workload, scenario.hardware, work_limits(options.allow_large));
  return scenario;
}

Scenario simulate(const RunOptions& options) {
  Scenario scenario = load_scenario(options);
  scenario.result = run_workload(scenario.hardware, scenario.workload);
  return scenario;
}

// A bundled name may be a device (configs/) or a cluster (configs/clusters/).
std::filesystem::path resolve_hardware(const std::string& name) {
  return find_input_file("--hw", name, {"configs", "configs/clusters"}, "device or cluster");
}

int run_scenario(const RunOptions& given) {
  RunOptions options = given;
  expand_model_template(options.workload, options.model, options.sets);
  require_workload_or_model(options.workload, options.model);
  const auto hardware_file = resolve_hardware(options.hardware);
  if (is_cluster_file(hardware_file)) {
    return run_cluster_scenario(ClusterRunArgs{
        hardware_file, options.workload, options.sets, options.out_dir, options.write_files, options.full,
        options.algorithm, options.allow_large, options.model, options.exact, options.table, options.summary,
        options.quiet, options.fast_forward, TraceOptions{options.trace_tiles, options.trace_links}});
  }
  Scenario scenario = load_scenario(options);
  check_run_work(scenario.workload, scenario.hardware, 1, work_limits(options.allow_large), !options.exact);
  if (options.model.model.empty()) {
    check_workload_fits(scenario.workload, scenario.hardware, options.model.allow_oversubscribe);
  }
  std::optional<OutputFolder> folder;
  if (options.write_files) folder.emplace(options.out_dir);
  if (!options.dram_trace.empty() &&
      (!scenario.hardware.dram || scenario.hardware.dram->model != DramModel::detailed)) {
    throw InputError(SourcePos{"--dram-trace"}, "--dram-trace", options.dram_trace,
                     "a device whose dram.model is detailed (the simple model sees no requests)");
  }
  const DeferInterrupts defer;
  std::vector<DramRequest> dram_requests;
  scenario.result =
      run_workload(scenario.hardware, scenario.workload, options.dram_trace.empty() ? nullptr : &dram_requests,
                   EngineRunOptions{!options.exact, !options.quiet, options.fast_forward && !options.exact});
  // The replay counts matter when something was replayed or skipped (the figures then come partly from earlier ops
  // or waves); a run that did neither ran as --exact would, so the line is noise unless asked for.
  const bool replayed = scenario.result.ops_replayed > 0 || scenario.result.ops_fast_forwarded > 0;
  if (!options.exact && !options.quiet && (replayed || options.model.verbose)) {
    std::cerr << fmt::format(
        "memoized: {} of {} ops replayed, {} recorded ({} signatures), {} fast-forwarded ({} waves skipped, {} steps "
        "inside tiles, {} skips through a clock change); --exact simulates all\n",
        scenario.result.ops_replayed, scenario.workload.ops.size(), scenario.result.ops_recorded,
        scenario.result.memo_signatures, scenario.result.ops_fast_forwarded, scenario.result.waves_skipped,
        scenario.result.steps_skipped, scenario.result.skips_through_changes);
  }
  if (!options.dram_trace.empty()) {
    // roofsim's own trace format: `roofsim dram FILE --convert FORMAT` turns it into a peer simulator's.
    write_output_file(options.dram_trace, [&](std::ostream& out) {
      write_dram_trace(out, dram_requests, DramTraceFormat::roofsim, scenario.hardware.dram->standard.tck_s,
                       scenario.hardware.dram->standard.burst_bytes());
    });
    std::cout << "wrote " << options.dram_trace << " (" << dram_requests.size() << " DRAM requests)\n";
  }
  const bool complete = scenario.result.complete;
  const auto device = make_device_roof(scenario.hardware);
  auto report = make_run_report(scenario.workload, scenario.hardware, device, scenario.result);
  if (scenario.model) report.extra["model"] = *scenario.model;
  add_design_report(report, scenario.hardware);
  report.provenance = make_provenance(scenario.hardware, scenario.workload, options.sets);
  if (options.summary) {
    write_summary(report, std::cout);
    write_design_line(report, std::cout);
  } else {
    write_console_table(report, std::cout, options.table);
    write_design_line(report, std::cout);
    write_engine_table(report, device, scenario.result, std::cout, options.table);
    write_power_table(report, scenario.result, std::cout);
    write_dram_table(scenario.result, std::cout);
  }
  if (options.write_files) {
    const std::filesystem::path out(options.out_dir);
    auto files = write_report_files(report, device, out);
    if (complete) {
      write_output_file(out / "trace.json", [&](std::ostream& trace) {
        write_trace_json(make_trace_data(scenario.workload, scenario.hardware, scenario.result),
                         TraceOptions{options.trace_tiles, options.trace_links}, trace);
      });
      files.push_back("trace.json");
    } else {
      remove_stale_output(out / "trace.json");
    }
    write_report_html_file(report, out);
    files.push_back("report.html");
    std::cout << "\n";
    write_wrote_line(
        out, files, complete ? "" : "of the finished ops (report.json: \"complete\": false); no trace.json", std::cout);
  }
  return work_exit_code(scenario.result.ops.size(), scenario.workload.ops.size(), "ops");
}

}  // namespace

void add_run_command(CLI::App& app, int& exit_code) {
  auto* command =
      app.add_subcommand("run", "Simulate a workload on a device and report each op's time beside its rooflines");
  auto options = std::make_shared<RunOptions>();
  command
      ->add_option("--hw", options->hardware,
                   "Hardware or cluster file (or a bundled name, e.g. H100-SXM5, 8xH100-NVSwitch)")
      ->required();
  auto* workload = command->add_option("--workload", options->workload, "Workload file (or a bundled name, e.g. gemm)");
  add_model_options(*command, options->model, workload);
  command->add_option("--set", options->sets, "Override KEY=VALUE (hardware key, or workload.<key>); repeatable");
  command
      ->add_option("--out", options->out_dir,
                   "Folder for report.json, ops.csv, roofline.svg, energy.svg and trace.json")
      ->capture_default_str();
  command
      ->add_option("--trace-tiles", options->trace_tiles,
                   "Tile events in trace.json; above it, consecutive tiles of an op on a unit are aggregated")
      ->capture_default_str();
  command
      ->add_option("--trace-links", options->trace_links,
                   "Cluster runs: link busy slices in trace.json; above it, the shortest idle gaps between a link's "
                   "busy periods are closed (the merged slice carries its real busy time)")
      ->capture_default_str();
  command->add_option("--dram-trace", options->dram_trace,
                      "Also write the DRAM requests of the run (with the times they were sent) to FILE, in "
                      "`roofsim dram`'s trace format; `roofsim dram FILE --convert FORMAT` turns it into a peer "
                      "simulator's");
  command->add_flag("--full", options->full,
                    "Cluster runs: simulate the compute of every rank rather than one per class of symmetric ranks");
  command->add_option("--algo", options->algorithm, "Cluster runs: collective algorithm (ring, tree, hd, direct)");
  command->add_flag("--exact", options->exact,
                    "Simulate every op; by default an op that starts alone and matches the signature of one "
                    "simulated before (kind, shapes, tiling, the fraction of each input resident in each cache level) "
                    "replays its result, at the compute clock the power governor applies");
  command->add_flag("--fast-forward,!--no-fast-forward", options->fast_forward,
                    "Also skip the identical waves, or steps inside tiles, of an op running alone on its device once "
                    "its state and a wave's cost repeat (under a power cap only as many waves as end before the "
                    "governor could change the clock); on by default, --no-fast-forward keeps memoization alone, "
                    "--exact turns both off");
  command->add_flag("--quiet", options->quiet, "No progress lines on stderr (printed once a run takes over 2 s)");
  add_table_flags(*command, options->table.wide, options->summary);
  add_allow_large_flag(*command, options->allow_large);
  command->callback([options, &exit_code]() { exit_code = run_scenario(*options); });
}

int run_default_scenario() {
  RunOptions options;
  options.hardware = "H100-SXM5";
  options.workload = "transformer_prefill_small";
  options.write_files = false;
  const int code = run_scenario(options);
  if (code != 0) return code;
  // The default run only prints; say how to get the same run's charts, report and trace.
  std::cout << "\nfor the charts, report.html, report.json, the CSVs and trace.json (Perfetto):\n  roofsim run --hw "
            << options.hardware << " --workload " << options.workload << " --out results\n";
  return code;
}

namespace {

// A workload of one op over fresh tensors at 4 KiB-aligned addresses, with the counts the graph would fill.
Workload single_op_workload(const std::string& name, Op op, const std::vector<std::vector<std::uint64_t>>& inputs,
                            const std::vector<std::uint64_t>& output) {
  Workload workload;
  workload.name = name;
  Bytes next = 0;
  const auto add_tensor = [&](const std::string& tensor_name, const std::vector<std::uint64_t>& shape) {
    Tensor tensor;
    tensor.name = tensor_name;
    tensor.shape = shape;
    tensor.dtype = op.dtype;
    tensor.bytes = element_bytes(op.dtype);
    for (const auto d : shape) tensor.bytes *= d;
    tensor.address = next;
    next += (tensor.bytes + kTensorAlignmentBytes - 1) / kTensorAlignmentBytes * kTensorAlignmentBytes;
    workload.tensors.push_back(tensor);
    return workload.tensors.size() - 1;
  };
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    op.inputs.push_back(add_tensor(name + ".in" + std::to_string(i), inputs[i]));
    op.bytes_read += workload.tensors.back().bytes;
  }
  op.outputs.push_back(add_tensor(name + ".out", output));
  op.bytes_written = workload.tensors.back().bytes;
  workload.footprint_bytes = next;
  workload.ops.push_back(std::move(op));
  return workload;
}

// What a scenario's child process hands back to the parent for the empty-model comparison.
struct BenchFigures {
  std::uint64_t processes = 0;
  std::uint64_t events = 0;
  double wall_s = 0;
  double cpu_s = 0;  // the child process's user + system time: steadier than wall time on a shared machine
};

double process_cpu_s() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  const auto seconds = [](const timeval& t) {
    return static_cast<double>(t.tv_sec) + 1e-6 * static_cast<double>(t.tv_usec);
  };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

void print_bench(const RunResult& r) {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  std::cout << fmt::format(
      "{} on {} ({} DRAM): wall {:.3f} s, CPU {:.3f} s, simulated {:.3f} us, events {} (in {} kernel activations), "
      "events/s {:.3g}, peak RSS {:.1f} MiB, processes {}\n",
      r.workload, r.device, r.dram_model, r.wall_s, process_cpu_s(), r.sim_time_s * 1e6, r.events, r.kernel_activations,
      static_cast<double>(r.events) / r.wall_s, static_cast<double>(usage.ru_maxrss) / 1024.0, r.processes);
  std::cout.flush();
}

// SystemC elaborates once per process, so each scenario runs in a child process of its own; the child writes its
// figures to a pipe.
int run_in_child(const std::function<BenchFigures()>& body, BenchFigures& figures) {
  std::cout.flush();
  int fds[2];
  if (::pipe(fds) != 0) return 1;
  const pid_t child = ::fork();
  if (child < 0) return 1;
  if (child == 0) {
    ::close(fds[0]);
    int code = 0;
    try {
      const BenchFigures f = body();
      if (::write(fds[1], &f, sizeof f) != static_cast<ssize_t>(sizeof f)) code = 1;
    } catch (const std::exception& error) {
      std::cerr << "roofsim bench: " << error.what() << "\n";
      code = 1;
    }
    std::cout.flush();
    std::_Exit(code);
  }
  ::close(fds[1]);
  const bool got = ::read(fds[0], &figures, sizeof figures) == static_cast<ssize_t>(sizeof figures);
  ::close(fds[0]);
  int status = 0;
  ::waitpid(child, &status, 0);
  if (!got) return 1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

BenchFigures figures_of(const RunResult& r) {
  print_bench(r);
  return BenchFigures{r.processes, r.events, r.wall_s, process_cpu_s()};
}

// What a scenario's figures are held to: the ratio to the empty model (the engine's target, with the simple DRAM: the
// engine alone) and a CPU time (the detailed DRAM's target: scenario (b) under 10 s), when they apply.
struct BenchTargets {
  bool ratio = true;
  double cpu_s = 0;  // 0: none
};

// Runs the scenario, then the empty model with as many processes and activations, and prints the ratio of rates.
int bench_scenario(const std::function<RunResult()>& scenario, const BenchTargets& targets) {
  BenchFigures model;
  int code = run_in_child([&] { return figures_of(scenario()); }, model);
  if (code != 0) return code;
  BenchFigures empty;
  code = run_in_child(
      [&] {
        const auto r = run_empty_model(model.processes, model.events);
        return BenchFigures{model.processes, r.activations, r.wall_s, process_cpu_s()};
      },
      empty);
  if (code != 0) return code;
  const double model_rate = static_cast<double>(model.events) / model.wall_s;
  const double empty_rate = static_cast<double>(empty.events) / empty.wall_s;
  // The ratio by CPU time compares whole processes (setup included), so it reads a little low on short runs.
  std::cout << fmt::format(
      "  empty model, {} self-retriggering SC_METHODs, {} activations: wall {:.3f} s, CPU {:.3f} s, events/s {:.3g}; "
      "model / empty = {:.1f}%{}, by CPU time {:.1f}%\n",
      empty.processes, empty.events, empty.wall_s, empty.cpu_s, empty_rate, 100.0 * model_rate / empty_rate,
      targets.ratio ? " (target >= 30%)" : "", 100.0 * empty.cpu_s / model.cpu_s);
  if (targets.cpu_s > 0) {
    std::cout << fmt::format("  CPU {:.3f} s (target < {:.0f} s): {}\n", model.cpu_s, targets.cpu_s,
                             model.cpu_s < targets.cpu_s ? "met" : "NOT met");
  }
  return 0;
}

}  // namespace

// The engine's benchmark: (a) GEMM 8192^3 bf16, (b) the GPT-3 175B block prefill of 2048 tokens, and
// (c) an element-wise add of 1 GiB operands, each on the H100 file, each beside the empty model of its size. With
// `dram_model` "both" (the default) each scenario runs with the simple and then the detailed DRAM, so
// that their figures print side by side; "simple" or "detailed" runs one (the detailed controller schedules every
// request's row runs against the JEDEC timing, several times the channel model's work on these DRAM-heavy runs).
int run_engine_bench(const std::string& dram_model) {
  const auto hardware_file = resolve_data_file("H100-SXM5", "configs");
  const std::vector<std::string> models =
      dram_model == "both" ? std::vector<std::string>{"simple", "detailed"} : std::vector<std::string>{dram_model};
  int code = 0;
  // The ratio target is the engine's, so it applies with the simple DRAM; the detailed controller's work is model
  // work the empty model does not have. Scenario (b) with the detailed DRAM has a CPU-time target of its own.
  const auto each_model = [&](const std::function<RunResult(const std::string& model_set)>& scenario,
                              double detailed_cpu_target_s) {
    for (const auto& model : models) {
      const std::string model_set = "dram.model=" + model;
      const bool detailed = model == "detailed";
      code = std::max(code, bench_scenario([&] { return scenario(model_set); },
                                           BenchTargets{!detailed, detailed ? detailed_cpu_target_s : 0.0}));
    }
  };
  each_model(
      [&](const std::string& model_set) {
        const auto hw = load_hardware(hardware_file, split_overrides({model_set}).hardware);
        Op gemm;
        gemm.name = "gemm_8192";
        gemm.kind = OpKind::gemm;
        gemm.dtype = DataType::bf16;
        gemm.shape.m = gemm.shape.n = gemm.shape.k = 8192;
        gemm.useful_flops = 2ULL * 8192 * 8192 * 8192;
        return run_workload(
            hw, single_op_workload("gemm_8192x8192x8192_bf16", gemm, {{8192, 8192}, {8192, 8192}}, {8192, 8192}));
      },
      0.0);
  each_model(
      [&](const std::string& model_set) {
        RunOptions options;
        options.hardware = "H100-SXM5";
        options.workload = "gpt3_175b_block_prefill";
        options.sets.push_back(model_set);
        return simulate(options).result;
      },
      10.0);
  each_model(
      [&](const std::string& model_set) {
        const auto hw = load_hardware(hardware_file, split_overrides({model_set}).hardware);
        const std::uint64_t elements = (1ULL << 30) / 2;
        Op add;
        add.name = "add_1GiB";
        add.kind = OpKind::elementwise;
        add.dtype = DataType::bf16;
        add.shape.elements = elements;
        add.useful_flops = elements;
        return run_workload(hw, single_op_workload("add_1GiB_bf16", add, {{elements}, {elements}}, {elements}));
      },
      0.0);
  return code;
}

// Idle time: the collectives and the tensor-parallel decode on 8 H100 over links of 1 s latency (set in code, past the
// schema's 10 ms), which spend nearly all their simulated time waiting on the network, each in a child process. The
// power governor sleeps through the waits and an idle DRAM counts its refreshes in closed form, so wall time and
// memory follow the work, not the simulated seconds.
int run_idle_bench() {
  int code = 0;
  for (const std::string name : {"collectives", "tp_decode"}) {
    BenchFigures figures;
    code = std::max(code, run_in_child(
                              [&] {
                                auto cluster = load_cluster(resolve_data_file("8xH100-NVSwitch", "configs/clusters"));
                                cluster.link.latency_s = 1.0;
                                const auto workload =
                                    load_workload(resolve_data_file(name, "workloads"), {}, cluster.device);
                                const auto result = run_cluster(cluster, workload);
                                const auto& rank = result.simulated.front().result;
                                rusage usage{};
                                getrusage(RUSAGE_SELF, &usage);
                                std::cout << fmt::format(
                                    "{} on {}, 1 s link latency: wall {:.3f} s, CPU {:.3f} s, simulated {:.3f} s, "
                                    "{} power governor wakes, {} power samples, peak RSS {:.1f} MiB\n",
                                    name, cluster.name, result.wall_s, process_cpu_s(), result.sim_time_s,
                                    rank.power.governor_wakes, rank.power.trace.size(),
                                    static_cast<double>(usage.ru_maxrss) / 1024.0);
                                return BenchFigures{rank.processes, rank.events, result.wall_s, process_cpu_s()};
                              },
                              figures));
  }
  return code;
}

}  // namespace roofsim::cli
