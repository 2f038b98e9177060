#pragma once
// The controller of one DRAM channel (one pseudo-channel for HBM), plain C++: read and write queues per bank, bank
// state (the open row), the timing checker, a scheduler, a row policy and a refresh manager.
//
// It is event-driven at the granularity of requests: decide() picks one queued request and schedules its whole
// command sequence (PRE if another row is open, ACT if the bank is closed, one RD/WR per burst, an auto-precharge if
// the row policy closes the row) at the earliest legal cycles, so a run of row hits is one call, not one per burst.
// The next decision is due when that request's first command issues (decision_cycle()): requests arriving until then
// still compete, and the timing checker lets the next request's commands interleave with the committed ones. A part
// of several bursts takes the readiest request of each other bank group along. A part's bursts are placed as one
// progression a column period apart (tCCD_L rounded up to whole tCCD_S slots; DramTimingChecker::place_columns, O(1)
// per part, not per burst); those of parts in other bank groups fall into its gaps, tCCD_S apart, as an interleaving
// controller would issue them. A part alone in its decision goes burst by burst, tCCD_L apart, where the period is
// longer than that.
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "models/dram/bank_queues.h"
#include "models/dram/dram_params.h"
#include "models/dram/dram_policies.h"
#include "models/dram/dram_timing_checker.h"

namespace roofsim::dram {

// The part of a request that falls in one bank and row of this channel.
struct Segment {
  std::uint64_t parent = 0;  // the caller's request id
  std::uint64_t row = 0;
  Cycle arrival = 0;
  std::uint32_t bank = 0;  // flat: bank_group * banks_per_group + bank
  std::uint32_t bursts = 1;
  bool is_write = false;
};

struct SegmentDone {
  std::uint64_t parent = 0;
  Cycle done = 0;  // cycle the last data beat has transferred
  bool is_write = false;
  // What serving the part cost, for per-requester statistics (the engine attributes them to the op that asked):
  std::uint32_t bursts = 0;
  bool opened_row = false;   // an ACT (after a PRE on a conflict) opened its row: one row miss, the rest hits
  bool turnaround = false;   // the first part after the data bus changed direction (read to write or back)
  Cycle refresh_cycles = 0;  // channel cycles of the refreshes issued just before this decision, on its first part
  // DRAM commands it took beyond its bursts (one RD or WR each) and its ACT (opened_row): the PRE closing a conflicting
  // row, its auto-precharge, and on the first part the refreshes (with the PREs closing banks for them) issued just
  // before the decision, for per-command energy.
  std::uint32_t precharges = 0;
  std::uint32_t refreshes_all_bank = 0, refreshes_per_bank = 0;
};

struct ChannelPolicy {
  PagePolicy page = PagePolicy::open;
  DramScheduler scheduler = DramScheduler::frfcfs;
  RefreshMode refresh = RefreshMode::all_bank;
  std::uint32_t read_queue = 64, write_queue = 64, write_high = 48, write_low = 16, frfcfs_cap = 16;
  std::uint32_t refresh_postpone = 0;  // all-bank refreshes' worth that may be owed (RefreshManager)

