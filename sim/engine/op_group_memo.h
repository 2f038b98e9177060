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
// is simulated and counted as a divergence. A member's start is the end of its launch latency, not the moment the
// dispatcher first hands it to the memo: beside a simulated GEMM with tiles still to issue, the dispatcher wakes only
// at the GEMM's tile ends, which a replay of the GEMM does not reproduce.
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "models/kernel/paced_progress.h"
#include "models/kernel/time_fs.h"
#include "models/memory/memory_system.h"
#include "models/power/clock_scaled_work.h"

namespace roofsim {

struct OpRecord;  // op_memo.h

struct OpGroupMember {
  OpGroupMember();
  OpGroupMember(OpGroupMember&&) noexcept;
  OpGroupMember& operator=(OpGroupMember&&) noexcept;
  ~OpGroupMember();

  std::size_t delta = 0;  // its op index minus the group's first op's
  TimeFs offset_fs = 0;   // its start (its launch latency over) minus the group's start
  std::string kind_key;   // what it runs: kind, lowering, tiles (the memory state is the group key's)
  // Its own counters, time, unit residency and tile spans, relative to its start. The counters the members share
  // (the memory levels', the DRAM's bytes and requests) and the cache contents after the group are the group's.
  std::unique_ptr<OpRecord> record;
};

struct OpGroupRecord {
  TimeFs duration_fs = 0;  // the group's start to its last member's end
  // Its time as a function of the compute clock, as one unit: the clock course it ran at and the split of its
  // critical unit's time (group_time_shares). A replay maps the members' recorded starts to the live clock through it.
  ClockScaledWork work;
  std::vector<OpGroupMember> members;  // in start order (ops starting together: in launch order)
  std::vector<LevelCounters> levels;   // what the memory levels counted over the group
  Bytes dram_read_bytes = 0, dram_written_bytes = 0;
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

// Beside one another, members share the units and the power the governor reads, so a member's own unit time does not
// say how it follows the clock, nor do the governor's samples over it hold its own power. The group is timed as one
// unit instead: each member's record takes the part of the group's clock course over its own time with the group's
// shares (course_between). A replay then moves every member's end with the clock as the group's would move. Its
// counters are spent at its own pace, as the governor read its own energy at each sample while it ran beside the
// others (energy_progress), so that the governor's windows see the group's power: spent along the group's power
// profile over the member's time (profile_between), a member that does little while it overlaps the others would
// crowd its work into the overlap. A single-op group keeps the group's profile, its own.
//
// The split of the group's time for ClockScaledWork: per unit, the members' busy and engine-wait time summed, and
// their resident time summed up to the group's duration (members resident on one unit at once overlap); the unit
// resident longest sets it, and the stall splits between latency and bandwidth as the members' read chunks split
// their time.
[[nodiscard]] UnitTimeShares group_time_shares(const std::vector<const OpRecord*>& members, TimeFs duration_fs);
// How long work recorded as `work` over `recorded_fs` takes at the clock course `course` (another instance's; empty,
// or a record without a course: `recorded_fs`).
[[nodiscard]] inline TimeFs duration_at_course(const ClockScaledWork& work, TimeFs recorded_fs,
                                               const std::vector<ClockSegment>& course) {
  return !course.empty() && !work.segments().empty() ? work.duration_under(course) : recorded_fs;
}
// The segments of `course` between `from_fs` and `to_fs` from its start (the last segment's clock holds after it).
[[nodiscard]] std::vector<ClockSegment> course_between(const std::vector<ClockSegment>& course, TimeFs from_fs,
                                                       TimeFs to_fs);
// The power profile `profile` (knots at fs from its start, shares rising to 1) over [from_fs, to_fs], from from_fs
// on and rising from 0 to 1 there; empty (an even pace) when `profile` is empty or spends nothing there.
[[nodiscard]] std::vector<ProgressKnot> profile_between(const std::vector<ProgressKnot>& profile, TimeFs from_fs,
                                                        TimeFs to_fs);
// A member's own progress over [from_fs, to_fs] (knots from from_fs, rising to 1 at to_fs) from its dynamic energy
// so far at the governor's samples (`energies`: sample end, energy in J, in time order; GovernorModule::follow): what
// the governor read of it beside the others. Empty when it spent nothing there.
[[nodiscard]] std::vector<ProgressKnot> energy_progress(const std::vector<std::pair<TimeFs, double>>& energies,
                                                        TimeFs from_fs, TimeFs to_fs);
// Whether an op starting `now_fs` starts where a replayed group's member recorded `offset_fs` after the group's start
// does, `expected_fs` being that offset mapped to the live clock: within 1/kMemberStartParts of the offset, or a few fs
// for one starting with the group. The mapping stretches all of the offset with the clock, while the launch latency
// in it (a few us before each op) does not follow the clock: at a clock 1.5% off the recorded one that moves a member
// starting after another's end by 45 ns; an op launched by something outside the group lands far off.
inline constexpr std::uint64_t kMemberStartParts = 1000;
[[nodiscard]] bool starts_on_time(TimeFs now_fs, TimeFs expected_fs, TimeFs offset_fs, TimeFs group_fs);

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

// OpMemoStore's kRepresentativeInstances (op_memo.h, which includes this header).
inline constexpr std::size_t kGroupRepresentativeInstances = 5;

// Group records by key, shared by the devices of a run. A key is replayed, as single ops are (OpMemoStore), from the
// median of its last kRepresentativeInstances instances once another of them agrees with it (groups_agree), or of its
// last kSettledInstances once all of those lie within 1/kSettledParts of it: the median rather than the first of two
// that agree, because the first instances of a key (a pipeline's last stage's, right after its forward) ran beside a
// governor still moving the clock, and one of them replayed over the other stages carried its own deviation into
// theirs (GPT-3-like training stages at 700 W: the first agreeing record left the replayed weight-gradient GEMMs 1.9%
// short on average). Unlike single ops the instances may be recorded by different devices: what must differ is the
// instance (another layer, micro-batch or pipeline stage), so that the symmetric ranks of one class, which run the
// same instance at the same time, never agree with one another, and a run whose classes are simulated in full (--full)
// replays what a collapsed run replays.
class OpGroupStore {
 public:
  // `instances`: how many instances in a row a representative is chosen from (odd; tests use fewer).
  explicit OpGroupStore(std::size_t instances = kGroupRepresentativeInstances) : instances_(instances | 1) {}
  [[nodiscard]] const OpGroupRecord* find(const std::string& key) const;
  // Keeps the last records of a key, one per instance (a record of an instance kept already is dropped), until a
  // representative is chosen (above).
  void insert(const std::string& key, std::unique_ptr<OpGroupRecord> record, OpInstance instance);
  [[nodiscard]] std::size_t size() const { return records_.size(); }

  // Counts over the run: groups recorded and replayed, their members replayed, replays an op starting inside broke
  // (divergences), groups not recorded (they did not end in the run).
  std::uint64_t recorded = 0, replayed = 0, members_replayed = 0, diverged = 0, unrecorded = 0;
  // Ops simulated though memoization was on, by reason: started beside an op that started before it outside any
  // group (a single op's replay, or a simulated one), and a member of a group whose key is not yet agreed.
  std::uint64_t beside_started = 0, in_unagreed_group = 0;

 private:
  struct Candidate {
    std::unique_ptr<OpGroupRecord> record;
    OpInstance instance;
  };
  struct Entry {
    std::unique_ptr<OpGroupRecord> record;  // the representative, once agreed
    std::vector<Candidate> candidates;      // until then, the last instances in order
  };
  // The index of the median of `candidates` from `first` on (by the group's time at the newest's clock course) if all
  // the others (`all`, within 1/parts) or another of them (groups_agree) agree with it; candidates.size() if not.
  [[nodiscard]] static std::size_t representative(const std::vector<Candidate>& candidates, std::size_t first,
                                                  std::uint64_t parts, bool all);
  std::size_t instances_;
  std::unordered_map<std::string, Entry> records_;
};

}  // namespace roofsim
