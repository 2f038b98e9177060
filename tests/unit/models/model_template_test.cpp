// A workload file built from a model ([model] and the model's keys in [workload]): it builds the graph `--model` builds
// with the same keys, overrides win over the file, and a bad file is an error at its line naming the key.
#include <doctest/doctest.h>

#include "sim/core/input_error.h"
#include "sim/graph/model_builder.h"
#include "sim/graph/workload.h"
#include "sim/graph/workload_model_template.h"
#include "tests/support/test_paths.h"

using namespace roofsim;

namespace {

const char* kTemplate = R"([workload]
description = "Llama 3 8B decode"
phase = "decode"
batch = 4
context = 1024
layers = 2
tp = 2

[model]
name = "llama3_8b"
)";

std::string error_of(const std::filesystem::path& file) {
  try {
    (void)read_model_template(file);
  } catch (const InputError& error) {
    return error.what();
  }
  return "";
}

}  // namespace

TEST_CASE("a workload file built from a model is the graph --model builds with its keys") {
  const auto dir = test::scratch_dir("model-template-graph");
  const auto file = test::write_file(dir / "decode.toml", kTemplate);
  CHECK(is_model_template(file));
  CHECK_FALSE(is_model_template(test::workload_path("gemm.toml")));
  CHECK_FALSE(is_model_template(dir / "absent.toml"));

  const auto read = read_model_template(file);
  CHECK(read.model == "llama3_8b");
  CHECK(read.description == "Llama 3 8B decode");
  REQUIRE(read.settings.size() == 5);
  CHECK(read.settings[0].key == "phase");
  CHECK(read.settings[4].value == "2");

  ModelWorkloadArgs args;
  args.phase = ModelPhase::decode;
  args.batch = 4;
  args.context = 1024;
  args.layers = 2;
  args.tp = 2;
  const auto direct = build_model_workload(load_model_config(resolve_model_file("llama3_8b")), args);
  const auto built = build_workload(file, {});
  CHECK(built.name == direct.workload.name);
  CHECK(built.file == direct.workload.file);
  REQUIRE(built.ops.size() == direct.workload.ops.size());
  // Two blocks of 13 ops (norm, QKV, rotary, attention, output, its all-reduce, residual; norm, up, activation, down,
  // its all-reduce, residual), the embedding, the final norm and the LM head.
  CHECK(built.ops.size() == 2 * 13 + 3);
  for (std::size_t i = 0; i < built.ops.size(); ++i) {
    CAPTURE(built.ops[i].name);
    CHECK(built.ops[i].name == direct.workload.ops[i].name);
    CHECK(built.ops[i].useful_flops == direct.workload.ops[i].useful_flops);
    CHECK(built.ops[i].bytes_read == direct.workload.ops[i].bytes_read);
  }
  CHECK(built.total_compulsory_bytes() == direct.workload.total_compulsory_bytes());

  // An override (a model key, as --set workload.batch gives it without the prefix) wins over the file.
  args.batch = 16;
  const auto direct16 = build_model_workload(load_model_config(resolve_model_file("llama3_8b")), args);
  const auto built16 = build_workload(file, {Override{"batch", "16"}});
  CHECK(built16.total_useful_flops() == direct16.workload.total_useful_flops());
  CHECK(built16.total_useful_flops() != built.total_useful_flops());
}

TEST_CASE("a model's config file is taken relative to the workload file") {
  const auto dir = test::scratch_dir("model-template-file");
  std::filesystem::create_directories(dir / "configs");
  std::filesystem::copy_file(test::workload_path("models/llama3_8b.json"), dir / "configs" / "mine.json",
                             std::filesystem::copy_options::overwrite_existing);
  const auto file = test::write_file(dir / "mine.toml",
                                     "[workload]\nphase = \"prefill\"\nseq = 128\nlayers = 1\n\n[model]\n"
                                     "file = \"configs/mine.json\"\n");
  const auto read = read_model_template(file);
  CHECK(read.model == (dir / "configs" / "mine.json").lexically_normal().string());
  // One block of 11 ops, the embedding, the final norm, the last token's rows and the LM head.
  CHECK(build_workload(file, {}).ops.size() == 11 + 4);
}

TEST_CASE("a bad workload file built from a model is an error at its line naming the key and what was expected") {
  const auto dir = test::scratch_dir("model-template-errors");
  const auto unknown = test::write_file(dir / "unknown.toml",
                                        "[workload]\nphase = \"decode\"\nbatchh = 8\n\n"
                                        "[model]\nname = \"llama3_8b\"\n");
  auto message = error_of(unknown);
  CHECK(message.find("unknown.toml:3") != std::string::npos);
  CHECK(message.find("batchh") != std::string::npos);
  CHECK(message.find("batch") != std::string::npos);

  const auto zero = test::write_file(dir / "zero.toml", "[workload]\ntp = 0\n\n[model]\nname = \"llama3_8b\"\n");
  message = error_of(zero);
  CHECK(message.find("zero.toml:2") != std::string::npos);
  CHECK(message.find("'workload.tp' = 0: expected an integer") != std::string::npos);

  const auto phase = test::write_file(dir / "phase.toml", "[workload]\nphase = \"serve\"\n\n[model]\nname = \"x\"\n");
  CHECK(error_of(phase).find("phase.toml:2") != std::string::npos);

  const auto type = test::write_file(dir / "type.toml", "[workload]\nbatch = \"8\"\n\n[model]\nname = \"llama3_8b\"\n");
  CHECK(error_of(type).find("type.toml:2") != std::string::npos);

  const auto none = test::write_file(dir / "none.toml", "[workload]\nphase = \"decode\"\n\n[model]\n");
  CHECK(error_of(none).find("one of name") != std::string::npos);

  const auto both =
      test::write_file(dir / "both.toml", "[workload]\n\n[model]\nname = \"llama3_8b\"\nfile = \"a.json\"\n");
  message = error_of(both);
  CHECK(message.find("both.toml:5") != std::string::npos);
  CHECK(message.find("not both") != std::string::npos);

  const auto absent = test::write_file(dir / "absent.toml", "[workload]\n\n[model]\nname = \"llama9_8b\"\n");
  message = error_of(absent);
  CHECK(message.find("absent.toml:4") != std::string::npos);
  CHECK(message.find("a bundled model") != std::string::npos);

  // A key of the op-and-template files is not a key of a model's workload.
  const auto params =
      test::write_file(dir / "params.toml", "[workload]\nname = \"x\"\n\n[model]\nname = \"llama3_8b\"\n");
  CHECK(error_of(params).find("params.toml:2") != std::string::npos);
}
