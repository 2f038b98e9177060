// `roofsim dram`: the DRAM model alone on a request trace or a generated pattern; and `roofsim bench dram`.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <toml++/toml.h>
#include <nlohmann/json.hpp>
#include <systemc>

#include "models/dram/address_mapping.h"
#include "models/dram/dram_device.h"
#include "models/dram/dram_stats.h"
#include "sim/cli/app.h"
#include "sim/config/data_paths.h"
#include "sim/config/hardware_params.h"
#include "sim/config/key_spec.h"
#include "sim/config/quantity.h"
#include "sim/core/input_error.h"

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

// A source over requests held in memory.
class VectorSource final : public dram::DramRequestSource {
 public:
  explicit VectorSource(std::vector<DramRequest> requests) : requests_(std::move(requests)) {}
  [[nodiscard]] std::optional<DramRequest> peek() const override {
    if (next_ >= requests_.size()) return std::nullopt;
    return requests_[next_];
  }
  void pop() override { ++next_; }

 private:
  std::vector<DramRequest> requests_;
  std::size_t next_ = 0;
};

std::string registry_default(const std::string& key) {
  std::vector<std::string> segments;
  std::stringstream stream(key);
  for (std::string segment; std::getline(stream, segment, '.');) segments.push_back(segment);
  const auto* spec = hardware_registry().find(segments);
  return spec != nullptr ? std::string(spec->default_value) : std::string();
}

std::uint32_t registry_count(const std::string& key) {
  return static_cast<std::uint32_t>(std::stoul(registry_default(key)));
}

// --hw takes a device file (its [dram] section) or a DRAM standard file (with the device-file defaults for the
// controller: one stack, the default mapping, page policy, scheduler, refresh and queues).
DramParams load_dram(const std::string& hw) {
  const auto file = std::filesystem::exists(hw) ? std::filesystem::path(hw) : resolve_data_file(hw, "configs");
  if (!std::filesystem::exists(file)) {
    const auto standard_file = resolve_data_file(hw, "configs/dram");
    if (!std::filesystem::exists(standard_file)) throw InputError(SourcePos{hw}, "file not found");
    return load_dram(standard_file.string());
  }
  bool is_standard = false;
  try {
    is_standard = toml::parse_file(file.string()).contains("standard");
  } catch (const toml::parse_error&) {
    is_standard = false;  // the device loader reports the syntax error with its position
  }
  if (!is_standard) {
    const auto hardware = load_hardware(file);
    if (!hardware.dram)
      throw InputError(SourcePos{file.string()}, "a device with a [dram] section (or a DRAM standard file)");
    return *hardware.dram;
  }
  DramParams dram;
  dram.standard = load_dram_standard(file);
  dram.stacks = 1;
  dram.model = DramModel::detailed;
  dram.mapping = registry_default("dram.mapping");
  const auto policy = registry_default("dram.page_policy");
  dram.page_policy = policy == "closed"     ? PagePolicy::closed
                     : policy == "adaptive" ? PagePolicy::adaptive
                                            : PagePolicy::open;
  dram.scheduler = registry_default("dram.scheduler") == "fcfs" ? DramScheduler::fcfs : DramScheduler::frfcfs;
  const auto refresh = registry_default("dram.refresh");
  dram.refresh = refresh == "per_bank" ? RefreshMode::per_bank
                 : refresh == "none"   ? RefreshMode::none
                                       : RefreshMode::all_bank;
  dram.read_queue = registry_count("dram.read_queue");
  dram.write_queue = registry_count("dram.write_queue");
  dram.write_high = registry_count("dram.write_high");
  dram.write_low = registry_count("dram.write_low");
  dram.frfcfs_cap = registry_count("dram.frfcfs_cap");
  return dram;
}

