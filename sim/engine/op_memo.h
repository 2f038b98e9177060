#pragma once
// Memoized op execution, the plain part: an op instance's signature and the store of recorded results.
//
// Two instances of an op behave alike when they run the same lowering (kind, shapes, data type, tiling, kernel
// schedule, engine) on the same device (one store serves one set of hardware parameters, `--set` included, and its
// DRAM model) and find the memory they read in the same state. The compute clock is not part of it: a record holds
// the op's time as a function of the clock and a replay runs at the clock it is given (ClockScaledWork, op_replay.h).
// The memory's state is classed, per input tensor and cache level, by the bytes of the tensor resident there at
// launch as a fraction of the op's compulsory bytes, rounded to 1/kResidencyClasses: the bytes an op finds on chip
// decide its misses, so two
// instances of one class differ in DRAM traffic by at most 1/(2 kResidencyClasses) of what the op moves (0.8%), while
// the rounding lets layer 2 of a model reuse layer 1. The fill of each cache level (kFillClasses) keeps a cold first
// layer apart.
//
// The DRAM's state at launch and the op's place in the DRAM's address interleave are not part of the signature,
// although with the detailed DRAM they move an op: under --exact the same op varies from layer to layer by up to 3.5%
// (Llama-2 70B TP8 decode: residual1 3.5%, proj 2.3%; Llama-2 7B decode, 32 layers: mlp.down 3.1%, proj 2.8%; with the
// simple DRAM at most 0.4%). Made canonical at every op's start one at a time (a diagnostic build, 7B decode, 16
// layers, every tensor aligned to the interleave), the causes are two, of similar size:
// - the DRAM's launch state: the phase of the per-bank refreshes (every pseudo-channel's fall due on the same cycles),
//   which banks still owe their refresh in the round, and the open rows. Each made canonical alone leaves 1-2% of
//   spread (qkv 1.8%, proj 1.7%, mlp.down 1.4% for the refresh phase); all three, none.
// - the tensors' offsets within the address mapping's interleave (2.5 MiB over which channel, bank group and bank
//   cycle on H100), which move by a layer's footprint from layer to layer, so no two layers of a model share them.
//   With the launch state canonical and the addresses not aligned, 2.5-3% of spread remains (proj, mlp.down).
// Classing them costs the repeats without bounding the error: refresh-phase classes of tREFIsb / 8 and address
// classes of 1/8 of the interleave leave the worst op of the 7B decode at 2.9% (2.5% without), with 117 signatures
// instead of 6 and 43 ops replayed instead of 154; the worst ops are --exact's own outliers, which have no twin, and
// recording the median of a signature's first 3 or 5 instances leaves them as far. What replay costs instead
// (op_replay.h) is measured against --exact on Llama-2 70B TP8 decode, 80 layers: total 0.24%, bytes 0.002%, energy
// 0.17%, the worst op 3.7% (OpMemoStore below replays a signature once two instances agree).
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "models/compute/op_execution.h"
#include "models/compute/tile_spans.h"
#include "models/dram/engine_dram_adapter.h"
#include "models/memory/memory_system.h"
#include "models/power/clock_scaled_work.h"
#include "sim/engine/op_group_memo.h"

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
  // Its time as a function of the compute clock (models/power/clock_scaled_work.h): the clock course it ran at, in
  // segments whose durations sum to duration_fs, and the split of its longest-resident unit's time into compute,
  // latency stall and bandwidth stall.
  ClockScaledWork work;
  // Once the governor has moved the clock in the run, its dynamic energy as the governor's samples saw it spent (it
  // ran alone, so they are its own): the share done (0 to 1) by each recorded time (at_fs from the start), at one
  // voltage so that the states it ran at do not weigh it. A replay spends its counters along it, so that the
  // governor's windows see the op's own power profile (its waves' peaks) rather than its mean. Empty: spent at an
  // even pace.
  std::vector<ProgressKnot> activity;
  // A block of one of the op's tensors (`tensor`: index into its inputs, outputs, then scratch) resident at its end.
  struct Resident {
    std::uint32_t level = 0, array = 0, tensor = 0;
    std::int64_t offset = 0;  // block start - tensor start
    std::uint64_t valid = 0;
    std::uint64_t last_use = 0;
  };
  std::vector<Resident> resident;  // oldest use first
};

// Two recorded instances of a signature agree when the second's time differs by at most 1/kAgreementParts (1%, half
// the 2% a replayed op may differ from --exact) from what the first's record predicts at the second's clock course
// (ClockScaledWork::duration_under; at one clock, the first's time).
inline constexpr std::uint64_t kAgreementParts = 100;

// Recorded results by signature, shared by the devices of one run (the ranks of a cluster run the same hardware).
// A signature is replayed once two of its instances recorded in a row agree, from the first of them; until then its
// instances are simulated. With the detailed DRAM the same op's time moves from instance to instance by up to 3.5%
// with state the signature leaves out (above): a signature whose first instances already disagree by more than half
// the bound would be replayed outside it, and a run of few layers (two, as in tp_decode, where the second layer's
// mlp.up is 3.6% slower than the first's) is simulated whole rather than replayed from one instance. It does not
// bound the outliers of later instances (Llama-2 70B TP8 decode keeps its worst op at 3.7%).
class OpMemoStore {
 public:
  [[nodiscard]] const OpRecord* find(const std::string& signature) const {
    const auto it = records_.find(signature);
    return it == records_.end() || !it->second.agreed ? nullptr : it->second.record.get();
  }
  // Keeps the first record of a signature until the next of the same `recorder` (the device that simulated it)
  // agrees with it; one of that recorder that disagrees takes its place. Other recorders' records do not count: the
  // symmetric ranks of a cluster run simulate the same instance at the same time, so counting them would replay a
  // rank's ops sooner when more of its class are simulated (--full) than with one representative.
  void insert(const std::string& signature, std::unique_ptr<OpRecord> record, const void* recorder = nullptr) {
    auto [it, fresh] = records_.try_emplace(signature);
    Entry& entry = it->second;
    if (fresh) {
      entry.record = std::move(record);
      entry.recorder = recorder;
      return;
    }
    if (entry.agreed || entry.recorder != recorder) return;
    const OpRecord& twin = *entry.record;
    const TimeFs first =
        twin.work.segments().empty() ? twin.duration_fs : twin.work.duration_under(record->work.segments());
    const TimeFs next = record->duration_fs;
    if ((first > next ? first - next : next - first) * kAgreementParts <= first) {
      entry.agreed = true;
    } else {
      entry.record = std::move(record);
    }
  }
  [[nodiscard]] std::size_t size() const { return records_.size(); }

  // Counts over the run: ops simulated and recorded, simulated (not alone or a clock change), and replayed.
  std::uint64_t recorded = 0, simulated = 0, replayed = 0;
  // Steady-state fast-forward inside ops (sim/engine/wave_fast_forward.h): on or off, ops it skipped waves or steps
  // of, whole waves skipped, and steps skipped inside tiles (each skip's steps, which every running tile skipped).
  bool fast_forward = false;
  std::uint64_t fast_forwarded = 0, skipped_waves = 0, skipped_steps = 0;
  // Ops that overlap others, memoized by overlap group (op_group_memo.h).
  OpGroupStore groups;

 private:
  struct Entry {
    std::unique_ptr<OpRecord> record;
    const void* recorder = nullptr;
    bool agreed = false;
  };
  std::unordered_map<std::string, Entry> records_;
};

}  // namespace roofsim
