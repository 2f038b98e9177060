// The cost model that chooses a GEMM's decomposition (sim/graph/gemm_decomposition.h), against closed forms: waves
// of the busiest unit, partial tiles and peers of an even deal, memory at the bandwidth or Little's law, the fix-up's
// reads, and the choice between data-parallel, split-K, stream-K and the hybrids.
#include <doctest/doctest.h>

#include <cstdint>

#include "sim/graph/gemm_decomposition.h"
#include "tests/support/relative.h"
#include "tests/support/test_paths.h"

using namespace roofsim;

namespace {

using Kind = GemmDecompositionKind;

// A unit runs a k-step in 1 ms; no memory or SRAM limit unless a test sets one.
GemmMachine compute_only(std::uint64_t units, std::uint64_t occupancy) {
  GemmMachine machine;
  machine.units = units;
  machine.occupancy = occupancy;
  machine.unit_flops_per_s = 1e12;
  return machine;
}

GemmWork work_of(std::uint64_t output_tiles, std::uint64_t k_steps) {
  GemmWork work;
  work.output_tiles = output_tiles;
  work.k_steps = k_steps;
  work.step_flops = 1'000'000'000;
  work.partial_tile_bytes = 1000;
  return work;
}

bool same(const GemmDecomposition& a, const GemmDecomposition& b) {
  return a.kind == b.kind && a.stream_k_tiles == b.stream_k_tiles &&
         a.stream_k_output_tiles == b.stream_k_output_tiles && a.data_parallel_tiles == b.data_parallel_tiles;
}

}  // namespace

TEST_CASE(
    "decomposition: data-parallel runs ceil(tiles / units) tiles on the busiest unit, whole rounds beyond slots") {
  const auto machine = compute_only(4, 2);
  const auto busiest = [&](std::uint64_t tiles) {
    return predict_gemm_cost({Kind::data_parallel, 0, 0, tiles}, work_of(tiles, 10), machine).busiest_unit_steps;
  };
  CHECK(busiest(3) == 10);
  CHECK(busiest(4) == 10);
  CHECK(busiest(5) == 20);  // two tiles share one unit's engine
  CHECK(busiest(8) == 20);  // 4 units x 2 slots, all started at once
  // The ninth tile takes the first slot that frees; a round of refills may give one unit both its slots.
  CHECK(busiest(9) == 40);
  CHECK(busiest(16) == 40);
  const auto cost = predict_gemm_cost({Kind::data_parallel, 0, 0, 5}, work_of(5, 10), machine);
  CHECK(test::within(cost.compute_s, 20e-3, 1e-12));
  CHECK(cost.partial_tiles == 0);
  CHECK(cost.max_peers == 0);
  CHECK(cost.reduction_s == 0);
  CHECK(cost.predicted_s == cost.compute_s);
}

TEST_CASE("decomposition: an even deal of 2 output tiles x 10 k-steps over 3 tiles: 7 k-steps, 2 partials, 1 peer") {
  const auto machine = compute_only(3, 1);
  // Tiles run k-steps [0, 6), [6, 13), [13, 20): the first two end inside output tiles 0 and 1.
  const auto cost = predict_gemm_cost({Kind::stream_k, 3, 2, 0}, work_of(2, 10), machine);
  CHECK(cost.busiest_unit_steps == 7);
  CHECK(cost.partial_tiles == 2);
  CHECK(cost.max_peers == 1);
  // 2 x 10 over 4 tiles: [0, 5), [5, 10), [10, 15), [15, 20): one partial and one peer per output tile.
  const auto aligned = predict_gemm_cost({Kind::split_k, 4, 2, 0}, work_of(2, 10), compute_only(4, 1));
  CHECK(aligned.busiest_unit_steps == 5);
  CHECK(aligned.partial_tiles == 2);
  CHECK(aligned.max_peers == 1);
  // 1 output tile of 12 k-steps over 4 tiles of 3: three partials, all peers of the fix-up.
  const auto split = predict_gemm_cost({Kind::split_k, 4, 1, 0}, work_of(1, 12), compute_only(4, 1));
  CHECK(split.busiest_unit_steps == 3);
  CHECK(split.partial_tiles == 3);
  CHECK(split.max_peers == 3);
}