  [[nodiscard]] static ChannelPolicy from(const DramParams& dram);
};

// Counters kept in the hot path; derived figures are computed at the end (dram_stats.h).
struct ChannelCounters {
  std::uint64_t read_segments = 0, write_segments = 0, read_bursts = 0, write_bursts = 0;
  std::uint64_t row_hits = 0, row_misses = 0, row_conflicts = 0;  // miss: bank closed; conflict: another row open
  std::uint64_t acts = 0, pres = 0, refs_all_bank = 0, refs_per_bank = 0;
  std::vector<std::uint64_t> acts_per_bank;
  Cycle refresh_bank_cycles = 0;  // bank-cycles blocked by refresh (tRFC x banks, or tRFCsb per per-bank REF)
  std::uint64_t turnarounds = 0;  // decisions whose direction differs from the previous one
  Cycle last_done = 0;
};

// The working memory of one decision: the candidates per bank, the runs it commits, the parts it reports.
// The channels of a device share one (only one channel decides at a time, and its parts are consumed before the
// next decision): a copy per channel was a dozen more cold cache lines per decision, 160 HBM3 pseudo-channels being
// served in turn.
struct DecisionScratch {
  // One request part of a decision: its pick, the part, the cycle of its latest command.
  struct Run {
    Candidate pick;
    Segment segment;
    Cycle at = 0;
    Cycle known_first = -1;  // the scheduler's answer for the run's first burst, when it is a row hit
    bool opened_row = false;
    std::uint32_t precharges = 0;
  };
  // The candidates, with lower bounds of their first-command cycles until searched (then the cycles), the first
  // command of each, whether it was searched (bytes, not std::vector<bool>: read in the inner loop of decide()), and
  // per bank group the one of the best bound (kNoLead: none).
  std::vector<Candidate> bounded;
  std::vector<DramCommand> bounded_first;
  std::vector<std::uint8_t> searched;
  std::vector<std::uint32_t> group_lead;
  static constexpr std::uint32_t kNoLead = ~std::uint32_t{0};
  std::vector<Run> runs;
  std::vector<SegmentDone> done;
  // A stretch of cycles [from, at] whose first legal cycle for a command is `at` (empty: from > at).
  struct Stretch {
    Cycle from = 1, at = 0;
  };
  std::vector<Stretch> act_known, column_known;  // per bank group: answers of first_command_cycle in this decision
  // Makes room for channels of `bank_groups` bank groups (the entries beyond a channel's groups stay unused).
  void fit(std::uint32_t bank_groups);
};

class DramChannel {
 public:
  // `shared`: the scratch of the device's channels, which must outlive the channel (null: the channel's own).
  DramChannel(const DramStandardParams& standard, const ChannelPolicy& policy, DecisionScratch* shared = nullptr);

  // A part holds its queue entry from enqueue() until its last column command (RD or WR) has issued, as a controller
  // keeps a request in its read or write buffer until then: the scheduler's look-ahead is the queue depth less the
  // parts committed but not yet served. Call release_until(now) before has_space() for an answer at cycle `now`.
  [[nodiscard]] bool has_space(bool is_write, std::uint32_t segments = 1) const;
  void release_until(Cycle cycle);
  // The cycle the next held entry is released (kNever: none held).
  [[nodiscard]] Cycle next_release() const;
  void enqueue(const Segment& segment);  // the caller checked has_space
  // Issues this channel's commands on `owner`'s command buses (the pseudo-channels of one HBM channel; see
  // DramTimingChecker::share_command_buses). Decisions of the channels sharing them must come in non-decreasing
  // cycles, as DramDevice takes them.
  void share_command_buses(DramChannel& owner);
  [[nodiscard]] bool has_work() const { return reads_.size() + writes_.size() > 0; }
  // The cycle from which the next decision may be taken (never before the last decision's first command).
  [[nodiscard]] Cycle decision_cycle() const { return clock_; }
  // The due cycle of the first refresh not yet issued.
  [[nodiscard]] Cycle refresh_due() const { return refresh_.next_due(); }
  // Schedules a queued request at cycle max(now, decision_cycle()), after any refresh due by then; when it is a row
  // hit, row hits of other bank groups join it with their bursts interleaved. Returns the parts scheduled (valid
  // until the next call of any channel sharing its scratch).
  [[nodiscard]] const std::vector<SegmentDone>& decide(Cycle now);
  // Issues the refreshes due up to `end` (an idle channel still refreshes), for the statistics.
  void finish(Cycle end);
  // Refreshes postponed while busy and not yet repaid: the next idle stretch repays them from its start.
  [[nodiscard]] std::uint64_t refresh_owed() const { return refresh_.owed(); }
  // No command of this channel (nor, for its row bus, of the channels sharing it) will be asked for before `cycle`
  // any more: DramTimingChecker::forget_before.
  void forget_before(Cycle cycle) { checker_.forget_before(cycle); }

  [[nodiscard]] const ChannelCounters& counters() const { return counters_; }
  [[nodiscard]] const DramTimingChecker& checker() const { return checker_; }
  void set_command_log(std::vector<IssuedCommand>* log) { checker_.set_log(log); }
  [[nodiscard]] std::optional<std::uint64_t> open_row(std::uint32_t bank) const;

