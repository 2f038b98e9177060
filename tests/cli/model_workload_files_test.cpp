// A model in workload and sweep files: a workload file built from a model reports what the `--model` invocation it
// stands for reports, byte for byte but the command line, and a sweep over models gives one row per model with the
// ops its graph has.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include <map>
#include <sstream>
#include <string>

#include "tests/cli/sweep_test_files.h"
#include "tests/support/test_paths.h"

using namespace roofsim;

namespace {

// report.json without its command line (the one part that differs between the two invocations).
std::string report_without_command_line(const std::filesystem::path& dir) {
  auto report = nlohmann::ordered_json::parse(test::read_file(dir / "report.json"));
  report.erase("command_line");
  return report.dump(1);
}

}  // namespace

TEST_CASE("a workload file built from a model gives the report of the --model run it stands for") {
  const auto dir = test::scratch_dir("model-template-run");
  const auto file = test::write_file(dir / "decode.toml",
                                     "[workload]\nphase = \"decode\"\nbatch = 4\ncontext = 1024\nlayers = 2\n\n"
                                     "[model]\nname = \"llama3_8b\"\n");
  const auto from_file = dir / "file";
  const auto from_model = dir / "model";
  // The command line's --set follows the file's keys and wins (seq is not in the file; batch is). Both runs on the
  // channel DRAM model: the detailed one would take eight times as long and tell the two invocations apart no better.
  const auto a =
      test::run_roofsim("run --hw H100-SXM5 --workload " + test::quoted(file) +
                        " --set workload.batch=8 --set dram.model=simple --quiet --out " + test::quoted(from_file));
  INFO(a.err);
  REQUIRE(a.exit_code == 0);
  const auto b = test::run_roofsim(
      "run --hw H100-SXM5 --model llama3_8b --set workload.phase=decode --set workload.batch=4 "
      "--set workload.context=1024 --set workload.layers=2 --set workload.batch=8 --set dram.model=simple --quiet "
      "--out " +
      test::quoted(from_model));
  INFO(b.err);
  REQUIRE(b.exit_code == 0);
  CHECK(report_without_command_line(from_file) == report_without_command_line(from_model));
  for (const char* name : {"ops.csv", "trace.json"}) {
    CAPTURE(name);
    CHECK(test::read_file(from_file / name) == test::read_file(from_model / name));
  }
  const auto report = nlohmann::json::parse(test::read_file(from_file / "report.json"));
  CHECK(report["model"]["layout"].dump().size() > 2);

  // The bundled example, analytically, against its --model twin.
  const auto c = test::run_roofsim("roofline --hw H100-SXM5 --workload llama3_70b_decode_tp8 --out " +
                                   test::quoted(dir / "bundled-file"));
  INFO(c.err);
  REQUIRE(c.exit_code == 0);
  const auto d = test::run_roofsim(
      "roofline --hw H100-SXM5 --model llama3_70b --set workload.phase=decode --set workload.batch=8 "
      "--set workload.context=4096 --set workload.tp=8 --out " +
      test::quoted(dir / "bundled-model"));
  REQUIRE(d.exit_code == 0);
  CHECK(report_without_command_line(dir / "bundled-file") == report_without_command_line(dir / "bundled-model"));
}

TEST_CASE("a workload file built from a model: a bad key is exit 2 naming file:line, the key and what was expected") {
  const auto dir = test::scratch_dir("model-template-bad");
  const auto file = test::write_file(dir / "bad.toml",
                                     "[workload]\nphase = \"decode\"\n\nbatchh = 8\n\n[model]\n"
                                     "name = \"llama3_8b\"\n");
  for (const char* command : {"run", "roofline", "validate"}) {
    CAPTURE(command);
    const std::string args = std::string(command) == "validate"
                                 ? "validate " + test::quoted(file)
                                 : std::string(command) + " --hw H100-SXM5 --workload " + test::quoted(file) +
                                       " --out " + test::quoted(dir / command);
    const auto result = test::run_roofsim(args);
    CHECK(result.exit_code == 2);
    CHECK(result.err.find("bad.toml:4") != std::string::npos);
    CHECK(result.err.find("batchh") != std::string::npos);
  }
  const auto listed = test::run_roofsim("list --keys");
  CHECK(listed.out.find("workload file built from a model (top-level [model])") != std::string::npos);
  CHECK(listed.out.find("model.name") != std::string::npos);
}

TEST_CASE("a sweep over models gives one row per model with the ops of its graph") {
  const auto dir = test::scratch_dir("model-sweep");
  const auto sweep = test::write_file(dir / "models.toml", R"([sweep]
name = "models"
mode = "roofline"
hardware = "H100-SXM5"
set = ["workload.phase=decode", "workload.batch=8", "workload.context=1024", "workload.layers=2",
       "workload.dtype=fp8"]
metrics = ["useful_flops", "bytes.dram"]

[[axis]]
key = "model"
values = ["llama3_8b", "mixtral_8x7b", "llama3_70b"]
)");
  const auto out = dir / "out";
  const auto result =
      test::run_roofsim("sweep " + test::quoted(sweep) + " --jobs 2 --quiet --out " + test::quoted(out));
  INFO(result.err);
  REQUIRE(result.exit_code == 0);
  // Per point: the ops of report.json, the rows of sweep.csv (its ops) and of sweep_totals.csv (its total).
  const auto rows_per_model = [&](const char* file, const char* header) {
    std::map<std::string, std::size_t> rows;
    std::istringstream csv(test::read_file(out / file));
    std::string line;
    std::getline(csv, line);
    CHECK(line.rfind(header, 0) == 0);
    while (std::getline(csv, line)) {
      const auto first = line.find(',');
      const auto second = line.find(',', first + 1);
      ++rows[line.substr(first + 1, second - first - 1)];
    }
    return rows;
  };
  auto rows = rows_per_model("sweep.csv", "point,model,op,status");
  auto totals = rows_per_model("sweep_totals.csv", "point,model,");
  // Dense Llama: 11 ops a block (norm, QKV, rotary, attention, output, residual; norm, up, activation, down,
  // residual); Mixtral's blocks route to experts: router, softmax, top-k, permute, 8 experts x (up, activation,
  // down) with 8 x 2 assignments spread over all 8, unpermute, weighted sum instead of the MLP's 3 ops. Each graph
  // adds the embedding, the final norm and the LM head.
  const std::map<std::string, std::size_t> ops = {
      {"llama3_8b", 2 * 11 + 3}, {"mixtral_8x7b", 2 * (11 - 3 + 3 + 1 + 24 + 2) + 3}, {"llama3_70b", 2 * 11 + 3}};
  for (const auto& [model, count] : ops) {
    CAPTURE(model);
    CHECK(totals[model] == 1);
    CHECK(rows[model] == count);
  }
  for (std::size_t point = 0; point < 3; ++point) {
    const auto report =
        nlohmann::json::parse(test::read_file(out / "points" / ("p000" + std::to_string(point)) / "report.json"));
    const auto model = report["workload"]["name"].get<std::string>();
    CAPTURE(model);
    CHECK(report["ops"].size() == ops.at(model.substr(0, model.find(".decode"))));
  }
}
