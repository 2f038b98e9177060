#include "models/dram/dram_policies.h"

namespace roofsim::dram {

std::unique_ptr<RequestScheduler> make_scheduler(DramScheduler kind, std::uint32_t frfcfs_cap) {
  switch (kind) {
    case DramScheduler::fcfs: return std::make_unique<FcfsScheduler>();
    case DramScheduler::frfcfs: break;
  }
  return std::make_unique<FrFcfsScheduler>(frfcfs_cap);
}

std::unique_ptr<RowPolicy> make_row_policy(PagePolicy kind) {
  switch (kind) {
    case PagePolicy::closed: return std::make_unique<ClosedRowPolicy>();
    case PagePolicy::adaptive: return std::make_unique<AdaptiveRowPolicy>();
    case PagePolicy::open: break;
  }
  return std::make_unique<OpenRowPolicy>();
}

RefreshManager::RefreshManager(RefreshMode mode, Cycle tREFI, Cycle tREFIsb, std::uint32_t banks,
                               std::uint32_t postpone_max)
    : mode_(mode),
      interval_(mode == RefreshMode::per_bank ? tREFIsb : tREFI),
      banks_(banks == 0 ? 1 : banks),
      due_(mode == RefreshMode::none || interval_ <= 0 ? kNever : interval_),
      limit_(due_ >= kNever ? 0 : std::uint64_t{postpone_max} * round()) {}

std::uint32_t RefreshManager::next_bank(std::uint64_t busy) const {
  const std::uint64_t pending = all_banks() & ~refreshed_;
  const std::uint64_t idle = pending & ~busy;
  const std::uint64_t choice = idle != 0 ? idle : pending;
  return static_cast<std::uint32_t>(__builtin_ctzll(choice));
}

bool RefreshManager::may_postpone(std::uint64_t busy) const {
  return owed_ < limit_ && busy != 0;
}

void RefreshManager::postpone() {
  ++owed_;
  due_ += interval_;
}

void RefreshManager::mark(std::uint32_t bank) {
  if (mode_ != RefreshMode::per_bank) return;
  refreshed_ |= std::uint64_t{1} << bank;
  if ((refreshed_ & all_banks()) == all_banks()) refreshed_ = 0;
}

void RefreshManager::advance(std::uint32_t bank) {
  if (due_ >= kNever) return;
  due_ += interval_;
  mark(bank);
}

void RefreshManager::repay(std::uint32_t bank) {
  if (owed_ == 0) return;
  --owed_;
  mark(bank);
}

void RefreshManager::skip_rounds(std::uint64_t rounds) {
  if (due_ >= kNever) return;
  due_ += static_cast<Cycle>(rounds * round()) * interval_;
}

}  // namespace roofsim::dram
