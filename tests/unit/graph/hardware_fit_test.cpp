// Ops against a device: a missing data type or engine, or a minimal tile larger than the local SRAM, is an input
// error naming the op.
#include <doctest/doctest.h>

#include "sim/graph/hardware_check.h"
#include "sim/graph/lowering.h"
#include "sim/graph/workload.h"
#include "tests/unit/graph/graph_test_files.h"

using namespace roofsim;

namespace {

std::string error_of(const std::string& name, const std::string& ops, const test::TestHardwareOptions& options = {}) {
  const auto dir = test::scratch_dir("graph-" + name);
  const auto hardware = load_hardware(test::write_test_hardware(dir, options));
  const auto file = test::write_file(dir, name + ".toml", "[workload]\nname = \"w\"\n" + ops);
  try {
    (void)load_workload(file, {}, hardware);
  } catch (const InputError& error) {
    return error.what();
  }
  return "(no error)";
}

const char* kFp8Gemm = "[[op]]\nname = \"fp8_gemm\"\nkind = \"gemm\"\ndtype = \"fp8\"\nm = 64\nn = 64\nk = 64\n";

}  // namespace

TEST_CASE("a data type the device lacks is an error naming the op") {
  CHECK(error_of("fp8-ok", kFp8Gemm) == "(no error)");
  test::TestHardwareOptions no_fp8;
  no_fp8.fp8 = false;
  const auto error = error_of("fp8-missing", kFp8Gemm, no_fp8);
  CHECK(error.find("op 'fp8_gemm'") != std::string::npos);
  CHECK(error.find("fp8") != std::string::npos);
  CHECK(error.find("fp8-missing.toml:3:") != std::string::npos);
}

TEST_CASE("a named engine must exist and support the op's data type") {
  auto error = error_of("engine-missing", std::string(kFp8Gemm) + "engine = \"tensor\"\n");
  CHECK(error.find("op 'fp8_gemm'") != std::string::npos);
  CHECK(error.find("'tensor'") != std::string::npos);
  CHECK(error.find("matrix, vector") != std::string::npos);
  error = error_of("engine-dtype", std::string(kFp8Gemm) + "engine = \"vector\"\n");
  CHECK(error.find("op 'fp8_gemm'") != std::string::npos);
  CHECK(error.find("'vector'") != std::string::npos);
  // Data movement computes nothing: an fp8 gather runs without an fp8 engine.
  test::TestHardwareOptions no_fp8;
  no_fp8.fp8 = false;
  CHECK(error_of("gather-fp8",
                 "[[op]]\nname = \"g\"\nkind = \"embedding\"\ndtype = \"fp8\"\nrows = 4\ncols = 8\n"
                 "vocab = 100\n",
                 no_fp8) == "(no error)");
}

TEST_CASE("the minimal GEMM tile: A and B of one k-step, clipped to the op, accumulators in registers") {
  const auto dir = test::scratch_dir("graph-tile");
  const auto hardware = load_hardware(test::write_test_hardware(dir));
  Op gemm;
  gemm.name = "g";
  gemm.kind = OpKind::gemm;
  gemm.dtype = DataType::fp16;
  gemm.shape.m = 4096;
  gemm.shape.n = 4096;
  gemm.shape.k = 4096;
  // The device's default tile 128x128x64.
  CHECK(minimal_tile(gemm, hardware).bytes == (128 * 64 + 64 * 128) * 2);
  gemm.shape.n = 8;  // clipped to the op
  CHECK(minimal_tile(gemm, hardware).bytes == (128 * 64 + 64 * 8) * 2);
  gemm.tile = TileShape{256, 256, 128};
  gemm.shape.n = 4096;
  CHECK(minimal_tile(gemm, hardware).bytes == (256 * 128 + 128 * 256) * 2);
  gemm.dtype = DataType::fp64;
  gemm.tile = TileShape{16, 16, 16};
  CHECK(minimal_tile(gemm, hardware).bytes == (16 * 16 + 16 * 16) * 8);
}

TEST_CASE("a default tile too large for a wide type is cut to fit double-buffered, and the check uses the cut tile") {
  test::TestHardwareOptions options;
  options.local_capacity = "64KiB";
  options.default_tile = "m = 128\nn = 128\nk = 64\n";
  const auto dir = test::scratch_dir("graph-tile-fp64");
  const auto hardware = load_hardware(test::write_test_hardware(dir, options));
  Op gemm;
  gemm.name = "g";
  gemm.kind = OpKind::gemm;
  gemm.dtype = DataType::fp16;
  gemm.shape.m = 4096;
  gemm.shape.n = 4096;
  gemm.shape.k = 4096;
  // fp16: 2 x (128 x 64 + 64 x 128) x 2 B = 64 KiB fits as it is.
  const auto fp16 = choose_gemm_tile(gemm, hardware);
  CHECK((fp16.m == 128 && fp16.n == 128 && fp16.k == 64));
  // fp64: 256 KiB; k halves to 16 (64 KiB x 4 / 4), still 64 KiB: fits.
  gemm.dtype = DataType::fp64;
  const auto fp64 = choose_gemm_tile(gemm, hardware);
  CHECK((fp64.m == 128 && fp64.n == 128 && fp64.k == 16));
  CHECK(2 * (fp64.m * fp64.k + fp64.k * fp64.n) * 8 <= 64 * 1024);
  CHECK(minimal_tile(gemm, hardware).bytes == (128 * 16 + 16 * 128) * 8);
}

TEST_CASE("an op whose minimal tile does not fit the local SRAM is an error naming the op") {
  const std::string big_tile =
      "[[op]]\nname = \"huge_tile\"\nkind = \"gemm\"\nm = 4096\nn = 4096\nk = 4096\n"
      "[op.tile]\nm = 256\nn = 256\nk = 256\n";
  auto error = error_of("tile-too-big", big_tile);
  CHECK(error.find("op 'huge_tile'") != std::string::npos);
  CHECK(error.find("smem") != std::string::npos);
  CHECK(error.find("256 KiB") != std::string::npos);
  test::TestHardwareOptions roomy;
  roomy.local_capacity = "512KiB";
  CHECK(error_of("tile-fits", big_tile, roomy) == "(no error)");

  error = error_of("long-row", "[[op]]\nname = \"wide_softmax\"\nkind = \"softmax\"\nrows = 2\ncols = 1048576\n");
  CHECK(error.find("op 'wide_softmax'") != std::string::npos);
  CHECK(error.find("one row") != std::string::npos);

  test::TestHardwareOptions tiny;
  tiny.local_capacity = "16KiB";
  error = error_of("attention-block",
                   "[[op]]\nname = \"attn\"\nkind = \"attention\"\nheads = 8\nseq_q = 1024\n"
                   "head_dim = 256\n",
                   tiny);
  // 16 + 2x16 rows of 256 fp16 (24 KiB) and the fp32 scores and output (17 KiB) exceed 16 KiB.
  CHECK(error.find("op 'attn'") != std::string::npos);
}
