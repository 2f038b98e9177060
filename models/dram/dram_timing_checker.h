#pragma once
// The timing checker of one DRAM channel (one pseudo-channel for HBM): given the commands issued so far, it returns
// the earliest cycle at which an ACT, PRE, RD, WR or REF may issue, and records issued commands. Plain C++, no
// SystemC, as DRAMSys's CheckerDDR4/CheckerHBM2 and Ramulator 2's timing tables.
//
// The controller schedules a request's whole command sequence at once (see dram_channel.h), so a later decision may
// place a command before one already recorded (an ACT to another bank between a PRE and an ACT, say). Constraints
// between commands of different banks are therefore checked in both directions against a short history: a new
// command at t next to a recorded one at x needs t >= x + gap(x -> new) or t <= x - gap(new -> x). Per-bank
// constraints are one-directional: a bank's commands are always scheduled in order.
#include <array>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "models/dram/command_bus.h"
#include "models/dram/dram_params.h"
#include "models/dram/dram_timing.h"

namespace roofsim::dram {

using Cycle = std::int64_t;  // cycles of tCK since time 0

enum class DramCommand : std::uint8_t { act, pre, rd, wr, ref_all, ref_bank };

// The standard's timing in 64-bit cycles (copied row by row from dram_timing_fields()), with the burst duration
// derived from BL and the pin rate and the command-bus occupancies at least one cycle.
struct CheckerTiming : DramTimingOf<Cycle> {
  Cycle burst = 0;  // data-bus cycles of one burst
  bool separate_row_bus = false;

  [[nodiscard]] static CheckerTiming from(const DramStandardParams& standard);
};

// One issued command, for an optional log (tests verify a log against every constraint pair by pair).
struct IssuedCommand {
  Cycle at = 0;
  DramCommand command = DramCommand::act;
  std::uint32_t bank = 0;
  bool uses_bus = true;
};

class DramTimingChecker {
 public:
  DramTimingChecker(const CheckerTiming& timing, std::uint32_t bank_groups, std::uint32_t banks_per_group);

  // Earliest cycle >= not_before at which `command` may issue to `bank` (flat index bank_group * banks_per_group +
  // bank; ignored for ref_all). Does not check the bank's row state: the controller knows whether a row is open.
  [[nodiscard]] Cycle earliest(DramCommand command, std::uint32_t bank, Cycle not_before) const;
  // Records `command` at cycle `at` (which must be legal) and occupies the command bus unless `uses_bus` is false
  // (an auto-precharge rides on its RD/WR).
  void issue(DramCommand command, std::uint32_t bank, Cycle at, bool uses_bus = true);

  [[nodiscard]] const CheckerTiming& timing() const { return timing_; }
  // Issues this checker's row commands on `owner`'s row command bus from now on (the two pseudo-channels of an HBM
  // channel share its command pins, JESD235 / JESD238), so each sees the cycles the other's ACT, PRE and REF take.
  // `owner` must outlive this checker, and neither may ask about a cycle before one either forgot (forget_before):
  // their decisions come in non-decreasing cycles, and DramChannel issues the refreshes of both due by a decision
  // before it.
  void share_command_buses(DramTimingChecker& owner);
  // No command will be asked for before `cycle` any more (the controller's decision cycle only grows): the history
  // older than every constraint can go, and the bus cycles before it.
  void forget_before(Cycle cycle);
  // Appends every issued command to `log` (nullptr: no log).
  void set_log(std::vector<IssuedCommand>* log) { log_ = log; }
  [[nodiscard]] bool logging() const { return log_ != nullptr; }
  [[nodiscard]] std::uint32_t banks() const { return static_cast<std::uint32_t>(banks_.size()); }
  // Cycles its row command bus holds taken (for tests: forget_before bounds them).
  [[nodiscard]] std::size_t row_bus_cycles_held() const { return row_bus().size(); }
  // A bank may be refreshed (REF) or activated no earlier than this (tRP, tRC, tRFC).
  [[nodiscard]] Cycle bank_act_ready(std::uint32_t bank) const { return banks_[bank].act_ok; }
  // The bank's own constraint on `command` (tRCD, tRP, tRAS, ...). When it is already met, earliest() depends only
  // on the bank group, so a caller may reuse one answer for every bank of the group.
  [[nodiscard]] Cycle bank_ready(DramCommand command, std::uint32_t bank) const {
    const auto& state = banks_[bank];
    switch (command) {
      case DramCommand::act:
      case DramCommand::ref_bank: return state.act_ok;
      case DramCommand::pre: return state.pre_ok;
      case DramCommand::rd: return state.rd_ok;
      case DramCommand::wr: return state.wr_ok;
      case DramCommand::ref_all: break;
    }
    return all_banks_act_ready();
  }
  [[nodiscard]] std::uint32_t group_of(std::uint32_t bank) const { return group_of_bank_[bank]; }
  [[nodiscard]] Cycle bank_pre_ready(std::uint32_t bank) const { return banks_[bank].pre_ok; }

