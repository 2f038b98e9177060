// The bundled batch study (sweeps/gemm_batch_ridge.toml) in roofline mode: as the batch of a GEMM batch x 8192 x 8192
// grows, its compulsory OI follows the closed form and bound_by moves from memory to compute exactly where the
// memory line OI x B meets the compute peak P.
#include <doctest/doctest.h>

#include <fstream>

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "tests/cli/sweep_test_files.h"

using namespace roofsim;

namespace {

struct Row {
  double batch = 0, oi = 0, attainable = 0;
  std::string bound_by;
};

bool memory_bound(const std::string& bound_by) {
  return bound_by.rfind("memory:", 0) == 0 || bound_by == "dram-rows";
}

}  // namespace

TEST_CASE("the batch sweep crosses the ridge: bound_by changes once from memory to compute") {
  const auto dir = test::scratch_dir("sweep-ridge");
  // Without the power cap: at the H100's 700 W the SMs' clock power makes the largest batches power-bound, and this
  // test is about the classic ridge.
  std::string text = test::read_file(test::source_dir() / "sweeps" / "gemm_batch_ridge.toml");
  const auto hardware = text.find("hardware = \"H100-SXM5\"\n");
  REQUIRE(hardware != std::string::npos);
  text.insert(hardware, "set = [\"power.cap=0W\"]\n");
  const auto folder = test::scratch_dir("sweep-ridge-file");
  const auto file = folder / "gemm_batch_ridge.toml";
  std::ofstream(file) << text;
  std::filesystem::create_directories(folder / "workloads");  // its workload, relative to the sweep file
  std::filesystem::copy_file(test::source_dir() / "sweeps" / "workloads" / "gemm_batch.toml",
                             folder / "workloads" / "gemm_batch.toml",
                             std::filesystem::copy_options::overwrite_existing);
  const auto result =
      test::run_roofsim("sweep " + test::quoted(file) + " --mode roofline --jobs 2 --out " + test::quoted(dir));
  INFO("stderr: " << result.err);
  REQUIRE(result.exit_code == 0);

  std::istringstream csv(test::read_file(dir / "sweep.csv"));
  std::string line;
  std::getline(csv, line);
  REQUIRE(line ==
          "point,batch,op,status,useful_flops,oi.dram,attainable_flops_per_s,roofline_time_s,bound_by,"
          "sim_time_s,achieved_flops_per_s,ceiling_bound_by.classic,error");
  std::vector<Row> rows;
  while (std::getline(csv, line)) {
    std::vector<std::string> fields;
    std::istringstream in(line);
    std::string field;
    while (std::getline(in, field, ',')) fields.push_back(field);
    if (fields[2] != "linear") continue;
    rows.push_back({std::stod(fields[1]), std::stod(fields[5]), std::stod(fields[6]), fields[8]});
  }
  REQUIRE(rows.size() == 12);  // 1, 2, 4, ..., 2048

  // fp16 compulsory OI of an m x n x k GEMM: 2mnk / (2 (mk + kn + mn)), with m = batch, n = k = 8192.
  const double n = 8192, k = 8192;
  for (const auto& row : rows) {
    CHECK(row.oi == doctest::Approx(row.batch * n * k / (row.batch * k + k * n + row.batch * n)).epsilon(1e-12));
  }
  // The memory line's slope (the bandwidth that binds at low OI) and the compute peak, from the two ends.
  const double bandwidth = rows.front().attainable / rows.front().oi;
  const double peak = rows.back().attainable;
  REQUIRE(memory_bound(rows.front().bound_by));
  REQUIRE(rows.back().bound_by.rfind("compute:", 0) == 0);
  int changes = 0;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const bool expect_memory = rows[i].oi * bandwidth < peak;
    INFO("batch " << rows[i].batch << ": " << rows[i].bound_by);
    CHECK(memory_bound(rows[i].bound_by) == expect_memory);
    if (i > 0 && memory_bound(rows[i].bound_by) != memory_bound(rows[i - 1].bound_by)) ++changes;
  }
  CHECK(changes == 1);
  // The H100's ridge (989 TFLOP/s over ~3 TB/s, about 300 FLOP/B) lies between batch 256 and batch 512.
  CHECK(memory_bound(rows[8].bound_by));
  CHECK_FALSE(memory_bound(rows[9].bound_by));
}

TEST_CASE("in run mode the batch sweep's classic ceiling flips at the ridge and no point beats its roof") {
  const auto dir = test::scratch_dir("sweep-ridge-run");
  // The bundled study's workload at the two batches either side of the ridge (about 295 FLOP/B on an H100).
  const auto file = test::write_file(dir / "ridge.toml", R"([sweep]
name = "ridge"
hardware = "H100-SXM5"
workload = ")" + (test::source_dir() / "sweeps" / "workloads" / "gemm_batch.toml").string() +
                                                             R"("
metrics = ["useful_flops", "bytes.dram", "sim_time_s", "ceiling_bound_by.classic"]

[[axis]]
key = "workload.params.batch"
values = [256, 512]
)");
  const auto result = test::run_roofsim("sweep " + test::quoted(file) + " --jobs 2 --out " + test::quoted(dir / "out"));
  INFO("stderr: " << result.err);
  REQUIRE(result.exit_code == 0);
  std::istringstream csv(test::read_file(dir / "out" / "sweep.csv"));
  std::string line;
  std::vector<std::vector<std::string>> rows;
  while (std::getline(csv, line)) {
    std::vector<std::string> fields;
    std::istringstream in(line);
    std::string field;
    while (std::getline(in, field, ',')) fields.push_back(field);
    // point, batch, op, status, useful_flops, bytes.dram, sim_time_s, ceiling_bound_by.classic
    if (fields.size() >= 8 && fields[2] == "linear") rows.push_back(fields);
  }
  REQUIRE(rows.size() == 2);
  CHECK(rows[0][7] == "memory:dram");
  CHECK(rows[1][7] == "compute:fp16");
  // H100-SXM5 (configs/H100-SXM5.toml): 5 HBM3 stacks x 1024 bits x 5.234 Gb/s and 132 SMs x 4096 fp16 FLOP/cycle
  // x 1.83 GHz; the simulated time is never below the DRAM time of the bytes it moved nor the compute time of its
  // FLOPs.
  const double bandwidth = 5 * 1024 * 5.234e9 / 8, peak = 132 * 4096 * 1.83e9;
  for (const auto& row : rows) {
    INFO("batch " << row[1]);
    const double flops = std::stod(row[4]), dram_bytes = std::stod(row[5]), time_s = std::stod(row[6]);
    CHECK(flops == 2.0 * std::stod(row[1]) * 8192 * 8192);
    CHECK(time_s >= dram_bytes / bandwidth);
    CHECK(time_s >= flops / peak);
  }
}