void apply_overrides(const DramOptions& options, DramParams& dram) {
  if (!options.mapping.empty()) dram.mapping = options.mapping;
  if (!options.page_policy.empty()) {
    dram.page_policy = options.page_policy == "closed"     ? PagePolicy::closed
                       : options.page_policy == "adaptive" ? PagePolicy::adaptive
                                                           : PagePolicy::open;
  }
  if (!options.scheduler.empty()) {
    dram.scheduler = options.scheduler == "fcfs" ? DramScheduler::fcfs : DramScheduler::frfcfs;
  }
  if (!options.refresh.empty()) {
    dram.refresh = options.refresh == "per_bank" ? RefreshMode::per_bank
                   : options.refresh == "none"   ? RefreshMode::none
                                                 : RefreshMode::all_bank;
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

std::string trim(const std::string& text) {
  const auto first = text.find_first_not_of(" \t\r");
  if (first == std::string::npos) return {};
  return text.substr(first, text.find_last_not_of(" \t\r") - first + 1);
}

// Trace lines: `<time_ns> <R|W> <hex address> [bytes]`; blank lines and `#` comments are skipped.
std::vector<DramRequest> read_trace(const std::string& path, Bytes default_bytes) {
  std::ifstream in(path);
  if (!in) throw InputError(SourcePos{path}, "file not found");
  std::vector<DramRequest> requests;
  std::string line;
  std::uint32_t number = 0;
  Seconds previous_s = 0;
  const std::string expected = "a line '<time_ns> <R|W> <hex address> [bytes]', times not decreasing";
  while (std::getline(in, line)) {
    ++number;
    const auto comment = line.find('#');
    if (comment != std::string::npos) line.resize(comment);
    line = trim(line);
    if (line.empty()) continue;
    std::istringstream fields(line);
    std::string time_text, kind, address_text, bytes_text, extra;
    fields >> time_text >> kind >> address_text >> bytes_text >> extra;
    const auto fail = [&]() {
      throw InputError(SourcePos{path, number, 0}, "line " + std::to_string(number), line, expected);
    };
    if (address_text.empty() || !extra.empty()) fail();
    DramRequest request;
    double time_ns = 0;
    {
      const auto* end = time_text.data() + time_text.size();
      const auto [ptr, error] = std::from_chars(time_text.data(), end, time_ns);
      if (error != std::errc() || ptr != end || !(time_ns >= 0) || !std::isfinite(time_ns)) fail();
    }
    if (kind == "R" || kind == "r") {
      request.write = false;
    } else if (kind == "W" || kind == "w") {
      request.write = true;
    } else {
      fail();
    }
    std::string hex = address_text;
    if (hex.size() > 2 && hex[0] == '0' && (hex[1] == 'x' || hex[1] == 'X')) hex = hex.substr(2);
    {
      const auto* end = hex.data() + hex.size();
      const auto [ptr, error] = std::from_chars(hex.data(), end, request.address, 16);
      if (hex.empty() || error != std::errc() || ptr != end) fail();
    }
    request.bytes = default_bytes;
    if (!bytes_text.empty()) {
      const auto* end = bytes_text.data() + bytes_text.size();
      const auto [ptr, error] = std::from_chars(bytes_text.data(), end, request.bytes);
      if (error != std::errc() || ptr != end || request.bytes == 0) fail();
    }
    const Seconds at_s = time_ns * 1e-9;
    if (at_s < previous_s) fail();
    previous_s = at_s;
    request.arrival_fs = seconds_to_fs(at_s);  // as sc_time(at_s, SC_SEC) rounds at the kernel's resolution, 1 fs
    requests.push_back(request);
  }
  return requests;
}

// Deterministic patterns: every request offered at time 0, so they issue as fast as the controller accepts them.
std::vector<DramRequest> make_pattern(const DramOptions& options) {
  const Bytes total = parse_size("--bytes", options.bytes);
  const Bytes request_bytes = parse_size("--request-bytes", options.request_bytes);
  if (request_bytes == 0) throw InputError(SourcePos{"--request-bytes"}, "--request-bytes", "0", "at least 1 byte");
  const Bytes stride = options.stride.empty() ? request_bytes : parse_size("--stride", options.stride);
  const Bytes footprint = parse_size("--footprint", options.footprint);
  if (!(options.read_ratio >= 0.0 && options.read_ratio <= 1.0)) {
    throw InputError(SourcePos{"--read-ratio"}, "--read-ratio", std::to_string(options.read_ratio),
                     "a fraction in [0, 1]");
  }
  const Bytes count = (total + request_bytes - 1) / request_bytes;
  const Bytes slots = std::max<Bytes>(1, footprint / request_bytes);
  std::mt19937_64 random(options.seed);
  std::vector<DramRequest> requests;
  requests.reserve(count);
  for (Bytes i = 0; i < count; ++i) {
    DramRequest request;
    request.bytes = request_bytes;
    if (options.pattern == "stream") {
      request.address = i * request_bytes;
    } else if (options.pattern == "strided") {
      request.address = i * stride;
    } else {
      request.address = (random() % slots) * request_bytes;
    }
    // 53 random bits as a fraction in [0, 1): the same on every platform, unlike std::uniform_real_distribution.
    const double draw = static_cast<double>(random() >> 11) * 0x1.0p-53;
    request.write = options.read_ratio < 1.0 && draw >= options.read_ratio;
    requests.push_back(request);
  }
  return requests;
}

std::string page_policy_name(PagePolicy policy) {
  return policy == PagePolicy::closed ? "closed" : policy == PagePolicy::adaptive ? "adaptive" : "open";
}
std::string refresh_name(RefreshMode mode) {
  return mode == RefreshMode::per_bank ? "per_bank" : mode == RefreshMode::none ? "none" : "all_bank";
}

nlohmann::ordered_json to_json(const dram::DramSummary& summary, const dram::DramRunStats& stats,
                               const DramParams& dram, const std::string& workload) {
  nlohmann::ordered_json json;
  json["standard"] = dram.standard.name;
  json["workload"] = workload;
  json["channels"] = summary.channels;
  json["mapping"] = dram.mapping;
  json["page_policy"] = page_policy_name(dram.page_policy);
  json["scheduler"] = dram.scheduler == DramScheduler::fcfs ? "fcfs" : "frfcfs";
  json["refresh"] = refresh_name(dram.refresh);
  json["read_requests"] = stats.read_requests;
  json["write_requests"] = stats.write_requests;
  json["bytes_read"] = stats.bytes_read;
  json["bytes_written"] = stats.bytes_written;
  json["sim_time_s"] = summary.duration_s;
  json["bandwidth_bytes_per_s"] = summary.bandwidth_bytes_per_s;
  json["peak_bandwidth_bytes_per_s"] = summary.peak_bytes_per_s;
  json["bandwidth_percent_of_peak"] = 100.0 * summary.bandwidth_fraction_of_peak;
  json["row_hit_rate"] = summary.row_hit_rate;
  json["row_hits"] = summary.row_hits;
  json["row_misses"] = summary.row_misses;
  json["row_conflicts"] = summary.row_conflicts;
  json["read_latency_s"] = {{"avg", summary.read_latency.avg_s},
                            {"p50", summary.read_latency.p50_s},
                            {"p99", summary.read_latency.p99_s},
                            {"max", summary.read_latency.max_s}};
  json["acts"] = summary.acts;
  json["acts_per_bank"] = summary.acts_per_bank;
  json["refreshes"] = summary.refreshes;
  json["refresh_time_share"] = summary.refresh_time_share;
  json["energy_j"] = {{"act", summary.energy.act_j},      {"pre", summary.energy.pre_j},
                      {"rd", summary.energy.rd_j},        {"wr", summary.energy.wr_j},
                      {"ref", summary.energy.ref_j},      {"background", summary.energy.background_j},
                      {"total", summary.energy.total_j()}};
  const double bits = 8.0 * static_cast<double>(stats.bytes_read + stats.bytes_written);
  json["energy_pj_per_bit"] = bits > 0 ? summary.energy.total_j() / bits * 1e12 : 0.0;
  return json;
}

void print_summary(const dram::DramSummary& summary, const dram::DramRunStats& stats, const DramParams& dram,
                   const std::string& workload) {
  const auto ns = [](double seconds) { return fmt::format("{:.1f} ns", seconds * 1e9); };
  std::cout << fmt::format("DRAM {} x {} channel(s), mapping {}, {} page, {}, {} refresh: {}\n", dram.standard.name,
                           summary.channels, dram.mapping, page_policy_name(dram.page_policy),
                           dram.scheduler == DramScheduler::fcfs ? "FCFS" : "FR-FCFS", refresh_name(dram.refresh),
                           workload);
  std::cout << fmt::format("  requests        {} reads, {} writes, {} moved in {}\n", stats.read_requests,
                           stats.write_requests, format_bytes(stats.bytes_read + stats.bytes_written),
                           format_si(summary.duration_s, "s"));
  std::cout << fmt::format("  bandwidth       {} = {:.1f}% of pin peak {}\n",
                           format_si(summary.bandwidth_bytes_per_s, "B/s"), 100.0 * summary.bandwidth_fraction_of_peak,
                           format_si(summary.peak_bytes_per_s, "B/s"));
  std::cout << fmt::format("  row hit rate    {:.1f}% ({} hits, {} misses, {} conflicts, {} ACTs)\n",
                           100.0 * summary.row_hit_rate, summary.row_hits, summary.row_misses, summary.row_conflicts,
                           summary.acts);
  std::cout << fmt::format("  read latency    avg {}, p50 {}, p99 {}, max {}\n", ns(summary.read_latency.avg_s),
                           ns(summary.read_latency.p50_s), ns(summary.read_latency.p99_s),
                           ns(summary.read_latency.max_s));
  std::cout << fmt::format("  refresh         {} commands, {:.2f}% of bank time\n", summary.refreshes,
                           100.0 * summary.refresh_time_share);
  const auto& energy = summary.energy;
  const double bits = 8.0 * static_cast<double>(stats.bytes_read + stats.bytes_written);
  std::cout << fmt::format(
      "  energy          {} = {:.2f} pJ/bit (ACT {}, PRE {}, RD {}, WR {}, REF {}, background {})\n",
      format_si(energy.total_j(), "J"), bits > 0 ? energy.total_j() / bits * 1e12 : 0.0, format_si(energy.act_j, "J"),
      format_si(energy.pre_j, "J"), format_si(energy.rd_j, "J"), format_si(energy.wr_j, "J"),
      format_si(energy.ref_j, "J"), format_si(energy.background_j, "J"));
}

struct RunResult {
  dram::DramRunStats stats;
  dram::DramSummary summary;
};

// One elaboration per process (SystemC): builds the device, runs the requests to completion.
RunResult simulate(const DramParams& dram, std::uint32_t channels, std::vector<DramRequest> requests) {
  VectorSource source(std::move(requests));
  dram::DramDevice device("dram", dram, channels);
  device.attach_source(source);
  sc_core::sc_start();
  RunResult result;
  result.stats = device.collect();
  result.summary = dram::summarize(result.stats, dram.standard);
  return result;
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
  std::vector<DramRequest> requests;
  if (!options.trace.empty()) {
    requests = read_trace(options.trace, parse_size("--request-bytes", options.request_bytes));
    workload = "trace " + options.trace;
  } else {
    requests = make_pattern(options);
    workload = options.pattern + " " + format_bytes(parse_size("--bytes", options.bytes));
  }
  const auto result = simulate(dram, channels, std::move(requests));
  if (!options.quiet) print_summary(result.summary, result.stats, dram, workload);
  std::filesystem::create_directories(options.out);
  const auto path = std::filesystem::path(options.out) / "dram.json";
  std::ofstream out(path);
  out << to_json(result.summary, result.stats, dram, workload).dump(2) << "\n";
  if (!out) throw std::runtime_error("cannot write " + path.string());
  if (!options.quiet) std::cout << "  wrote " << path.string() << "\n";
  return 0;
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
                      "Address mapping: " + dram::AddressMapping::grammar() +
                          "; e.g. RoBaCoBgCh interleaves consecutive bursts over channels and bank groups");
  command->add_option("--page-policy", options->page_policy, "Row policy")
      ->check(CLI::IsMember({"open", "closed", "adaptive"}));
  command->add_option("--scheduler", options->scheduler, "Request scheduler")->check(CLI::IsMember({"frfcfs", "fcfs"}));
  command->add_option("--refresh", options->refresh, "Refresh mode")
      ->check(CLI::IsMember({"all_bank", "per_bank", "none"}));
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
        auto requests = make_pattern(options);
        const auto start = std::chrono::steady_clock::now();
        const std::clock_t start_cpu = std::clock();
        const auto result = simulate(dram, 1, std::move(requests));
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