  // Where a run of column commands (RD or WR) to one bank can go: the earliest legal cycle `at` >= not_before of its
  // first command, and how many of up to `count` commands at at + i x column_period() are legal (at least one).
  struct ColumnPlacement {
    Cycle at = 0;
    std::uint32_t count = 0;
  };
  [[nodiscard]] ColumnPlacement place_columns(DramCommand command, std::uint32_t bank, Cycle not_before,
                                              std::uint32_t count) const;
  // Records `count` column commands at at + i x column_period() (which place_columns() found legal).
  void issue_columns(DramCommand command, std::uint32_t bank, Cycle at, std::uint32_t count);
  [[nodiscard]] Cycle column_period() const { return column_period_; }
  // A lower bound of the first legal cycle >= from of a column command (RD or WR) to bank group `group`, past its
  // bank's own constraint: the end of the stretch already known illegal, when `from` lies in it (else `from`).
  [[nodiscard]] Cycle column_bound(DramCommand command, std::uint32_t group, Cycle from) const {
    const auto& blocked = column_blocked_[(command == DramCommand::wr ? column_blocked_.size() / 2 : 0) + group];
    return from >= blocked.first && from < blocked.second ? blocked.second : from;
  }
  // The closest one bank group's column commands of one direction may follow each other: max(tCCD_L, burst). The
  // period is longer when tCCD_L is not a whole number of tCCD_S slots; a run alone then goes burst by burst.
  [[nodiscard]] Cycle same_group_gap() const { return column_gap_[0][0][1]; }

 private:
  struct BankTiming {
    Cycle act_ok = 0, pre_ok = 0, rd_ok = 0, wr_ok = 0;
  };
  struct Recorded {
    Cycle at = 0;
    std::uint32_t bank_group = 0;
    bool is_write = false;
  };
  [[nodiscard]] Cycle all_banks_act_ready() const;
  [[nodiscard]] Cycle act_slot(std::uint32_t bank_group, Cycle from) const;
  [[nodiscard]] Cycle faw_slot(Cycle from) const;
  // A run of column commands of one bank group and direction: `count` commands column_period() apart.
  struct ColumnRun {
    Cycle start = 0, last = 0;
    std::uint32_t count = 1;
    std::uint32_t bank_group = 0;
    bool is_write = false;
  };
  // The earliest cycle >= from at which one column command is legal against the recorded runs and the bus.
  [[nodiscard]] Cycle column_slot(bool is_write, std::uint32_t bank_group, Cycle from) const;
  // How many commands at at + i x column_period(), i < count, are legal (`at` itself is).
  [[nodiscard]] std::uint32_t column_prefix(bool is_write, std::uint32_t bank_group, Cycle at,
                                            std::uint32_t count) const;
  // Calls visit(run) for every recorded run that may constrain a column command in [low, high], given the widest
  // gap from the new command to a recorded one (reach_before) and from a recorded one to it (reach_after).
  template <class Visit>
  void for_each_column_run(Cycle low, Cycle high, Cycle reach_before, Cycle reach_after, Visit&& visit) const;
  void record_columns(const ColumnRun& run);
  void issue_columns(DramCommand command, std::uint32_t bank, Cycle at, std::uint32_t count, bool uses_bus);
  [[nodiscard]] const CommandBus& column_bus() const { return column_bus_; }
  [[nodiscard]] CommandBus& column_bus() { return column_bus_; }
  [[nodiscard]] const CommandBus& row_bus() const {
    if (!timing_.separate_row_bus) return column_bus();
    return shared_row_bus_ != nullptr ? *shared_row_bus_ : row_bus_;
  }
  [[nodiscard]] CommandBus& row_bus() {
    if (!timing_.separate_row_bus) return column_bus();
    return shared_row_bus_ != nullptr ? *shared_row_bus_ : row_bus_;
  }

