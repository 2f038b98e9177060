// report.json in the contract's shape (DESIGN.md section 6), round-tripped through nlohmann-json; ops.csv; the console
// table; byte-identical output twice.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include <cmath>
#include <sstream>

#include "sim/report/report_writers.h"
#include "tests/unit/report/report_fixture.h"

using namespace roofsim;

namespace {
std::string json_text(const Report& report) {
  std::ostringstream out;
  write_report_json(report, out);
  return out.str();
}
std::string csv_text(const Report& report) {
  std::ostringstream out;
  write_ops_csv(report, out);
  return out.str();
}
std::string table_text(const Report& report) {
  std::ostringstream out;
  write_console_table(report, out);
  return out.str();
}
}  // namespace

TEST_CASE("report.json round-trips with the contract's keys and values") {
  const auto device = test::h100_like_device();
  const auto report = test::sample_report(device);
  const auto parsed = nlohmann::json::parse(json_text(report));

  CHECK(parsed.at("hardware").at("name") == "H100-like");
  CHECK(parsed.at("workload").at("name") == "sample");
  CHECK(parsed.at("units").at("ceilings") == "FLOP/s");
  CHECK(parsed.at("total").contains("sim_time_s"));
  CHECK(parsed.at("total").at("sim_time_s").is_null());
  const auto& ops = parsed.at("ops");
  REQUIRE(ops.size() == report.ops.size());
  for (std::size_t i = 0; i < ops.size(); ++i) {
    const auto& op = ops[i];
    const auto& expected = report.ops[i];
    for (const char* key : {"name", "kind", "useful_flops", "executed_flops", "bytes", "oi", "ceilings", "binding",
                            "bound_by", "sim_time_s", "achieved_flops_per_s"}) {
      CHECK_MESSAGE(op.contains(key), key);
    }
    CHECK(op.at("name") == expected.name);
    CHECK(op.at("useful_flops").get<Flops>() == expected.useful_flops);
    CHECK(op.at("sim_time_s").is_null());
    CHECK(op.at("achieved_flops_per_s").is_null());
    for (const auto& level : expected.bytes) {
      CHECK(op.at("bytes").at(level.level).get<Bytes>() == level.bytes);
      // OI = useful FLOPs / bytes, exactly as written.
      CHECK(op.at("oi").at(level.level).get<double>() ==
            static_cast<double>(expected.useful_flops) / static_cast<double>(level.bytes));
    }
    for (const auto variant : kAllVariants) {
      const double value = op.at("ceilings").at(std::string(to_string(variant))).get<double>();
      CHECK(value == expected.roofline.ceilings[variant].flops_per_s);
      CHECK(std::isfinite(value));
    }
    CHECK(op.at("binding") == std::string(to_string(expected.roofline.binding)));
    CHECK(op.at("bound_by") == expected.roofline.bound_by);
  }
  // GEMM 8192 x 128 x 8192 in fp16: OI = 2MNK / (2(MK + KN + MN)) = 124.1 FLOP/B; 8192^3: 2730.7 FLOP/B.
  CHECK(ops[1].at("oi").at("dram").get<double>() == doctest::Approx(124.1).epsilon(1e-3));
  CHECK(ops[0].at("oi").at("dram").get<double>() == doctest::Approx(2730.7).epsilon(1e-4));
}

TEST_CASE("report.json: a level without bytes has a null intensity and run fields appear when set") {
  const auto device = test::h100_like_device();
  auto report = test::sample_report(device);
  report.ops[0].bytes[0].bytes = 0;
  report.ops[0].sim_time_s = 2.5e-3;
  report.ops[0].achieved_flops_per_s = 4.4e14;
  report.ops[0].extra["tail_s"] = 1e-4;
  report.total_sim_time_s = 7e-3;
  const auto parsed = nlohmann::json::parse(json_text(report));
  CHECK(parsed["ops"][0]["oi"]["smem"].is_null());
  CHECK(parsed["ops"][0]["sim_time_s"].get<double>() == 2.5e-3);
  CHECK(parsed["ops"][0]["achieved_flops_per_s"].get<double>() == 4.4e14);
  CHECK(parsed["ops"][0]["tail_s"].get<double>() == 1e-4);
  CHECK(parsed["total"]["sim_time_s"].get<double>() == 7e-3);
}

TEST_CASE("ops.csv: a header with units and one row per op with the same number of fields") {
  const auto device = test::h100_like_device();
  auto report = test::sample_report(device);
  report.ops[2].name = "with, comma";
  const auto text = csv_text(report);
  std::istringstream lines(text);
  std::string header;
  std::getline(lines, header);
  CHECK(header.find("useful_flops_FLOP") != std::string::npos);
  CHECK(header.find("bytes_main_memory_B") != std::string::npos);
  CHECK(header.find("oi_main_memory_FLOP_per_B") != std::string::npos);
  CHECK(header.find("ceiling_time_power_s") != std::string::npos);
  CHECK(header.find("energy_J") != std::string::npos);
  CHECK(header.find("average_power_W") != std::string::npos);
  CHECK(header.find("ceiling_comm_FLOP_per_s") != std::string::npos);
  const auto fields = [](const std::string& line) {
    std::size_t count = 1;
    bool quoted = false;
    for (const char c : line) {
      if (c == '"') quoted = !quoted;
      if (c == ',' && !quoted) ++count;
    }
    return count;
  };
  std::string line;
  std::size_t rows = 0;
  while (std::getline(lines, line)) {
    CHECK(fields(line) == fields(header));
    ++rows;
  }
  CHECK(rows == report.ops.size());
  CHECK(text.find("\"with, comma\"") != std::string::npos);
}

TEST_CASE("console table: units in the headers and one line per op") {
  const auto device = test::h100_like_device();
  const auto report = test::sample_report(device);
  const auto text = table_text(report);
  CHECK(text.find("GFLOP") != std::string::npos);
  CHECK(text.find("TFLOP/s") != std::string::npos);
  CHECK(text.find("FLOP/B") != std::string::npos);
  CHECK(text.find("bytes dram") != std::string::npos);
  CHECK(text.find("bound_by") != std::string::npos);
  for (const auto& op : report.ops) CHECK(text.find(op.name) != std::string::npos);
  // title, header names, header units, rule, one line per op
  CHECK(static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')) == 4 + report.ops.size());
  // By default every line fits 120 columns; --wide adds every ceiling and the OI column of the main memory.
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) CHECK(line.size() <= kConsoleColumns);
  std::ostringstream wide;
  write_console_table(report, wide, TableOptions{true});
  const std::string wide_text = wide.str();
  CHECK(wide_text.find("OI dram") != std::string::npos);
  CHECK(wide_text.find("hierarchical") != std::string::npos);
  CHECK(static_cast<std::size_t>(std::count(wide_text.begin(), wide_text.end(), '\n')) == 4 + report.ops.size());
}

TEST_CASE("the writers give identical bytes twice") {
  const auto device = test::h100_like_device();
  const auto report = test::sample_report(device);
  CHECK(json_text(report) == json_text(report));
  CHECK(csv_text(report) == csv_text(report));
  CHECK(table_text(report) == table_text(report));
}
