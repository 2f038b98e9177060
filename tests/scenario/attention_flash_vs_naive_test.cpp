// Flash vs naive attention at sequence length 8192 on the bundled H100: naive attention moves its
// score matrix through DRAM (S written, read, P written, read: 4 x b h s^2 e bytes), flash keeps it on chip, so
// flash moves about that much less and takes less time.
#include <doctest/doctest.h>

#include "sim/config/hardware_params.h"
#include "sim/engine/engine.h"
#include "tests/scenario/attention_workload.h"
#include "tests/support/relative.h"
#include "tests/support/test_paths.h"

using namespace roofsim;

TEST_CASE("Flash vs naive attention at seq 8192: fewer DRAM bytes by about the score traffic, and less time") {
  // The channel DRAM model: the bytes each attention moves are the test's subject, not the DRAM's row timing, which
  // took seven eighths of the run.
  const auto hw = load_hardware(test::config_path("H100-SXM5.toml"), {{"dram.model", "simple"}});
  test::WorkloadBuilder builder;
  test::AttentionSpec spec;
  spec.batch = 1;
  spec.heads = 2;
  spec.kv_heads = 2;
  spec.seq_q = spec.seq_kv = 8192;
  spec.head_dim = 128;
  spec.flash = false;
  test::add_attention(builder, "naive", spec);
  spec.flash = true;
  test::add_attention(builder, "flash", spec);
  const auto result = run_workload(hw, builder.workload());
  const auto dram = [](const OpRunStats& op) {
    Bytes total = 0;
    for (const auto& [level, bytes] : op.bytes) {
      if (level == "dram") total = bytes;
    }
    return static_cast<double>(total);
  };
  const auto& naive = result.ops.at(0);
  const auto& flash = result.ops.at(1);
  const double score_traffic = 4.0 * static_cast<double>(spec.heads) * 8192.0 * 8192.0 * 2.0;
  MESSAGE("DRAM bytes naive " << dram(naive) << ", flash " << dram(flash) << ", difference / score traffic "
                              << (dram(naive) - dram(flash)) / score_traffic << "; time naive " << naive.sim_time_s
                              << " s, flash " << flash.sim_time_s << " s");
  CHECK(dram(flash) < dram(naive));
  // "About": the L2 (50 MiB) keeps a part of the scores between their write and their read back.
  CHECK(test::within(dram(naive) - dram(flash), score_traffic, 0.25));
  CHECK(flash.sim_time_s < naive.sim_time_s);
}
