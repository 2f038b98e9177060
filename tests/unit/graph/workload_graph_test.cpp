// Building the DAG: inferred edges, stable topological order, cycles and unknown names as errors naming the op,
// parameters and overrides, tensor shapes and addresses.
#include <doctest/doctest.h>

#include <algorithm>

#include "sim/graph/workload.h"
#include "tests/unit/graph/graph_test_files.h"

using namespace roofsim;

namespace {

struct Loaded {
  std::filesystem::path file;
  HardwareParams hardware;
};

Loaded prepare(const std::string& name, const std::string& text) {
  const auto dir = test::scratch_dir("graph-" + name);
  return {test::write_file(dir, name + ".toml", text), load_hardware(test::write_test_hardware(dir))};
}

Workload load_text(const std::string& name, const std::string& text, const std::vector<Override>& overrides = {}) {
  const auto loaded = prepare(name, text);
  return load_workload(loaded.file, overrides, loaded.hardware);
}

std::string error_of(const std::string& name, const std::string& text, const std::vector<Override>& overrides = {}) {
  try {
    (void)load_text(name, text, overrides);
  } catch (const InputError& error) {
    return error.what();
  }
  return "(no error)";
}

std::vector<std::string> op_names(const Workload& workload) {
  std::vector<std::string> names;
  for (const auto& op : workload.ops) names.push_back(op.name);
  return names;
}

const char* kChain = R"(
[workload]
name = "chain"
[params]
tokens = "batch*seq"
batch = 2
seq = 64
hidden = 256
[[op]]
name = "late"
kind = "elementwise"
elements = "tokens*hidden"
inputs = ["h"]
outputs = ["y"]
[[op]]
name = "independent"
kind = "elementwise"
elements = 16
[[op]]
name = "proj"
kind = "gemm"
m = "tokens"
n = "hidden"
k = "hidden"
inputs = ["x", "w"]
outputs = ["h"]
[[tensor]]
name = "x"
shape = ["tokens", "hidden"]
[[tensor]]
name = "w"
shape = ["hidden", "hidden"]
dtype = "fp16"
resident = true
)";

}  // namespace

TEST_CASE("edges run from producer to consumer, the order is topological and otherwise follows the file") {
  const auto workload = load_text("chain", kChain);
  CHECK(op_names(workload) == std::vector<std::string>{"independent", "proj", "late"});
  const Op& late = *workload.find_op("late");
  CHECK(late.after == std::vector<std::size_t>{1});
  CHECK(workload.find_op("proj")->after.empty());
  CHECK(workload.find_op("proj")->useful_flops == 2ULL * 128 * 256 * 256);
  CHECK(workload.find_tensor("h")->shape == std::vector<std::uint64_t>{128, 256});
  CHECK(workload.find_tensor("w")->resident);
  CHECK(workload.find_op("proj")->resident_bytes_read == 2 * 256 * 256);
  CHECK(workload.find_op("late")->resident_bytes_read == 0);
}

TEST_CASE("an explicit after list adds an edge") {
  std::string text = kChain;
  text += "[[op]]\nname = \"last\"\nkind = \"elementwise\"\nelements = 8\nafter = [\"late\"]\n";
  const auto workload = load_text("after", text);
  CHECK(op_names(workload).back() == "last");
  CHECK(workload.find_op("last")->after == std::vector<std::size_t>{2});
}

TEST_CASE("tensor addresses are aligned, disjoint, in order of first use, and the same on every load") {
  const auto first = load_text("addresses", kChain);
  const auto second = load_text("addresses", kChain);
  REQUIRE(first.tensors.size() == second.tensors.size());
  Bytes end = 0;
  for (std::size_t i = 0; i < first.tensors.size(); ++i) {
    const auto& tensor = first.tensors[i];
    CHECK(tensor.address % kTensorAlignmentBytes == 0);
    CHECK(tensor.address >= end);
    end = tensor.address + tensor.bytes;
    CHECK(tensor.address == second.tensors[i].address);
    CHECK(tensor.name == second.tensors[i].name);
  }
  CHECK(first.footprint_bytes >= end);
  CHECK(first.footprint_bytes % kTensorAlignmentBytes == 0);
}