TEST_CASE("decomposition: memory moves the operands and partials at the bandwidth, or at Little's law of busy units") {
  auto machine = compute_only(4, 1);
  machine.memory_bytes_per_s = 1e9;
  machine.memory_latency_s = 1e-6;
  machine.unit_bytes_in_flight = 100;  // 1e8 B/s per busy unit
  auto work = work_of(2, 10);
  work.step_flops = 1'000'000;  // 1 us a k-step: memory binds
  work.operand_bytes = 1'000'000;
  work.streamed_bytes = 20 * 1000;  // 1000 B a k-step: a tile's pipeline alone would keep more than 100 B in flight
  // Data-parallel: 2 busy units keep 200 B in flight over 1 us, 2e8 B/s.
  const auto dp = predict_gemm_cost({Kind::data_parallel, 0, 0, 2}, work, machine);
  CHECK(test::within(dp.memory_s, 1e6 / 2e8, 1e-12));
  CHECK(dp.predicted_s == dp.memory_s);
  // Split over 4 units: 4e8 B/s; tiles of 5 k-steps run beside their peers, so the 2 partials of 1000 B are written
  // and read back from memory; the fix-up reads one peer's 1000 B at 100 B / 1 us.
  const auto split = predict_gemm_cost({Kind::split_k, 4, 2, 0}, work, machine);
  CHECK(test::within(split.memory_s, (1e6 + 2 * 2000.0) / 4e8, 1e-12));
  CHECK(test::within(split.reduction_s, 1000 / 1e8, 1e-12));
  CHECK(test::within(split.predicted_s, split.memory_s + split.reduction_s, 1e-12));
}

TEST_CASE("decomposition: a unit keeps in flight the k-steps its resident tiles' pipelines load ahead") {
  auto machine = compute_only(8, 2);
  machine.memory_bytes_per_s = 1e10;
  machine.memory_latency_s = 1e-6;
  machine.unit_bytes_in_flight = 1'000'000;
  auto work = work_of(2, 64);
  work.step_flops = 1000;
  work.operand_bytes = 1'000'000;
  work.streamed_bytes = 2 * 64 * 1000;  // 1000 B a k-step
  work.stages = 3;                      // two k-steps loading ahead of the one computing: 2000 B a tile
  // Data-parallel: 2 units with one tile each, 2 x 2000 B over 1 us: 4e9 B/s.
  const auto dp = predict_gemm_cost({Kind::data_parallel, 0, 0, 2}, work, machine);
  CHECK(test::within(dp.memory_s, 1e6 / 4e9, 1e-12));
  // Stream-K over 16 tiles: 8 units with two tiles each, 3.2e10 B/s, above the line.
  const auto sk = predict_gemm_cost({Kind::stream_k, 16, 2, 0}, work, machine);
  // Tiles of 8 k-steps run beside their peers: 14 partials of 1000 B, written and read back from memory.
  CHECK(sk.partial_tiles == 14);
  CHECK(test::within(sk.memory_s, (1e6 + 2 * 14 * 1000.0) / 1e10, 1e-12));
}

TEST_CASE("decomposition: partials of tiles that span an output tile are read back from the shared SRAM level") {
  auto machine = compute_only(2, 1);
  machine.memory_bytes_per_s = 1e9;
  machine.memory_latency_s = 1e-6;
  machine.shared_sram_bytes_per_s = 1e10;
  machine.shared_sram_latency_s = 1e-7;
  machine.unit_bytes_in_flight = 1000;
  auto work = work_of(3, 10);
  work.operand_bytes = 1'000'000;
  work.streamed_bytes = 2'000'000;
  work.output_bytes = 10'000;
  // 3 output tiles x 10 k-steps over 2 tiles of 15: a tile runs its segments last first, so the fix-up of output
  // tile 1 comes after tile 0 wrote its partial, which the shared level holds.
  const auto cost = predict_gemm_cost({Kind::stream_k, 2, 3, 0}, work, machine);
  CHECK(cost.partial_tiles == 1);
  CHECK(cost.max_peers == 1);
  CHECK(test::within(cost.memory_s, (1e6 + 1000) / 1e9, 1e-12));  // written through, not read back
  CHECK(test::within(cost.on_chip_s, (2e6 + 1e4 + 2 * 1000) / 1e10, 1e-12));
  CHECK(test::within(cost.reduction_s, 1000 / (1000 / 1e-7), 1e-12));
}

