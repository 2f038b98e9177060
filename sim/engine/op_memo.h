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
//   With refresh off, the offsets alone move an op by at most about 1% (H100 7B proj 1.0%, 70B TP8 mlp.up 1.1%,
//   MI300X qkv 0.6%): each channel's share of a tensor is within 1.002-1.054 of even, so what the offsets move is
//   where the refreshes fall on the op's traffic. Hashing the channel (dram.mapping "...:hash") raises the spread
//   (7B decode 2.2% to 6.0%).
// Classing them costs the repeats without bounding the error: refresh-phase classes of tREFIsb / 8 and address
// classes of 1/8 of the interleave leave the worst op of the 7B decode at 2.9% (2.5% without), with 117 signatures
// instead of 6 and 43 ops replayed instead of 154; the worst ops are --exact's own outliers, which have no twin, and
// recording the median of a signature's first 3 or 5 instances leaves them as far. What replay costs instead
// (op_replay.h) is measured against --exact with OpMemoStore below replaying the median of 5 instances: 80-layer TP8
// decode, Llama-3-70B on H100 total 0.13%, worst op 6.4% (mlp.up, whose --exact times spread 8.7% over the layers),
// energy 0.12%; Llama-2-70B on B200 total 0.08%, worst op 2.5% (proj, spread 3.7%), bytes per level 0.01%.
#include <algorithm>
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
#include "sim/engine/wave_fast_forward.h"

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

// Calls `write(lo, hi)` for each run of adjacent valid sectors of the block starting at `block_start` (below 0 where a
// record's block begins before its tensor at address 0), clipped to [clip_lo, clip_hi): a replay installs a recorded
// block a run at a time, so that the cache's tags see the writes a simulation would have made.
template <typename Write>
void for_each_valid_run(std::int64_t block_start, std::uint64_t valid, Bytes sector_bytes, std::int64_t clip_lo,
                        std::int64_t clip_hi, Write&& write) {
  const auto sector = static_cast<std::int64_t>(sector_bytes);
  while (valid != 0) {
    const auto first = static_cast<unsigned>(__builtin_ctzll(valid));
    unsigned last = first;
    while (last + 1 < 64 && ((valid >> (last + 1)) & 1ULL) != 0) ++last;
    valid &= ~(((last == 63) ? ~0ULL : ((1ULL << (last + 1)) - 1)) & ~((1ULL << first) - 1));
    const std::int64_t lo = std::max(block_start + static_cast<std::int64_t>(first) * sector, clip_lo);
    const std::int64_t hi = std::min(block_start + static_cast<std::int64_t>(last + 1) * sector, clip_hi);
    if (hi > lo) write(static_cast<Bytes>(lo), static_cast<Bytes>(hi));
  }
}