TEST_CASE("overrides set parameters and dependent parameters and shapes follow") {
  const auto workload = load_text("override", kChain, {{"params.batch", "8"}});
  CHECK(workload.find_op("proj")->shape.m == 8 * 64);
  CHECK(workload.find_op("late")->shape.elements == 8ULL * 64 * 256);
  CHECK_THROWS_WITH_AS(load_text("override-unknown", kChain, {{"params.batch.x", "8"}}),
                       doctest::Contains("params.batch.x"), InputError);
  CHECK_THROWS_WITH_AS(load_text("override-bad", kChain, {{"ops.m", "8"}}), doctest::Contains("ops.m"), InputError);
}

TEST_CASE("a cycle is an error that names the ops on it") {
  const auto error = error_of("cycle", R"(
[workload]
name = "cycle"
[[op]]
name = "start"
kind = "elementwise"
elements = 4
outputs = ["s"]
[[op]]
name = "a"
kind = "elementwise"
elements = 4
inputs = ["s", "c_out"]
outputs = ["a_out"]
[[op]]
name = "b"
kind = "elementwise"
elements = 4
inputs = ["a_out"]
outputs = ["b_out"]
[[op]]
name = "c"
kind = "elementwise"
elements = 4
inputs = ["b_out"]
outputs = ["c_out"]
)");
  CHECK(error.find("cycle") != std::string::npos);
  CHECK(error.find("'a' -> 'b' -> 'c' -> 'a'") != std::string::npos);
  CHECK(error.find("'start'") == std::string::npos);
  CHECK(error.find(".toml:") != std::string::npos);
}

TEST_CASE("an op that waits for itself is a cycle of one") {
  const auto error = error_of("self", R"(
[workload]
name = "self"
[[op]]
name = "loop"
kind = "elementwise"
elements = 4
after = ["loop"]
)");
  CHECK(error.find("'loop' -> 'loop'") != std::string::npos);
}

TEST_CASE("an unknown input tensor, an unknown after op and a second producer are errors naming the op") {
  const std::string head =
      "[workload]\nname = \"bad\"\n[[op]]\nname = \"first\"\nkind = \"elementwise\"\nelements = 4\n";
  auto error = error_of("unknown-tensor", head + "inputs = [\"nowhere\"]\n");
  CHECK(error.find("op 'first'") != std::string::npos);
  CHECK(error.find("'nowhere'") != std::string::npos);
  error = error_of("unknown-after", head + "after = [\"ghost\"]\n");
  CHECK(error.find("op 'first'") != std::string::npos);
  CHECK(error.find("ghost") != std::string::npos);
  error = error_of("two-producers",
                   head +
                       "outputs = [\"t\"]\n[[op]]\nname = \"second\"\nkind = \"elementwise\"\nelements = 4\n"
                       "outputs = [\"t\"]\n");
  CHECK(error.find("op 'second'") != std::string::npos);
  CHECK(error.find("'first'") != std::string::npos);
  error = error_of("duplicate-name", head + "[[op]]\nname = \"first\"\nkind = \"elementwise\"\nelements = 4\n");
  CHECK(error.find("op 'first'") != std::string::npos);
  CHECK(error.find("unique") != std::string::npos);
}

TEST_CASE("an expression with an unknown parameter names the op, the key and the file position") {
  const auto error = error_of("unknown-param", R"(
[workload]
name = "p"
[params]
batch = 4
[[op]]
name = "qkv"
kind = "gemm"
m = "batch*sq"
n = 64
k = 64
)");
  CHECK(error.find("op 'qkv': key 'm'") != std::string::npos);
  CHECK(error.find("unknown parameter 'sq'") != std::string::npos);
  CHECK(error.find("unknown-param.toml:9:") != std::string::npos);
  CHECK(error.find("batch") != std::string::npos);  // the known parameters are listed
}

