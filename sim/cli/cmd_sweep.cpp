// `roofsim sweep FILE`: runs every point of a sweep file as its own roofsim process, N at a time, with progress,
// resume and failure isolation, and collects sweep.csv, sweep_totals.csv, sweep.svg and sweep_roofline.svg. `--list`
// and `--shard` hand the points to an existing engine (GNU parallel, a Slurm job array); `roofsim sweep merge` joins
// the shards.
#include <iostream>
#include <memory>

#include <unistd.h>

#include "sim/cli/app.h"
#include "sim/config/data_paths.h"
#include "sim/core/input_error.h"
#include "sim/core/interrupt.h"
#include "sim/core/output_file.h"
#include "sim/core/output_folder.h"
#include "sim/report/console_table.h"
#include "sim/report/html_report.h"
#include "sim/sweep/pareto_chart.h"
#include "sim/sweep/sweep_chart.h"
#include "sim/sweep/sweep_results.h"
#include "sim/sweep/sweep_runner.h"
#include "sim/sweep/sweep_spec.h"

namespace roofsim::cli {

namespace {

struct SweepOptions {
  std::string file;
  std::string out;
  std::size_t jobs = 0;  // 0: all cores
  bool list = false;
  std::string shard;  // "K/N"
  std::optional<std::size_t> point;
  std::string mode;
  bool allow_large = false;  // also passed on to each point's run
  bool quiet = false;        // no progress lines
};

struct MergeOptions {
  std::vector<std::string> dirs;
  std::string out;
};

struct Shard {
  std::size_t index = 0;
  std::size_t count = 1;
};

Shard parse_shard(const std::string& text) {
  const auto slash = text.find('/');
  const auto fail = [&]() -> Shard {
    throw InputError(SourcePos{"--shard " + text}, "expected K/N with 0 <= K < N, such as --shard 0/4");
  };
  if (slash == std::string::npos) return fail();
  try {
    std::size_t used_k = 0, used_n = 0;
    const auto k = std::stoul(text.substr(0, slash), &used_k);
    const auto n = std::stoul(text.substr(slash + 1), &used_n);
    if (used_k != slash || used_n != text.size() - slash - 1 || n == 0 || k >= n) return fail();
    return Shard{k, n};
  } catch (const std::exception&) {
    return fail();
  }
}

std::vector<std::string> point_command(const SweepSpec& spec, const SweepPoint& point,
                                       const std::filesystem::path& folder, bool allow_large) {
  std::vector<std::string> argv = {self_executable().string(),
                                   spec.mode,
                                   "--hw",
                                   point.hardware,
                                   point.model.empty() ? "--workload" : "--model",
                                   point.model.empty() ? point.workload : point.model};
  if (allow_large) argv.emplace_back("--allow-large");
  for (const auto& entry : point.overrides) {
    argv.push_back("--set");
    argv.push_back(override_text(entry));
  }
  argv.push_back("--out");
  argv.push_back(folder.string());
  return argv;
}

std::filesystem::path absolute_path(const std::filesystem::path& path) {
  return std::filesystem::absolute(path).lexically_normal();
}

// sweep.csv, sweep_totals.csv, sweep.svg and sweep_roofline.svg of all points, from the folders that hold them. Returns
// the number of points that failed or are missing.
std::size_t write_collected(const SweepSpec& spec, const std::vector<std::filesystem::path>& dirs,
                            const std::filesystem::path& out) {
  const auto points = expand_points(spec);
  std::vector<PointResult> results;
  std::size_t bad = 0;
  for (const auto& point : points) {
    results.push_back(collect_point(spec, point, dirs));
    if (results.back().status != PointStatus::ok && results.back().status != PointStatus::dropped) ++bad;
  }
  write_output_file(out / "sweep.csv", [&](std::ostream& csv) { write_sweep_csv(spec, points, results, csv); });
  write_output_file(out / "sweep_totals.csv",
                    [&](std::ostream& csv) { write_sweep_totals_csv(spec, points, results, csv); });
  write_sweep_charts(spec, points, results, out);
  const bool pareto = write_pareto_chart(spec, points, results, out);
  write_sweep_html_file(spec.name, out);
  std::vector<std::string> files = {"sweep.csv", "sweep_totals.csv", "sweep.svg", "sweep_roofline.svg"};
  if (pareto) files.push_back("pareto.svg");
  files.push_back("report.html");
  write_wrote_line(out, files, "", std::cout);
  return bad;
}

int run_sweep(const SweepOptions& options) {
  if (options.file.empty()) {
    throw InputError(SourcePos{"roofsim sweep"}, "expected a sweep file (or `roofsim sweep merge DIR...`)");
  }
  const auto file = resolve_data_file(options.file, "sweeps");
  SweepSpec spec = load_sweep(file, work_limits(options.allow_large));
  check_sweep_keys(spec);
  if (!options.mode.empty()) spec.mode = options.mode;
  const auto points = expand_points(spec);
  const std::filesystem::path out =
      options.out.empty() ? std::filesystem::path("results") / spec.name : std::filesystem::path(options.out);
  const Shard shard = options.shard.empty() ? Shard{} : parse_shard(options.shard);
  if (options.point && *options.point >= points.size()) {
    throw InputError(SourcePos{"--point " + std::to_string(*options.point)},
                     "expected a point index below " + std::to_string(points.size()));
  }

  if (options.list) {
    for (const auto& point : points) {
      if (!in_shard(point.index, shard.index, shard.count)) continue;
      std::vector<std::string> words = {self_executable().string(),  "sweep", absolute_path(file).string(), "--point",
                                        std::to_string(point.index), "--out", absolute_path(out).string()};
      if (!options.mode.empty()) {
        words.push_back("--mode");
        words.push_back(options.mode);
      }
      if (options.allow_large) words.emplace_back("--allow-large");
      std::string line;
      for (const auto& word : words) line += (line.empty() ? "" : " ") + shell_quote(word);
      std::cout << line << "\n";
    }
    return 0;
  }

  // A whole sweep owns its folder; the shards of one sweep (a job array, GNU parallel over --list) share it.
  const bool whole = !options.point && options.shard.empty();
  const OutputFolder out_folder(out, whole ? OutputFolder::Access::exclusive : OutputFolder::Access::shared);
  const DeferInterrupts defer;
  write_or_check_manifest(spec, out);
  std::vector<PointJob> jobs;
  std::size_t selected = 0;
  for (const auto& point : points) {
    const bool wanted = options.point ? point.index == *options.point : in_shard(point.index, shard.index, shard.count);
    if (!wanted) continue;
    ++selected;
    if (!point.dropped_by.empty()) {
      std::cerr << "roofsim sweep: point " << point.index << " dropped (not run): " << point.dropped_by << "\n";
      continue;
    }
    const auto folder = point_dir(out, point.index, points.size());
    const auto definition = point_definition(spec, point);
    if (point_done(folder, definition)) continue;
    jobs.push_back(PointJob{point.index, point_command(spec, point, folder, options.allow_large), folder, definition});
  }
  const std::size_t skipped = selected - jobs.size();
  if (skipped > 0) std::cerr << "roofsim sweep: " << skipped << " of " << selected << " points already done\n";
  const std::size_t parallel = options.jobs > 0 ? options.jobs : available_cores();
  std::ostream no_progress(nullptr);
  const auto summary = run_point_jobs(jobs, parallel, skipped, options.quiet ? no_progress : std::cerr,
                                      !options.quiet && ::isatty(STDERR_FILENO) != 0);
  for (const auto& failure : summary.failures) {
    std::cerr << "roofsim sweep: point " << failure.index << " ("
              << point_dir(out, failure.index, points.size()).string() << ") failed: " << failure.error << "\n";
  }
  if (!summary.interrupted.empty() || interrupt_signal() != 0) {
    // What is complete stays: the points done so far keep their `done` marker, sweep.csv shows them beside the
    // missing ones, and the same command resumes with the rest.
    if (whole) (void)write_collected(spec, {out}, out);
    std::cerr << "roofsim sweep: " << summary.interrupted.size()
              << " points stopped or not started; run the same command again to resume\n";
    return work_exit_code(selected - summary.interrupted.size(), selected, "points");
  }
  if (whole) {
    const auto bad = write_collected(spec, {out}, out);
    return bad == 0 ? 0 : 1;
  }
  if (!options.point) {
    std::cout << "shard " << shard.index << "/" << shard.count << ": " << selected << " points in " << out.string()
              << "; join the shards with `roofsim sweep merge DIR...`\n";
  }
  return summary.failures.empty() ? 0 : 1;
}

int run_merge(const MergeOptions& options) {
  std::vector<std::filesystem::path> dirs(options.dirs.begin(), options.dirs.end());
  const auto first = read_manifest(dirs.front());
  for (std::size_t i = 1; i < dirs.size(); ++i) {
    if (manifest_fingerprint(read_manifest(dirs[i])) != manifest_fingerprint(first)) {
      throw InputError(SourcePos{(dirs[i] / "sweep.json").string()},
                       "holds a different sweep than " + (dirs.front() / "sweep.json").string());
    }
  }
  const SweepSpec spec = spec_from_manifest(first);
  const std::filesystem::path out = options.out.empty() ? dirs.front() : std::filesystem::path(options.out);
  const OutputFolder out_folder(out);
  const auto bad = write_collected(spec, dirs, out);
  if (bad > 0) std::cerr << "roofsim sweep merge: " << bad << " points failed or missing (see sweep.csv)\n";
  return bad == 0 ? 0 : 1;
}

}  // namespace

void add_sweep_command(CLI::App& app, int& exit_code) {
  auto* command = app.add_subcommand(
      "sweep",
      "Run every point of a sweep file as its own process: sweep.csv, sweep_totals.csv, sweep.svg, sweep_roofline.svg; "
      "or `sweep merge DIR...` to join shards");
  auto options = std::make_shared<SweepOptions>();
  command->add_option("file", options->file, "Sweep file, or a bundled sweep by name (gemm_batch_ridge)");
  command->add_option("--jobs,-j", options->jobs, "Points run at once (default: all cores)");
  command->add_option("--out", options->out, "Output folder (default: results/<sweep name>)");
  command->add_flag("--list", options->list,
                    "Print one shell command per point (of the shard, with --shard) instead of running them");
  command->add_option("--shard", options->shard, "Run slice K of N (K = 0 .. N-1), for job arrays");
  command->add_option("--point", options->point, "Run only the point with this index (what --list prints)");
  command->add_option("--mode", options->mode, "Override the sweep file's mode")
      ->check(CLI::IsMember({"run", "roofline"}));
  command->add_flag("--quiet", options->quiet, "No progress lines on stderr (failures are still reported)");
  add_allow_large_flag(*command, options->allow_large);

  auto* merge = command->add_subcommand("merge", "Merge the output folders of shards into one sweep.csv");
  auto merge_options = std::make_shared<MergeOptions>();
  merge->add_option("dirs", merge_options->dirs, "Output folders of the shards")->required();
  merge->add_option("--out", merge_options->out, "Folder for the merged results (default: the first folder)");
  merge->callback([merge_options, &exit_code]() { exit_code = run_merge(*merge_options); });

  command->callback([options, merge, &exit_code]() {
    if (merge->parsed()) return;
    exit_code = run_sweep(*options);
  });
}

}  // namespace roofsim::cli
