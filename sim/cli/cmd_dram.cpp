// `roofsim dram`: the DRAM model alone on a request trace or a generated pattern; and `roofsim bench dram`.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <toml++/toml.h>

#include "sim/cli/app.h"
#include "sim/config/data_paths.h"
#include "sim/config/enum_spellings.h"
#include "sim/config/hardware_params.h"
#include "sim/config/key_spec.h"
#include "sim/config/quantity.h"
#include "sim/core/input_error.h"
#include "sim/core/input_file.h"
#include "sim/core/interrupt.h"
#include "sim/core/output_file.h"
#include "sim/core/output_folder.h"
#include "sim/engine/dram_run.h"
#include "sim/engine/dram_trace_reader.h"
#include "sim/report/dram_run_writers.h"

namespace roofsim::cli {

namespace {

struct DramOptions {
  std::string hw;
  std::string trace;
  std::string pattern;
  std::string bytes = "64MiB";
  std::string stride;
  std::string request_bytes = "64B";
  std::string footprint = "1GiB";
  double read_ratio = 1.0;
  std::uint32_t channels = 0;
  std::string out = "results";
  std::string mapping, page_policy, scheduler, refresh;
  std::uint64_t seed = 1;
  bool quiet = false;
};

// --hw takes a device file (its [dram] section) or a DRAM standard file (with the device-file defaults for the
// controller: one stack, the default mapping, page policy, scheduler, refresh and queues).
DramParams load_dram(const std::string& hw) {
  const auto file = path_exists(hw) ? std::filesystem::path(hw) : resolve_data_file(hw, "configs");
  if (!path_exists(file)) {
    const auto standard_file = resolve_data_file(hw, "configs/dram");
    if (!path_exists(standard_file)) throw InputError(SourcePos{hw}, "file not found");
    return load_dram(standard_file.string());
  }
  bool is_standard = false;
  try {
    // Peek only into a file the loaders would read; the device loader reports what is wrong with any other.
    is_standard =
        is_acceptable_input_file(file, kMaxConfigFileBytes) && toml::parse_file(file.string()).contains("standard");
  } catch (const toml::parse_error&) {
    is_standard = false;  // the device loader reports the syntax error with its position
  }
  if (!is_standard) {
    const auto hardware = load_hardware(file);
    if (!hardware.dram)
      throw InputError(SourcePos{file.string()}, "a device with a [dram] section (or a DRAM standard file)");
    return *hardware.dram;
  }
  DramParams dram = default_dram_params();
  dram.standard = load_dram_standard(file);
  dram.stacks = 1;
  dram.model = DramModel::detailed;
  return dram;
}

void apply_overrides(const DramOptions& options, DramParams& dram) {
  if (!options.mapping.empty()) dram.mapping = options.mapping;
  if (!options.page_policy.empty())
    dram.page_policy = parse_enum_option<PagePolicy>("--page-policy", options.page_policy);
  if (!options.scheduler.empty()) dram.scheduler = parse_enum_option<DramScheduler>("--scheduler", options.scheduler);
  if (!options.refresh.empty()) {
    dram.refresh = parse_enum_option<RefreshMode>("--refresh", options.refresh);
    if (dram.refresh == RefreshMode::per_bank && !dram.standard.per_bank_refresh) {
      throw InputError(SourcePos{"--refresh"}, "--refresh", options.refresh,
                       "all_bank or none (" + dram.standard.name + " has no per-bank refresh)");
    }
  }
}

Bytes parse_size(const std::string& option, const std::string& text) {
  if (const auto bytes = parse_bytes(text)) return *bytes;
  Bytes value = 0;
  const auto* end = text.data() + text.size();
  const auto [ptr, error] = std::from_chars(text.data(), end, value);
  if (error != std::errc() || ptr != end) {
    throw InputError(SourcePos{option}, option, text, "a byte count such as 4096 or \"64MiB\"");
  }
  return value;
}

// The pattern the options ask for; a size that does not parse, a request of 0 bytes or a read ratio outside [0, 1] is
// an InputError naming its option.
DramPattern pattern_of(const DramOptions& options) {
  DramPattern pattern;
  pattern.kind = options.pattern;
  pattern.total_bytes = parse_size("--bytes", options.bytes);
  pattern.request_bytes = parse_size("--request-bytes", options.request_bytes);
  if (pattern.request_bytes == 0) {
    throw InputError(SourcePos{"--request-bytes"}, "--request-bytes", "0", "at least 1 byte");
  }
  pattern.stride_bytes = options.stride.empty() ? pattern.request_bytes : parse_size("--stride", options.stride);
  pattern.footprint_bytes = parse_size("--footprint", options.footprint);
  if (!(options.read_ratio >= 0.0 && options.read_ratio <= 1.0)) {
    throw InputError(SourcePos{"--read-ratio"}, "--read-ratio", std::to_string(options.read_ratio),
                     "a fraction in [0, 1]");
  }
  pattern.read_ratio = options.read_ratio;
  pattern.seed = options.seed;
  return pattern;
}

int run_dram(const DramOptions& options) {
  auto dram = load_dram(options.hw);
  apply_overrides(options, dram);
  const std::uint32_t device_channels = std::max(1u, dram.channels());
  if (options.channels > device_channels) {
    throw InputError(SourcePos{"--channels"}, "--channels", std::to_string(options.channels),
                     "at most the device's " + std::to_string(device_channels) + " channels");
  }
  const std::uint32_t channels = options.channels == 0 ? device_channels : options.channels;
  if (options.trace.empty() == options.pattern.empty()) {
    throw InputError(SourcePos{"roofsim dram"}, "a trace file or --pattern (one of them)");
  }
  std::string workload;
  DramRequests requests;
  if (!options.trace.empty()) {
    requests = read_dram_trace(options.trace, parse_size("--request-bytes", options.request_bytes));
    workload = "trace " + options.trace;
  } else {
    requests = make_pattern_requests(pattern_of(options));
    workload = options.pattern + " " + format_bytes(parse_size("--bytes", options.bytes));
  }
  const std::size_t request_count = requests.size();
  const OutputFolder folder(options.out);
  const DeferInterrupts defer;
  const auto result = run_dram_requests(dram, channels, std::move(requests));
  if (!options.quiet) write_dram_summary(result, dram, workload, std::cout);
  const auto path = std::filesystem::path(options.out) / "dram.json";
  write_output_file(path, [&](std::ostream& out) { out << dram_run_json(result, dram, workload).dump(2) << "\n"; });
  if (!options.quiet) {
    std::cout << "  wrote " << path.string() << (result.complete ? "" : " (\"complete\": false)") << "\n";
  }
  return work_exit_code(result.stats.read_requests + result.stats.write_requests, request_count, "requests");
}

}  // namespace

void add_dram_command(CLI::App& app, int& exit_code) {
  auto* command = app.add_subcommand(
      "dram",
      "Run the DRAM model alone on a request trace or a generated pattern; prints and writes DIR/dram.json: bandwidth "
      "and % of pin peak, row-hit rate, read latency (avg/p50/p99/max), ACTs per bank, refresh time share, energy by "
      "command");
  auto options = std::make_shared<DramOptions>();
  command->add_option("trace", options->trace,
                      "Trace file: lines '<time_ns> <R|W> <hex address> [bytes]' (blank lines and # comments "
                      "allowed); a request is offered at its time or as soon as the queues have room");
  command
      ->add_option("--hw", options->hw,
                   "A device file (its [dram] section) or a DRAM standard file of configs/dram/ (by path or "
                   "name, e.g. HBM2-2000; then one stack with the device-file defaults)")
      ->required();
  command->add_option("--pattern", options->pattern, "Generated requests instead of a trace")
      ->check(CLI::IsMember({"stream", "random", "strided"}));
  command->add_option("--bytes", options->bytes, "Bytes the pattern moves (default 64MiB)");
  command->add_option("--stride", options->stride, "Distance between requests of the strided pattern (bytes)");
  command->add_option("--read-ratio", options->read_ratio, "Fraction of the pattern's requests that read (default 1)");
  command->add_option("--request-bytes", options->request_bytes,
                      "Size of a pattern request (default 64B; also the "
                      "size of trace lines without one)");
  command->add_option("--footprint", options->footprint, "Address range of the random pattern (default 1GiB)");
  command->add_option("--seed", options->seed, "Seed of the random pattern (default 1)");
  command->add_option("--channels", options->channels,
                      "Simulate this many channels (pseudo-channels for HBM) instead of all of the device's");
  command->add_option("--mapping", options->mapping,
                      "Address mapping: " + dram_mapping_grammar() +
                          "; e.g. RoBaCoBgCh interleaves consecutive bursts over channels and bank groups");
  command->add_option("--page-policy", options->page_policy, "Row policy: " + enum_choices<PagePolicy>());
  command->add_option("--scheduler", options->scheduler, "Request scheduler: " + enum_choices<DramScheduler>());
  command->add_option("--refresh", options->refresh, "Refresh mode: " + enum_choices<RefreshMode>());
  command->add_option("--out", options->out, "Output directory (default results/)");
  command->add_flag("--quiet", options->quiet, "Write the JSON only");
  command->callback([options, &exit_code]() { exit_code = run_dram(*options); });
}

// `roofsim bench dram`: requests per second of trace mode on 1 M-request stream and random traces over one HBM2
// channel. Each pattern runs in a child process (SystemC allows one elaboration per process).
int run_dram_bench() {
  constexpr std::uint64_t kRequests = 1'000'000;
  int status_all = 0;
  for (const std::string pattern : {"stream", "random"}) {
    std::cout.flush();
    const pid_t child = fork();
    if (child < 0) return 1;
    if (child == 0) {
      int code = 0;
      try {
        DramOptions options;
        options.hw = "HBM2-2000";
        options.pattern = pattern;
        options.bytes = std::to_string(kRequests * 64);
        auto dram = load_dram(options.hw);
        const auto start_generate = std::chrono::steady_clock::now();
        auto requests = make_pattern_requests(pattern_of(options));
        const auto start = std::chrono::steady_clock::now();
        const std::clock_t start_cpu = std::clock();
        const auto result = run_dram_requests(dram, 1, std::move(requests));
        const std::clock_t end_cpu = std::clock();
        const auto end = std::chrono::steady_clock::now();
        const double generate_s = std::chrono::duration<double>(start - start_generate).count();
        const double wall_s = std::chrono::duration<double>(end - start).count();
        // CPU time as well: on a shared machine the wall time also counts other processes' turns.
        const double cpu_s = static_cast<double>(end_cpu - start_cpu) / CLOCKS_PER_SEC;
        std::cout << fmt::format(
            "dram bench {:<6}: {} requests of 64 B over 1 {} channel: {:.3f} s wall = {:.2f} M requests/s, "
            "{:.3f} s CPU = {:.2f} M requests/s (trace generation {:.3f} s); simulated {:.1f}% of pin bandwidth, "
            "row hits {:.1f}%\n",
            pattern, kRequests, dram.standard.name, wall_s, static_cast<double>(kRequests) / wall_s / 1e6, cpu_s,
            static_cast<double>(kRequests) / cpu_s / 1e6, generate_s, 100.0 * result.summary.bandwidth_fraction_of_peak,
            100.0 * result.summary.row_hit_rate);
      } catch (const std::exception& error) {
        std::cerr << "roofsim: error: " << error.what() << "\n";
        code = 1;
      }
      std::cout.flush();
      std::_Exit(code);
    }
    int status = 0;
    waitpid(child, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) status_all = 1;
  }
  return status_all;
}

}  // namespace roofsim::cli
