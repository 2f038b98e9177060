#include "models/kernel/paced_progress.h"

#include <algorithm>
#include <iterator>

namespace roofsim {

double progress_left(const std::vector<ProgressKnot>& knots, double amount, TimeFs at_fs) {
  if (amount == 0 || knots.empty() || at_fs >= knots.back().at_fs) return 0.0;
  if (at_fs <= knots.front().at_fs) return amount * (1.0 - knots.front().done);
  // The first knot after `at_fs`; the one before it is at or before.
  const auto after =
      std::upper_bound(knots.begin(), knots.end(), at_fs, [](TimeFs t, const ProgressKnot& k) { return t < k.at_fs; });
  const auto before = std::prev(after);
  const double span = static_cast<double>(after->at_fs - before->at_fs);
  const double done = before->done + (after->done - before->done) * static_cast<double>(at_fs - before->at_fs) / span;
  return amount * (1.0 - done);
}

TimeFs time_at_progress(const std::vector<ProgressKnot>& knots, double done) {
  if (knots.empty()) return 0;
  if (done <= knots.front().done) return knots.front().at_fs;
  const auto after =
      std::lower_bound(knots.begin(), knots.end(), done, [](const ProgressKnot& k, double d) { return k.done < d; });
  if (after == knots.end()) return knots.back().at_fs;
  const auto before = std::prev(after);
  if (after->done <= before->done) return after->at_fs;
  const double part = (done - before->done) / (after->done - before->done);
  return before->at_fs + round_fs(part * static_cast<double>(after->at_fs - before->at_fs));
}

}  // namespace roofsim