// What a recorded op did, relative to its start: everything collect_run_result and the power domain read of it, and
// the cache contents it left that belong to its own tensors.
struct OpRecord {
  TimeFs duration_fs = 0;   // start (launch latency over) to end
  TimeFs tiles_out_fs = 0;  // start to the hand-out of its last tile (the ops after it had none before)
  // Waves or steps of it were skipped (sim/engine/wave_fast_forward.h): its time is the simulated part's and an
  // estimate of the rest that may lie kSteadyTolerance of the skipped part from what simulating it would give.
  bool fast_forwarded = false;
  // Steps inside its tiles were skipped: tiles of hundreds of k-steps, an op of hundreds of microseconds.
  bool forwarded_inside_tiles = false;
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
  // Per DRAM channel, how long before its end the first refresh it had not issued fell due: the next op's first
  // decision on the channel issues those, and is charged with them (EngineDramAdapter::replay_ended).
  std::vector<TimeFs> refresh_lag_fs;
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

// How long `record`'s op takes at the clock course `course` (another instance's; empty, or a record without one:
// its own duration), and whether two durations agree within 1/parts of `reference`: the one comparison single ops
// and overlap groups are agreed by.
[[nodiscard]] inline TimeFs duration_at_course(const OpRecord& record, const std::vector<ClockSegment>& course) {
  return duration_at_course(record.work, record.duration_fs, course);
}
[[nodiscard]] inline bool within_parts(TimeFs value, TimeFs reference, std::uint64_t parts) {
  return (value > reference ? value - reference : reference - value) * parts <= reference;
}

// Two recorded instances of a signature agree when the time of one differs by at most 1/kAgreementParts (1%, half the
// 2% a replayed op may differ from --exact) from what the other's record predicts at its clock course
// (ClockScaledWork::duration_under; at one clock, the other's time).
inline constexpr std::uint64_t kAgreementParts = 100;
// The instances of a signature a representative is chosen from: the median of this many in a row (odd, so that the
// median is one of them and its record can be replayed). Memory: up to this many records per signature until then.
inline constexpr std::size_t kRepresentativeInstances = 5;
static_assert(kRepresentativeInstances % 2 == 1);
// A signature whose last kSettledInstances in a row all lie within 1/kSettledParts (0.1%, a tenth of the agreement
// bound) of their median replays that median without waiting for more: the last, not only the first, so that a first
// layer that differs (a cold cache, a governor still moving the clock) costs one more simulated layer, not all of
// kRepresentativeInstances. The large GEMMs of a prefill, which cost most
// to simulate, are that close from layer to layer (GPT-3 175B on H100, detailed DRAM: qkv 2215.3, 2215.6, 2216.6 us);
// the decode ops whose instances drift (Llama-3-70B TP8 on H100: qkv 13.16, 13.16, 13.13 us, then 12.64) are not.
inline constexpr std::size_t kSettledInstances = 3;
inline constexpr std::uint64_t kSettledParts = 1000;
// Instances that were all fast-forwarded settle within the fast-forward's own tolerance instead (1/256,
// kSteadyTolerance, still under half the agreement bound): each carries an estimate of its skipped part that may lie
// that far from simulating it, so three instances of an unchanging op need not agree more closely than that, and
// with --fast-forward the large GEMMs of a prefill, 0.1 % apart without it, come 0.09 to 0.12 % apart (GPT-3 175B on
// H100, detailed DRAM: qkv 2223.7, 2221.0, 2223.0 us): held to 0.1 %, they would be simulated for four or five layers
// rather than three.
inline constexpr auto kFastForwardSettledParts = static_cast<std::uint64_t>(1.0 / kSteadyTolerance);
static_assert(kFastForwardSettledParts * 2 >= kAgreementParts, "a settled median lies within half the agreement");
// Two instances in a row suffice where both skipped steps inside their tiles. A third one's median guards against an
// instance that moved with state the signature leaves out (the detailed DRAM's refresh phase, the decode ops' drift,
// a cache block conflict at one layer's addresses); an op fast-forwarded inside its tiles runs tiles of hundreds of
// k-steps for hundreds of microseconds, on which one access more or less moves nothing at 1/256, and what its
// instances' estimates leave unknown is the skipped part's 1/256, the same for any one of them and for their median.
// Not so an op that skipped whole waves only: TPU-v4's 3 us mlp.act of a Llama-2 7B decode skips waves, and at
// layers 2 and 10 --exact's own instance reads one more 8 KiB block from DRAM and takes 19% longer, which a replay
// from two instances misses. A prefill's large GEMMs (GPT-3 175B, 96 layers, on H100 with the detailed DRAM) cost
// two simulated layers rather than three, a third of the forward's CPU time. Of the two the longer is replayed, as the
// median of two: the newer, whose cache contents differ a little from the longer's, moved the residency classes of
// the ops after it in a GPT-3 training step on 1024 H100s so that 8 overlap-group keys were recorded instead of 5, 60
// groups instead of 22, and the step took 244 s of CPU instead of 192.
inline constexpr std::size_t kForwardedSettledInstances = 2;

// Which of `count` recorded instances in a row (at most `instances`) to replay, by the rule single ops and overlap
// groups share: the median of the last `fewest`, ... up to kSettledInstances if they all lie within 1/kSettledParts of
// it (fewest: kSettledInstances, or kForwardedSettledInstances where the last of them were fast-forwarded inside their
// tiles), else, once `instances` are kept, the median of them all if another agrees within 1/kAgreementParts; `count`
// if neither. `representative(first, parts, all)` gives the median's index among those from `first` on, or `count`.
template <typename Representative>
[[nodiscard]] std::size_t settled_choice(std::size_t count, std::size_t instances, std::size_t fewest,
                                         Representative&& representative) {
  std::size_t chosen = count;
  const std::size_t most = std::min(kSettledInstances, instances);
  for (std::size_t settled = std::min(fewest, most); chosen == count && settled <= most; ++settled) {
    if (count >= settled) chosen = representative(count - settled, kSettledParts, true);
  }
  if (chosen == count && count == instances) chosen = representative(0, kAgreementParts, false);
  return chosen;
}

// Recorded results by signature, shared by the devices of one run (the ranks of a cluster run the same hardware).
// A signature's instances are simulated until kRepresentativeInstances of them recorded in a row hold another that
// agrees with their median, or its last kSettledInstances lie within 0.1% of theirs (its last two within 1/256 of
// each other, the longer one replayed, when both were fast-forwarded inside their tiles); from then on its instances
// replay that median. The median, not the first of two instances that agree: with the detailed DRAM the same op's time
// moves from instance to instance by up to 3.5% with state the signature leaves out (above), and one instance replayed
// for 77 layers carries its own deviation into the total. Llama-3-70B TP8 decode on H100 (80 layers): mlp.up's first
// agreeing instance, 44.21 us against a median of 43.15 us over the layers, made +88 us of the total's +104 us (0.92%);
// the median of 3 leaves the total 0.31% off, of 5 0.13% (Llama-2-70B TP8 decode on B200: 0.65%, 0.47%, 0.08%), for
// 1-3% fewer ops replayed. A signature whose instances disagree by more than half the bound around their median would
// be replayed outside it and is simulated, and so is a run of fewer layers than kRepresentativeInstances. It does not
// bound the outliers of later instances.
class OpMemoStore {
 public:
  // `instances`: how many instances in a row a representative is chosen from (odd; tests use fewer).
  explicit OpMemoStore(std::size_t instances = kRepresentativeInstances) : instances_(instances | 1) {}
  [[nodiscard]] const OpRecord* find(const std::string& signature) const {
    const auto it = records_.find(signature);
    return it == records_.end() || !it->second.agreed ? nullptr : it->second.record.get();
  }
  // Keeps the last kRepresentativeInstances records of a signature from one `recorder` (the device that simulated
  // its first) until a representative is chosen (above). Other recorders' records do not count: the symmetric ranks of
  // a cluster run simulate the same instance at the same time, so counting them would replay a rank's ops sooner when
  // more of its class are simulated (--full) than with one representative.
  void insert(const std::string& signature, std::unique_ptr<OpRecord> record, const void* recorder = nullptr) {
    auto [it, fresh] = records_.try_emplace(signature);
    Entry& entry = it->second;
    if (fresh) entry.recorder = recorder;
    if (entry.agreed || entry.recorder != recorder) return;
    entry.candidates.push_back(std::move(record));
    auto& c = entry.candidates;
    if (c.size() > instances_) c.erase(c.begin());
    const bool forwarded_pair = c.size() >= kForwardedSettledInstances &&
                                std::all_of(c.end() - static_cast<std::ptrdiff_t>(kForwardedSettledInstances), c.end(),
                                            [](const auto& r) { return r->forwarded_inside_tiles; });
    const std::size_t chosen =
        settled_choice(c.size(), instances_, forwarded_pair ? kForwardedSettledInstances : kSettledInstances,
                       [&](std::size_t first, std::uint64_t parts, bool all) {
                         return representative(c, first, all ? std::min(parts, settled_parts(c, first)) : parts, all);
                       });
    if (chosen == c.size()) return;
    entry.record = std::move(c[chosen]);
    c.clear();
    entry.agreed = true;
  }
  [[nodiscard]] std::size_t size() const { return records_.size(); }

