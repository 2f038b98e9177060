#pragma once
// The controller's policies as small plain classes, chosen at construction by a plain switch (as DRAMSys chooses its
// scheduler, page policy and refresh manager): which queued request goes next, whether a row stays open after an
// access, and when a refresh is due.
#include <cstdint>
#include <limits>
#include <memory>
#include <vector>

#include "models/dram/dram_params.h"
#include "models/dram/dram_timing_checker.h"

namespace roofsim::dram {

constexpr Cycle kNever = std::numeric_limits<Cycle>::max() / 4;

// One schedulable request per bank, as the controller offers them to the scheduler.
struct Candidate {
  std::uint32_t bank = 0;
  std::uint32_t index = 0;  // position in the bank's queue
  std::uint64_t order = 0;  // arrival order in the channel (smaller = older)
  Cycle first_command = 0;  // earliest cycle its first command (PRE, ACT or RD/WR) may issue
  bool row_hit = false;     // its row is the open row of its bank
};

class RequestScheduler {
 public:
  virtual ~RequestScheduler() = default;
  // Whether the oldest queued request goes next regardless of the others, having been passed over `bypassed`
  // times (then no candidates are built).
  [[nodiscard]] virtual bool serves_oldest(std::uint32_t bypassed) const = 0;
  // Whether `a` goes before `b` (one per bank with queued requests: its oldest row hit, else its oldest request, with
  // the earliest cycle its first command may issue): a strict total order that ranks a later first command after an
  // earlier one whatever the rest, so that a candidate known only by a lower bound of that cycle is ranked no earlier
  // than its bound (the controller evaluates the cycle, a timing search, only for candidates that may win). The
  // order is FR-FCFS's for every scheduler (FCFS never ranks): the first command, then row hits, then the oldest. Not
  // virtual: the controller asks it for every bank with queued requests at every decision.
  [[nodiscard]] bool before(const Candidate& a, const Candidate& b) const {
    if (a.first_command != b.first_command) return a.first_command < b.first_command;
    if (a.row_hit != b.row_hit) return a.row_hit;
    return a.order < b.order;
  }
};

// FR-FCFS (Rixner et al., ISCA 2000) with a starvation cap (Mutlu and Moscibroda, MICRO 2007): the request whose first
// command is ready first, row hits before misses at equal readiness, then the oldest; but once the oldest request
// has been passed over `cap` times it goes next. A bank offers its oldest row hit, so a row with queued hits is not
// closed for a miss (until the cap).
class FrFcfsScheduler final : public RequestScheduler {
 public:
  explicit FrFcfsScheduler(std::uint32_t cap) : cap_(cap) {}
  [[nodiscard]] bool serves_oldest(std::uint32_t bypassed) const override { return cap_ > 0 && bypassed >= cap_; }