TEST_CASE("parameter errors: self-reference, negative shapes, missing shape keys, mismatched declared tensors") {
  auto error = error_of("self-param",
                        "[workload]\nname = \"p\"\n[params]\na = \"b+1\"\nb = \"a*2\"\n"
                        "[[op]]\nname = \"e\"\nkind = \"elementwise\"\nelements = \"a\"\n");
  CHECK(error.find("depend") != std::string::npos);
  error = error_of("negative",
                   "[workload]\nname = \"p\"\n[params]\na = 3\n"
                   "[[op]]\nname = \"e\"\nkind = \"elementwise\"\nelements = \"a-5\"\n");
  CHECK(error.find("op 'e': key 'elements'") != std::string::npos);
  CHECK(error.find("-2") != std::string::npos);
  error = error_of("missing-k", "[workload]\nname = \"p\"\n[[op]]\nname = \"g\"\nkind = \"gemm\"\nm = 4\nn = 4\n");
  CHECK(error.find("op 'g': key 'k'") != std::string::npos);
  error = error_of("mismatch",
                   "[workload]\nname = \"p\"\n[[tensor]]\nname = \"a\"\nshape = [4, 5]\n"
                   "[[op]]\nname = \"g\"\nkind = \"gemm\"\nm = 4\nn = 4\nk = 4\ninputs = [\"a\", \"b\"]\n"
                   "[[tensor]]\nname = \"b\"\nshape = [4, 4]\n");
  CHECK(error.find("op 'g'") != std::string::npos);
  CHECK(error.find("'a'") != std::string::npos);
  error = error_of("unknown-key", "[workload]\nname = \"p\"\n[[op]]\nname = \"g\"\nkind = \"gemm\"\nmm = 4\n");
  CHECK(error.find("op[0].mm") != std::string::npos);
  error = error_of("bad-kind", "[workload]\nname = \"p\"\n[[op]]\nname = \"g\"\nkind = \"matmul\"\n");
  CHECK(error.find("gemm|conv2d") != std::string::npos);
}

TEST_CASE("a count that would overflow 64 bits is an error naming the op, never a wrapped number") {
  const auto error = error_of("overflow",
                              "[workload]\nname = \"o\"\n[[op]]\nname = \"huge\"\nkind = \"gemm\"\n"
                              "m = \"2**30\"\nn = 1\nk = 1\n");
  CHECK(error.find("op 'huge'") != std::string::npos);  // "**" is not an operator
  const auto overflow = error_of("overflow2",
                                 "[workload]\nname = \"o\"\n[params]\ng = 1073741824\n[[op]]\n"
                                 "name = \"huge\"\nkind = \"gemm\"\nm = \"g\"\nn = \"g\"\nk = 1024\n");
  CHECK(overflow.find("op 'huge'") != std::string::npos);
  CHECK(overflow.find("overflows 64 bits") != std::string::npos);
}

TEST_CASE("a GEMM's decomposition: named by the op or its template, auto by default, anything else an error") {
  const auto workload = load_text("decomposition", R"(
[workload]
name = "decomposition"
[[op]]
name = "split"
kind = "gemm"
m = 64
n = 64
k = 4096
decomposition = "split-k"
[[op]]
name = "chosen"
kind = "gemm"
m = 64
n = 64
k = 4096
[[template]]
name = "mlp"
kind = "mlp"
hidden = 256
seq = 16
decomposition = "data-parallel"
)");
  REQUIRE(workload.ops.size() >= 3);
  CHECK(workload.ops[0].decomposition == GemmDecompositionKind::split_k);
  CHECK_FALSE(workload.ops[1].decomposition.has_value());
  for (std::size_t i = 2; i < workload.ops.size(); ++i) {
    if (workload.ops[i].kind == OpKind::gemm)
      CHECK(workload.ops[i].decomposition == GemmDecompositionKind::data_parallel);
  }
  const auto error = error_of("bad-decomposition", R"(
[workload]
name = "bad"
[[op]]
name = "g"
kind = "gemm"
m = 64
n = 64
k = 64
decomposition = "stream_k"
)");
  CHECK(error.find("decomposition") != std::string::npos);
}