TEST_CASE("decomposition: fewer output tiles than units, compute-bound: stream-K over the units") {
  const auto machine = compute_only(8, 2);
  const auto work = work_of(2, 64);
  const auto candidates = gemm_decomposition_candidates(work, machine);
  // Data-parallel, stream-K over 8 and 16 tiles, split-K into 2 to 8 slices.
  REQUIRE(candidates.size() == 10);
  CHECK(same(candidates[0], {Kind::data_parallel, 0, 0, 2}));
  CHECK(same(candidates[1], {Kind::stream_k, 8, 2, 0}));
  CHECK(same(candidates[2], {Kind::stream_k, 16, 2, 0}));
  CHECK(same(candidates[3], {Kind::split_k, 4, 2, 0}));
  CHECK(same(candidates[9], {Kind::split_k, 16, 2, 0}));
  // 128 k-steps over 8 units: 16 each, as stream-K over 8 or 16 tiles or split-K into 4 or 8 slices; the earliest of
  // the equal predictions wins.
  const auto chosen = choose_gemm_decomposition(work, machine);
  CHECK(same(chosen, {Kind::stream_k, 8, 2, 0}));
  CHECK(predict_gemm_cost(chosen, work, machine).busiest_unit_steps == 16);
}

TEST_CASE("decomposition: a memory-bound GEMM whose tiles keep the memory busy stays data-parallel") {
  auto machine = compute_only(8, 2);
  machine.memory_bytes_per_s = 1e9;
  machine.memory_latency_s = 1e-6;
  machine.unit_bytes_in_flight = 1'000'000;  // one unit alone could keep the memory busy
  auto work = work_of(2, 64);
  work.operand_bytes = 1'000'000'000;  // 1 s at the line, against 64 ms of compute
  work.streamed_bytes = 2 * 64 * 1'000'000;
  CHECK(same(choose_gemm_decomposition(work, machine), {Kind::data_parallel, 0, 0, 2}));
  // With 100 B in flight per unit, 2 units reach 2e8 B/s and 8 units 8e8 B/s: stream-K over the units comes closer
  // to the line.
  machine.unit_bytes_in_flight = 100;
  const auto chosen = choose_gemm_decomposition(work, machine);
  CHECK(chosen.kind == Kind::stream_k);
  CHECK(chosen.stream_k_tiles == 8);
}

TEST_CASE("decomposition: full waves and a partial one: the one-tile and two-tile hybrids") {
  const auto machine = compute_only(4, 1);
  // 9 output tiles of 16 k-steps on 4 units: 2 full waves and 1 tile.
  const auto candidates = gemm_decomposition_candidates(work_of(9, 16), machine);
  REQUIRE(candidates.size() == 3);
  CHECK(same(candidates[0], {Kind::data_parallel, 0, 0, 9}));
  CHECK(same(candidates[1], {Kind::hybrid, 4, 1, 8}));  // the last tile's 16 k-steps over 4 tiles of 4
  CHECK(same(candidates[2], {Kind::hybrid, 4, 5, 4}));  // 5 tiles' 80 k-steps over 4 tiles of 20
  CHECK(predict_gemm_cost(candidates[0], work_of(9, 16), machine).busiest_unit_steps == 48);
  CHECK(predict_gemm_cost(candidates[1], work_of(9, 16), machine).busiest_unit_steps == 36);
  CHECK(predict_gemm_cost(candidates[2], work_of(9, 16), machine).busiest_unit_steps == 36);
  // One full wave: the two-tile hybrid is stream-K over all output tiles.
  const auto one_wave = gemm_decomposition_candidates(work_of(5, 16), machine);
  REQUIRE(one_wave.size() == 3);
  CHECK(same(one_wave[2], {Kind::stream_k, 4, 5, 0}));
  // Whole waves only: data-parallel, the one candidate.
  CHECK(gemm_decomposition_candidates(work_of(8, 16), machine).size() == 1);
  // The hybrids beat the three data-parallel waves; the two-tile one's fix-ups have fewer peers.
  auto with_memory = machine;
  with_memory.memory_bytes_per_s = 1e9;
  with_memory.memory_latency_s = 1e-6;
  with_memory.unit_bytes_in_flight = 100;
  const auto chosen = choose_gemm_decomposition(work_of(9, 16), with_memory);
  CHECK(same(chosen, {Kind::hybrid, 4, 5, 4}));
}