 private:
  std::uint32_t cap_;
};

// First come, first served: always the oldest request (so it never ranks candidates; asked, it ranks FR-FCFS's way).
class FcfsScheduler final : public RequestScheduler {
 public:
  [[nodiscard]] bool serves_oldest(std::uint32_t) const override { return true; }
};

[[nodiscard]] std::unique_ptr<RequestScheduler> make_scheduler(DramScheduler kind, std::uint32_t frfcfs_cap);

// Whether to precharge (auto-precharge) a row after an access. `queued_hit`: another queued request hits that row.
class RowPolicy {
 public:
  virtual ~RowPolicy() = default;
  [[nodiscard]] virtual bool close_after_access(bool queued_hit) const = 0;
  // Whether close_after_access() looks at `queued_hit` (finding it scans the bank's queues).
  [[nodiscard]] virtual bool needs_queued_hit() const { return false; }
};
// Open page: rows stay open until a conflict needs the bank.
class OpenRowPolicy final : public RowPolicy {
 public:
  [[nodiscard]] bool close_after_access(bool) const override { return false; }
};
// Closed page: every access auto-precharges.
class ClosedRowPolicy final : public RowPolicy {
 public:
  [[nodiscard]] bool close_after_access(bool) const override { return true; }
};
// Adaptive: keep the row open only while a queued request hits it (DRAMSys's "ClosedAdaptive").
class AdaptiveRowPolicy final : public RowPolicy {
 public:
  [[nodiscard]] bool close_after_access(bool queued_hit) const override { return !queued_hit; }
  [[nodiscard]] bool needs_queued_hit() const override { return true; }
};

[[nodiscard]] std::unique_ptr<RowPolicy> make_row_policy(PagePolicy kind);

// When refreshes are due: all-bank every tREFI; per-bank every tREFIsb, each bank once per round of `banks` refreshes
// but in the order the controller finds convenient (JESD235 lets the controller name the bank of each REFSB): a
// bank with no queued request first, so that a stream is not stalled behind a bank that is refreshing; or never.
//
// Postponement (Elastic Refresh, Stuecheli et al., MICRO 2010; DRAMSys's refresh managers): a refresh falling due
// while the channel has queued requests may be postponed (per-bank too: a bank idle when the REFsb is due is often
// the one the stream reaches next, so the channel's load, as Elastic Refresh reads its rank's queue, decides),
// up to `postpone_max` all-bank refreshes' worth (per-bank: that many rounds, DRAMSys's maxPostponed x banks); the
// owed ones go out when the channel is idle, or one per due cycle once the limit is reached, so no more than the limit
// is ever owed (JESD79-4: at most 8 REF postponed, at most 9 tREFI between two REF).
class RefreshManager {
 public:
  RefreshManager(RefreshMode mode, Cycle tREFI, Cycle tREFIsb, std::uint32_t banks, std::uint32_t postpone_max = 0);
  [[nodiscard]] RefreshMode mode() const { return mode_; }
  // The due cycle of the next refresh neither issued nor postponed.
  [[nodiscard]] Cycle next_due() const { return due_; }
  // The bank the next per-bank refresh goes to; `busy` has bit b set when bank b has queued requests.
  [[nodiscard]] std::uint32_t next_bank(std::uint64_t busy) const;
  // The due refresh was issued (to `bank` for per-bank refresh).
  void advance(std::uint32_t bank = 0);

  // Refreshes postponed and not yet issued, and how many may be.
  [[nodiscard]] std::uint64_t owed() const { return owed_; }
  [[nodiscard]] std::uint64_t owed_limit() const { return limit_; }
  // Whether the due refresh may wait: the channel has queued requests (`busy`, per bank) and the limit is not
  // reached.
  [[nodiscard]] bool may_postpone(std::uint64_t busy) const;
  // The due refresh waits: it is owed, and the next one falls due an interval later.
  void postpone();
  // An owed refresh was issued (to `bank` for per-bank refresh).
  void repay(std::uint32_t bank = 0);

  // Refreshes per round: every bank refreshed once (1 all-bank, `banks` per-bank).
  [[nodiscard]] std::uint64_t round() const { return mode_ == RefreshMode::per_bank ? banks_ : 1; }
  [[nodiscard]] Cycle interval() const { return interval_; }
  // No refresh of the current round issued yet.
  [[nodiscard]] bool at_round_start() const { return refreshed_ == 0; }
  // `rounds` whole rounds were issued (at a round start): the next is due that many rounds later.
  void skip_rounds(std::uint64_t rounds);

 private:
  void mark(std::uint32_t bank);
  [[nodiscard]] std::uint64_t all_banks() const {
    return banks_ >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << banks_) - 1;
  }

  RefreshMode mode_;
  Cycle interval_;
  std::uint32_t banks_;
  Cycle due_;
  std::uint64_t limit_;
  std::uint64_t owed_ = 0;
  std::uint64_t refreshed_ = 0;  // banks refreshed in the current round
};

}  // namespace roofsim::dram
