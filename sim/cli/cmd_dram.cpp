// `roofsim dram`: the DRAM model alone on a request trace or a generated pattern; and `roofsim bench dram`.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <stdexcept>
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
#include "sim/report/dram_trace_writer.h"

namespace roofsim::cli {

namespace {

struct DramOptions {
  std::string hw;
  std::string trace;
  std::string format = "auto";
  std::string convert;
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
  std::uint32_t queue = 0;
  std::optional<std::uint32_t> refresh_postpone;
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
  dram.refresh = dram.resolved_refresh();
  return dram;
}

void apply_overrides(const DramOptions& options, DramParams& dram) {
  if (!options.mapping.empty()) dram.mapping = options.mapping;
  if (options.queue > 0) {
    // The write-drain watermarks keep their share of the queue (the defaults: 48 and 16 of 64 entries).
    dram.write_high = std::max(1u, options.queue * 3 / 4);
    dram.write_low = options.queue / 4;
    dram.read_queue = dram.write_queue = options.queue;
  }
  if (!options.page_policy.empty())
    dram.page_policy = parse_enum_option<PagePolicy>("--page-policy", options.page_policy);
  if (!options.scheduler.empty()) dram.scheduler = parse_enum_option<DramScheduler>("--scheduler", options.scheduler);
  if (options.refresh_postpone) dram.refresh_postpone = *options.refresh_postpone;
  if (!options.refresh.empty()) {
    dram.refresh = parse_enum_option<RefreshMode>("--refresh", options.refresh);
    dram.refresh = dram.resolved_refresh();
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

std::string converted_trace_name(DramTraceFormat format) {
  switch (format) {
    case DramTraceFormat::ramulator: return "dram_trace.ramulator.trace";
    case DramTraceFormat::dramsim3: return "dram_trace.dramsim3.trace";
    case DramTraceFormat::dramsys: return "dram_trace.stl";
    default: return "dram_trace.txt";
  }
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
  const Bytes request_bytes = parse_size("--request-bytes", options.request_bytes);
  if (!options.trace.empty()) {
    DramTraceOptions trace_options;
    trace_options.format = *parse_dram_trace_format(options.format);
    trace_options.default_bytes = request_bytes;
    trace_options.cycle_s = dram.standard.tck_s;
    requests = read_dram_trace(options.trace, trace_options);
    workload = "trace " + options.trace;
  } else {
    requests = make_pattern_requests(pattern_of(options));
    workload = options.pattern + " " + format_bytes(parse_size("--bytes", options.bytes));
  }
  if (!options.convert.empty()) {
    // Only the conversion: the requests written in the asked format, nothing simulated.
    const auto format = *parse_dram_trace_format(options.convert);
    const auto path = std::filesystem::path(options.out) / converted_trace_name(format);
    const OutputFolder folder(options.out);
    write_output_file(
        path, [&](std::ostream& out) { write_dram_trace(out, requests, format, dram.standard.tck_s, request_bytes); });
    if (!options.quiet) std::cout << "  wrote " << path.string() << " (" << requests.size() << " requests)\n";
    return 0;
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
                      "allowed), or a peer simulator's trace (--format); a request is offered at its time or as soon "
                      "as the queues have room");
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
  command
      ->add_option("--queue", options->queue,
                   "Read and write queue entries per channel (default the device's, 64; the peers use 32)")
      ->check(CLI::Range(1, 65536));
  command->add_option("--page-policy", options->page_policy, "Row policy: " + enum_choices<PagePolicy>());
  command->add_option("--scheduler", options->scheduler, "Request scheduler: " + enum_choices<DramScheduler>());
  command->add_option("--refresh", options->refresh, "Refresh mode: " + enum_choices<RefreshMode>());
  command
      ->add_option("--refresh-postpone", options->refresh_postpone,
                   "All-bank refreshes (per-bank: rounds) that may be postponed under load, at most the "
                   "standard's limit (default the device's, 0: none)")
      ->check(CLI::Range(0, 64));
  command
      ->add_option("--format", options->format,
                   "Trace format: auto (from the first line), roofsim, ramulator ('LD|ST <address>', Ramulator 2), "
                   "dramsim3 ('<hex address> READ|WRITE <cycle>'), dramsys ('<cycle>: [(bytes)] read|write "
                   "<hex address>', the STL player); cycles are of the DRAM's tCK")
      ->check(CLI::IsMember({"auto", "roofsim", "ramulator", "dramsim3", "dramsys"}));
  command
      ->add_option("--convert", options->convert,
                   "Write the requests (of the trace or the pattern) as a trace of this format to DIR "
                   "(dram_trace.txt, .ramulator.trace, .dramsim3.trace or .stl) instead of simulating them; "
                   "ramulator and dramsim3 lines are --request-bytes each")
      ->check(CLI::IsMember({"roofsim", "ramulator", "dramsim3", "dramsys"}));
  command->add_option("--out", options->out, "Output directory (default results/)");
  command->add_flag("--quiet", options->quiet, "Write the JSON only");
  command->callback([options, &exit_code]() { exit_code = run_dram(*options); });
}

// `roofsim bench dram`: requests per second of CPU time on 1 M-request stream and random traces over one channel
// (one pseudo-channel for HBM) of HBM2-2000 and DDR4-3200, with the standard's default address mapping and with one
// that interleaves consecutive bursts over bank groups: end to end as `roofsim dram TRACE` runs (the trace file read
// and parsed, then simulated), and the parsing and the simulation apart. The targets are HBM2's: 2 M requests/s
// sequential and 1 M random, end to end. Each run is a child process (SystemC allows one elaboration per process);
// each configuration runs kRuns times and the run of least CPU time is printed, as other processes on a shared
// machine only ever add to it.
namespace {

struct BenchRun {
  double cpu_s = 0;
  std::string line;
};

// One run of a configuration in this process; throws on failure.
BenchRun dram_bench_run(const std::string& hw, const std::string& mapping, const std::string& pattern) {
  constexpr std::uint64_t kRequests = 1'000'000;
  DramOptions options;
  options.hw = hw;
  options.pattern = pattern;
  options.mapping = mapping;
  options.bytes = std::to_string(kRequests * 64);
  auto dram = load_dram(options.hw);
  apply_overrides(options, dram);
  auto requests = make_pattern_requests(pattern_of(options));
  // The same requests as a trace file, for the end-to-end figure.
  char name[] = "/tmp/roofsim-bench-dram-XXXXXX";
  const int fd = mkstemp(name);
  if (fd < 0) throw std::runtime_error("cannot create a temporary trace file");
  close(fd);
  const std::string trace_path = name;
  {
    std::ofstream out(trace_path, std::ios::binary);
    write_dram_trace(out, requests, DramTraceFormat::roofsim, dram.standard.tck_s, 64);
  }
  const auto start = std::chrono::steady_clock::now();
  const std::clock_t start_cpu = std::clock();
  DramTraceOptions trace_options;
  trace_options.cycle_s = dram.standard.tck_s;
  auto parsed = read_dram_trace(trace_path, trace_options);
  const std::clock_t parsed_cpu = std::clock();
  const auto result = run_dram_requests(dram, 1, std::move(parsed));
  const std::clock_t end_cpu = std::clock();
  const auto end = std::chrono::steady_clock::now();
  std::remove(trace_path.c_str());
  const double wall_s = std::chrono::duration<double>(end - start).count();
  // CPU time as well: on a shared machine the wall time also counts other processes' turns.
  const double cpu_s = static_cast<double>(end_cpu - start_cpu) / CLOCKS_PER_SEC;
  const double parse_cpu_s = static_cast<double>(parsed_cpu - start_cpu) / CLOCKS_PER_SEC;
  const double simulate_cpu_s = cpu_s - parse_cpu_s;
  const auto rate = [&](double seconds) { return static_cast<double>(kRequests) / seconds / 1e6; };
  const bool hbm2 = hw == "HBM2-2000";
  const double target = pattern == "stream" ? 2.0 : 1.0;
  return BenchRun{
      cpu_s,
      fmt::format("dram bench {:<9} {:<10} {:<6}: {} requests of 64 B over 1 channel, end to end {:.3f} s CPU = {:.2f} "
                  "M requests/s{} ({:.3f} s wall = {:.2f} M/s); parsing {:.3f} s = {:.2f} M/s, simulation {:.3f} s = "
                  "{:.2f} M/s; simulated {:.1f}% of pin bandwidth, row hits {:.1f}%\n",
                  hw, dram.mapping, pattern, kRequests, cpu_s, rate(cpu_s),
                  hbm2 ? fmt::format(" (target {:.0f} M/s)", target) : std::string(), wall_s, rate(wall_s), parse_cpu_s,
                  rate(parse_cpu_s), simulate_cpu_s, rate(simulate_cpu_s),
                  100.0 * result.summary.bandwidth_fraction_of_peak, 100.0 * result.summary.row_hit_rate)};
}

}  // namespace

int run_dram_bench() {
  constexpr int kRuns = 3;
  constexpr const char* kInterleaved = "RoBaCoBgCh";
  int status_all = 0;
  for (const std::string hw : {"HBM2-2000", "DDR4-3200"}) {
    for (const std::string mapping : {"", kInterleaved}) {
      for (const std::string pattern : {"stream", "random"}) {
        BenchRun best;
        for (int run = 0; run < kRuns; ++run) {
          // The child reports its CPU time and its line through a pipe.
          int channel[2];
          if (pipe(channel) != 0) return 1;
          std::cout.flush();
          const pid_t child = fork();
          if (child < 0) return 1;
          if (child == 0) {
            close(channel[0]);
            int code = 0;
            try {
              const auto figures = dram_bench_run(hw, mapping, pattern);
              const std::string message = fmt::format("{:.17g} {}", figures.cpu_s, figures.line);
              if (write(channel[1], message.data(), message.size()) != static_cast<ssize_t>(message.size())) code = 1;
            } catch (const std::exception& error) {
              std::cerr << "roofsim: error: " << error.what() << "\n";
              code = 1;
            }
            close(channel[1]);
            std::_Exit(code);
          }
          close(channel[1]);
          std::string message;
          char buffer[1024];
          for (ssize_t got = 0; (got = read(channel[0], buffer, sizeof buffer)) > 0;) {
            message.append(buffer, static_cast<std::size_t>(got));
          }
          close(channel[0]);
          int status = 0;
          waitpid(child, &status, 0);
          const auto space = message.find(' ');
          if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || space == std::string::npos) {
            status_all = 1;
            continue;
          }
          const double cpu_s = std::strtod(message.c_str(), nullptr);
          if (best.line.empty() || cpu_s < best.cpu_s) best = BenchRun{cpu_s, message.substr(space + 1)};
        }
        std::cout << best.line;
      }
    }
  }
  return status_all;
}

}  // namespace roofsim::cli