  CheckerTiming timing_;
  std::uint32_t banks_per_group_;
  std::vector<BankTiming> banks_;
  std::vector<std::uint32_t> group_of_bank_;  // bank / banks_per_group_, looked up (a division per call is slow)
  // ACTs and column commands not yet too old to matter (forget_before), sorted by cycle, oldest first, so that a
  // check stops at the first command too old to constrain it.
  // A vector with a moving front: pruning advances `head`, the dead prefix is dropped now and then: once it is as
  // long as the live part and kCompactAfter entries. The live part is a handful of entries, so a small bound keeps
  // the vector's memory a few cache lines that are reused while warm (1024 made every few records touch a cold line
  // across 160 channels).
  static constexpr std::size_t kCompactAfter = 32;
  struct History {
    std::vector<Recorded> items;
    std::size_t head = 0;
    [[nodiscard]] const Recorded* begin() const { return items.data() + head; }
    [[nodiscard]] const Recorded* end() const { return items.data() + items.size(); }
    [[nodiscard]] bool empty() const { return head == items.size(); }
    void pop_front();
  };
  History acts_;
  static void record(History& history, const Recorded& command);
  // Column runs not yet too old to matter, sorted by start; `column_head_` is the first live one.
  std::vector<ColumnRun> column_runs_;
  std::size_t column_head_ = 0;
  Cycle column_span_ = 0;    // the longest last - start of a run recorded (issue_columns), and of any kept run
  Cycle column_period_ = 1;  // max(tCCD_L, burst), rounded up to whole tCCD_S slots (see the constructor)
  int period_shift_ = -1;    // log2(column_period_) when it is a power of two (divisions become shifts)
  // floor(a / column_period_), and a modulo column_period_ in [0, column_period_).
  [[nodiscard]] Cycle period_floor(Cycle a) const;
  [[nodiscard]] int period_residue(Cycle a) const;
  bool columns_imply_bus_ = false;  // the column bus carries only column commands, always further apart than CAS
  // Per direction and bank group, the last stretch [first, second) of cycles known illegal for a column command:
  // found so by a search, extended by the runs of that group and direction placed since (a memo of column_slot()).
  mutable std::vector<std::pair<Cycle, Cycle>> column_blocked_;
  Cycle max_column_gap_ = 0, max_act_gap_ = 0;  // no recorded command older than this many cycles can constrain
  Cycle column_gap_[2][2][2] = {};              // [second is write][first is write][same bank group]
  // column_slot()'s view of column_gap_: [new is write][recorded is write][same bank group], the gap after and
  // before a recorded command and the residues (modulo the period) it forbids, from residue 0.
  struct ColumnSlotGaps {
    Cycle after = 0, before = 0;
    std::uint64_t span = 0;
  };
  ColumnSlotGaps column_slot_gaps_[2][2][2] = {};
  // Per direction of a new column command, its widest gap after (before) a recorded one of any kind.
  Cycle column_reach_after_[2] = {}, column_reach_before_[2] = {};
  // The same over recorded commands of the new command's own direction only, and the widest gap after a recorded
  // command of the other direction ([new is write]).
  Cycle own_reach_after_[2] = {}, own_reach_before_[2] = {}, other_reach_after_[2] = {};
  // The last command of any run recorded per direction ([is write]; far in the past before the first): a new command
  // at least other_reach_after_ past it has only runs of its own direction within reach, so a search walks the
  // narrower window of its own gaps (a prefill's reads never pay for the wide write-to-read gap).
  Cycle last_column_[2] = {std::numeric_limits<Cycle>::min() / 4, std::numeric_limits<Cycle>::min() / 4};
  CommandBus row_bus_, column_bus_;
  // The row bus of the checker this one shares it with (share_command_buses), or null: its own.
  CommandBus* shared_row_bus_ = nullptr;
  std::vector<IssuedCommand>* log_ = nullptr;
};

}  // namespace roofsim::dram
