#pragma once
// Memoized op execution, the plain part: an op instance's signature and the store of recorded results.
//
// Two instances of an op behave alike when they run the same lowering (kind, shapes, data type, tiling, kernel
// schedule, engine) on the same device (one store serves one set of hardware parameters, `--set` included, and its
// DRAM model) at the same compute clock state, and find the memory they read in the same state. That state is
// classed, per input tensor and cache level, by the bytes of the tensor resident there at launch as a fraction of
// the op's compulsory bytes, rounded to 1/kResidencyClasses: the bytes an op finds on chip decide its misses, so two
// instances of one class differ in DRAM traffic by at most 1/(2 kResidencyClasses) of what the op moves (0.8%), while
// the rounding lets layer 2 of a model reuse layer 1. The fill of each cache level (kFillClasses) keeps a cold first
// layer apart. The DRAM's open rows are not part of the state: an op opens
// thousands of rows and the few a previous op left open change its row-hit count by a few in thousands (measured by
// the accuracy tests of tests/scenario/memoized_execution_test.cpp, which compare with --exact).
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "models/compute/op_execution.h"
#include "models/compute/tile_spans.h"
#include "models/dram/engine_dram_adapter.h"
#include "models/memory/memory_system.h"
#include "models/power/governor_policy.h"

namespace roofsim {

inline constexpr std::uint64_t kResidencyClasses = 64;
// How full each cache level is, in classes of 1/kFillClasses of its capacity: a cold cache's empty ways take an op's
// fills without evicting what it will read again.
inline constexpr std::uint64_t kFillClasses = 16;

// resident / total rounded to the nearest class (0 .. kResidencyClasses, resident clipped to total); `total` 0 counts
// as nothing resident.
[[nodiscard]] std::uint64_t residency_class(Bytes resident, Bytes total);

// Bytes of [address, address + bytes) in the valid sectors of a block (block start, valid sector mask).
[[nodiscard]] Bytes valid_bytes_in(Bytes block_address, std::uint64_t valid, Bytes sector_bytes, Bytes address,
                                   Bytes bytes);

// What a recorded op did, relative to its start: everything collect_run_result and the power domain read of it, and
// the cache contents it left that belong to its own tensors.
struct OpRecord {
  TimeFs duration_fs = 0;  // start (launch latency over) to end
  PhaseWork executed_work;
  Flops executed_flops = 0;
  std::uint64_t tiles_done = 0;
  std::vector<Bytes> bytes;
  TimeFs latency_fs = 0, queueing_fs = 0;
  std::vector<TimeFs> busy_at_state_fs;
  std::vector<UnitResidency> units;   // times relative to the start
  std::vector<LevelCounters> levels;  // what the SRAM levels counted over the op (port busy time included)
  Bytes dram_read_bytes = 0, dram_written_bytes = 0;
  bool detailed_dram = false;
  OpDramCounters dram;
  Bytes dram_asked_burst_bytes = 0;
  std::vector<TileSpan> spans;  // times relative to the start
  // The compute clock's changes while it ran and the governor policy's state at its end, relative to the start.
  ClockTrajectory clock;
  // A block of one of the op's tensors (`tensor`: index into its inputs, outputs, then scratch) resident at its end.
  struct Resident {
    std::uint32_t level = 0, array = 0, tensor = 0;
    std::int64_t offset = 0;  // block start - tensor start
    std::uint64_t valid = 0;
    std::uint64_t last_use = 0;
  };
  std::vector<Resident> resident;  // oldest use first
};

// Recorded results by signature, shared by the devices of one run (the ranks of a cluster run the same hardware).
class OpMemoStore {
 public:
  [[nodiscard]] const OpRecord* find(const std::string& signature) const {
    const auto it = records_.find(signature);
    return it == records_.end() ? nullptr : it->second.get();
  }
  // Keeps the first record of a signature.
  void insert(const std::string& signature, std::unique_ptr<OpRecord> record) {
    records_.emplace(signature, std::move(record));
  }
  [[nodiscard]] std::size_t size() const { return records_.size(); }

  // Counts over the run: ops simulated and recorded, simulated (not alone or a clock change), and replayed.
  std::uint64_t recorded = 0, simulated = 0, replayed = 0;
  // Steady-state fast-forward inside ops (sim/engine/wave_fast_forward.h): on or off, ops it skipped waves of, waves.
  bool fast_forward = false;
  std::uint64_t fast_forwarded = 0, skipped_waves = 0;

 private:
  std::unordered_map<std::string, std::unique_ptr<OpRecord>> records_;
};

}  // namespace roofsim