 private:
  static constexpr std::uint64_t kClosed = ~std::uint64_t{0};

  // What the refreshes issued before a decision cost, charged to the decision's first part.
  struct RefreshCharge {
    Cycle cycles = 0;        // channel cycles they block
    std::uint32_t pres = 0;  // banks they closed
    std::uint64_t refs_all_before = 0, refs_per_bank_before = 0;
  };

  // The phases of a decision, in order.
  [[nodiscard]] RefreshCharge refresh_before_decision(Cycle decision);
  [[nodiscard]] bool choose_direction();  // true: drain writes
  void pick_runs(BankQueues& queues, DramCommand column, Cycle decision);
  [[nodiscard]] Cycle open_rows_for_runs(Cycle decision);  // returns the first PRE/ACT cycle (kNever: none)
  [[nodiscard]] Cycle place_bursts(DramCommand column);    // returns the first burst's cycle
  [[nodiscard]] const std::vector<SegmentDone>& report_parts(bool is_write, const RefreshCharge& refresh);

  void refresh_until(Cycle cycle);
  // refresh_until for a channel sharing this one's row bus that decides at `cycle`, the refreshes charged to this
  // channel's next decision.
  void refresh_for_bus_sharer(Cycle cycle);
  [[nodiscard]] bool queued_hit(std::uint32_t bank, std::uint64_t row) const;
  // Opens `row` in `bank` (kClosed: closes it) and counts the queued parts that hit it.
  void set_open_row(std::uint32_t bank, std::uint64_t row);

  ChannelPolicy policy_;
  DramTimingChecker checker_;
  std::unique_ptr<RequestScheduler> scheduler_;
  std::unique_ptr<RowPolicy> row_policy_;
  RefreshManager refresh_;
  std::vector<std::uint64_t> open_rows_;
  // Per direction ([is write]) and bank, the queued parts of the bank's open row: a bank without any is no row hit
  // without a walk through its queue.
  std::vector<std::uint32_t> open_row_parts_[2];
  BankQueues reads_, writes_;
  // Per direction ([is write]), a min-heap of the last column-command cycles of committed parts still holding entries.
  std::vector<Cycle> held_[2];
  std::uint64_t next_order_ = 0;
  bool draining_writes_ = false;
  bool last_was_write_ = false;
  bool served_any_ = false;
  Cycle clock_ = 0;
  // The channel has had no queued request since idle_since_ (kNever: it has since the last call of refresh_until),
  // and the request ending that stretch arrived at busy_from_.
  Cycle idle_since_ = 0;
  Cycle busy_from_ = kNever;
  using Run = DecisionScratch::Run;
  // The earliest cycle the first command of a candidate may issue (the answers per bank group cached within a
  // decision).
  [[nodiscard]] Cycle first_command_cycle(DramCommand first, std::uint32_t bank, Cycle decision);
  // The other channels on this one's row command bus. A decision forgets the bus cycles before it, and a refresh
  // due earlier asks about the bus from its due cycle: their refreshes due by then are issued first, else one
  // catching up later (a busy sharer's between its decisions, an idle one's) could take a forgotten cycle the
  // other had taken.
  std::vector<DramChannel*> bus_sharers_;
  // What refresh_for_bus_sharer issued since this channel's last decision.
  struct SharerRefresh {
    Cycle bank_cycles = 0;
    std::uint64_t pres = 0, refs_all_bank = 0, refs_per_bank = 0;
  };
  SharerRefresh sharer_refresh_;
  std::unique_ptr<DecisionScratch> own_scratch_;
  DecisionScratch* scratch_;
  DecisionScratch::Stretch pre_known_;
  ChannelCounters counters_;
  // refresh_until's count of on-time per-bank refreshes in a row, and the bursts and activates served when it last
  // returned.
  std::uint64_t refresh_on_time_ = 0;
  std::uint64_t served_at_refresh_ = 0;
};

}  // namespace roofsim::dram