TEST_CASE("decomposition: an op's kind restricts the choice, data-parallel when the kind has no candidate") {
  const auto machine = compute_only(8, 2);
  const auto work = work_of(2, 64);
  CHECK(same(choose_gemm_decomposition(work, machine, Kind::data_parallel), {Kind::data_parallel, 0, 0, 2}));
  CHECK(same(choose_gemm_decomposition(work, machine, Kind::split_k), {Kind::split_k, 8, 2, 0}));
  CHECK(same(choose_gemm_decomposition(work, machine, Kind::hybrid), {Kind::data_parallel, 0, 0, 2}));
  CHECK(gemm_decomposition_kind("stream-k") == Kind::stream_k);
  CHECK(gemm_decomposition_kind("split-k") == Kind::split_k);
  CHECK(gemm_decomposition_kind("data-parallel") == Kind::data_parallel);
  CHECK(gemm_decomposition_kind("hybrid") == Kind::hybrid);
  CHECK_FALSE(gemm_decomposition_kind("auto").has_value());
  for (const auto kind : {Kind::data_parallel, Kind::split_k, Kind::stream_k, Kind::hybrid}) {
    CHECK(gemm_decomposition_kind(to_string(kind)) == kind);
  }
}

TEST_CASE("decomposition: the machine of the A100 file, fp16") {
  const auto hw = load_hardware(test::config_path("A100-SXM4-80GB.toml"));
  const auto machine = GemmMachine::of(hw, hw.compute.engine("matrix"), DataType::fp16);
  CHECK(machine.units == 108);
  CHECK(machine.occupancy == 2);
  CHECK(test::within(machine.unit_flops_per_s, 2048 * 1.41e9, 1e-12));
  CHECK(test::within(machine.unit_sram_bytes_per_s, 128 * 1.41e9, 1e-12));     // smem, per SM
  CHECK(test::within(machine.shared_sram_bytes_per_s, 5120 * 1.41e9, 1e-12));  // L2
  CHECK(test::within(machine.shared_sram_latency_s, 260 / 1.41e9, 1e-9));
  CHECK(test::within(machine.memory_bytes_per_s, hw.dram->peak_bandwidth_bytes_per_s(), 1e-12));
  CHECK(test::within(machine.memory_latency_s, 480e-9, 1e-12));
  CHECK(machine.unit_bytes_in_flight == 32 * 4096);
}

// Up to N = 3072 the 9 x N / 128 output tiles fit the 108 x 2 slots. Beyond, data-parallel alone (N a multiple of
// 128 x 12, whole waves, no hybrid) is predicted with its worst round of refills and may lie above the hybrid of the
// next N.
TEST_CASE("decomposition: on the A100 file the chosen prediction never falls as a 2304 x N x 4096 GEMM grows") {
  const auto hw = load_hardware(test::config_path("A100-SXM4-80GB.toml"));
  const auto machine = GemmMachine::of(hw, hw.compute.engine("matrix"), DataType::fp16);
  Seconds previous_s = 0;
  for (std::uint64_t n = 128; n <= 3072; n += 128) {
    // 256 x 128 x 32 tiles: 9 tile rows, n / 128 tile columns, 128 k-steps.
    GemmWork work;
    work.output_tiles = 9 * (n / 128);
    work.k_steps = 4096 / 32;
    work.step_flops = 2 * 256 * 128 * 32;
    const Bytes a = 2304 * 4096 * 2, b = 4096 * n * 2, c = 2304 * n * 2;
    work.streamed_bytes = (n / 128) * a + 9 * b;
    work.operand_bytes = a + b + c;
    work.output_bytes = c;
    work.partial_tile_bytes = 256 * 128 * 4;
    const auto chosen = choose_gemm_decomposition(work, machine);
    const Seconds predicted_s = predict_gemm_cost(chosen, work, machine).predicted_s;
    CHECK(predicted_s >= previous_s);
    previous_s = predicted_s;
  }
}