  // Counts over the run: ops simulated and recorded, simulated (not alone or a clock change), and replayed.
  std::uint64_t recorded = 0, simulated = 0, replayed = 0;
  // Steady-state fast-forward inside ops (sim/engine/wave_fast_forward.h): on or off, ops it skipped waves or steps
  // of, whole waves skipped, steps skipped inside tiles (each skip's steps, which every running tile skipped), and
  // the skips inside tiles that ran through a change of the clock (GovernorPolicy::through_bound).
  bool fast_forward = false;
  std::uint64_t fast_forwarded = 0, skipped_waves = 0, skipped_steps = 0, skips_through_changes = 0;
  // Ops that overlap others, memoized by overlap group (op_group_memo.h).
  OpGroupStore groups;

 private:
  // The index of the median of `records` from `first` on at the newest's clock course if all the others (`all`) or
  // another of them lie within 1/parts of it; records.size() if not.
  static std::size_t representative(const std::vector<std::unique_ptr<OpRecord>>& records, std::size_t first,
                                    std::uint64_t parts, bool all) {
    const auto& course = records.back()->work.segments();
    std::vector<std::pair<TimeFs, std::size_t>> times;
    for (std::size_t i = first; i < records.size(); ++i) times.emplace_back(duration_at_course(*records[i], course), i);
    std::sort(times.begin(), times.end());
    const std::size_t mid = times.size() / 2;
    const TimeFs median = times[mid].first;
    std::size_t within = 0;
    for (std::size_t j = 0; j < times.size(); ++j) {
      if (j != mid && within_parts(times[j].first, median, parts)) ++within;
    }
    return (all ? within + 1 == times.size() : within > 0) ? times[mid].second : records.size();
  }
  // The parts settled_choice's first test counts in: kFastForwardSettledParts when the instances from `first` on were
  // all fast-forwarded.
  static std::uint64_t settled_parts(const std::vector<std::unique_ptr<OpRecord>>& records, std::size_t first) {
    const bool all_forwarded = std::all_of(records.begin() + static_cast<std::ptrdiff_t>(first), records.end(),
                                           [](const auto& r) { return r->fast_forwarded; });
    return all_forwarded ? kFastForwardSettledParts : kSettledParts;
  }

  std::size_t instances_;
  struct Entry {
    std::unique_ptr<OpRecord> record;                   // the representative, once agreed
    std::vector<std::unique_ptr<OpRecord>> candidates;  // until then, the last instances in order
    const void* recorder = nullptr;
    bool agreed = false;
  };
  std::unordered_map<std::string, Entry> records_;
};

}  // namespace roofsim
