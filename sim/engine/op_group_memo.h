#pragma once
// Memoized execution of overlap groups, the plain part: what a group of ops that ran beside one another did, and the
// store of such records.
//
// Ops that overlap share the units, so an op's time depends on what runs beside it, which its own signature
// (op_memo.h) does not describe. A training step's backward pass is such a chain: the weight-gradient GEMM runs beside
// the data-gradient GEMM and the ops that follow it (a stream each), and the chain only pauses where the next layer's
// gradient waits for a collective. An overlap group is what the device runs from a moment no op is in flight until
// the next such moment: the ops that start at its start, whose signatures (their memory state at launch included) key
// it, and every op that starts while one of the group is still running. Its pattern is its members' order, their
// places in the graph relative to the first (the op index difference), what each runs, and when each starts after the
// group's start. Where the graph repeats (the layers of a model, its micro-batches, the stages of a pipeline), a group
// that starts with the same ops from the same memory state repeats the pattern: the dispatcher launches each member
// when the members it waits for end, so a replay that ends every member at its recorded time starts the next at its
// recorded time too. A replay checks that each op starting inside it is the member the record expects, at the
// recorded offset; one that is not (an op launched by something outside the group, such as a collective finishing)
// is simulated and counted as a divergence.
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "models/kernel/time_fs.h"
#include "models/memory/memory_system.h"

namespace roofsim {

struct OpRecord;  // op_memo.h

struct OpGroupMember {
  OpGroupMember();
  OpGroupMember(OpGroupMember&&) noexcept;
  OpGroupMember& operator=(OpGroupMember&&) noexcept;
  ~OpGroupMember();

  std::size_t delta = 0;  // its op index minus the group's first op's
  TimeFs offset_fs = 0;   // its start minus the group's start
  std::string kind_key;   // what it runs: kind, lowering, tiles (the memory state is the group key's)
  // Its own counters, time, unit residency and tile spans, relative to its start. The counters the members share
  // (the memory levels', the DRAM's bytes and requests) and the cache contents after the group are the group's.
  std::unique_ptr<OpRecord> record;
};

struct OpGroupRecord {
  TimeFs duration_fs = 0;              // the group's start to its last member's end
  std::vector<OpGroupMember> members;  // in start order (ops starting together: in launch order)
  std::vector<LevelCounters> levels;   // what the memory levels counted over the group
  Bytes dram_read_bytes = 0, dram_written_bytes = 0, dram_asked_burst_bytes = 0;
  // A block of a member's tensor (`tensor`: index into the member's inputs, outputs, then scratch) resident at the
  // group's end, oldest use first.
  struct Resident {
    std::uint32_t level = 0, array = 0, member = 0, tensor = 0;
    std::int64_t offset = 0;  // block start - tensor start
    std::uint64_t valid = 0;
    std::uint64_t last_use = 0;
  };
  std::vector<Resident> resident;
};

// Two recorded instances of a group agree when they have the same members (order, op index differences, what each
// runs) and each member's duration differs by at most 1/kAgreementParts (op_memo.h's bound, half the 2% a replayed op
// may differ from --exact) from what the first's record predicts at the second's clock course (at one clock, the
// first's duration). The members' starts follow from their durations: the dispatcher launches each when those it
// waits for end.
[[nodiscard]] bool groups_agree(const OpGroupRecord& first, const OpGroupRecord& next);

// An op instance: the graph it belongs to and its index there. The symmetric ranks of a class run the same instance
// at the same time; the stages of a pipeline run their own graphs.
struct OpInstance {
  const void* graph = nullptr;
  std::size_t op = 0;
  [[nodiscard]] bool operator==(const OpInstance& other) const { return graph == other.graph && op == other.op; }
};

// Group records by key, shared by the devices of a run. A key is replayed once two instances recorded in a row agree
// (groups_agree), from the first of them. Unlike single ops (OpMemoStore), the two may be recorded by different
// devices: what must differ is the instance (another layer, micro-batch or pipeline stage), so that the symmetric
// ranks of one class, which run the same instance at the same time, never agree with one another, and a run whose
// classes are simulated in full (--full) replays what a collapsed run replays.
class OpGroupStore {
 public:
  [[nodiscard]] const OpGroupRecord* find(const std::string& key) const;
  // Keeps the first record of a key until the next instance agrees with it; one that disagrees takes its place. A
  // record of the same instance as the kept one is dropped.
  void insert(const std::string& key, std::unique_ptr<OpGroupRecord> record, OpInstance instance);
  [[nodiscard]] std::size_t size() const { return records_.size(); }

  // Counts over the run: groups recorded and replayed, their members replayed, replays an op starting inside broke
  // (divergences), groups not recorded (their clock changed, or they did not end in the run).
  std::uint64_t recorded = 0, replayed = 0, members_replayed = 0, diverged = 0, unrecorded = 0;
  // Ops simulated though memoization was on, by reason: started beside an op that started before it outside any
  // group (a single op's replay, or a simulated one), a member of a group whose key is not yet agreed, and an op
  // starting a group once the power governor has moved the clock (groups are memoized at a fixed clock only).
  std::uint64_t beside_started = 0, in_unagreed_group = 0, under_moving_clock = 0;
  // Ops starting a group on a device with the detailed DRAM (simulated: see op_group_replay.cpp).
  std::uint64_t detailed_dram = 0;

 private:
  struct Entry {
    std::unique_ptr<OpGroupRecord> record;
    OpInstance instance;
    bool agreed = false;
  };
  std::unordered_map<std::string, Entry> records_;
};

}  // namespace roofsim
