// PacedTransfers against closed forms: each transfer's amount is spent at an even pace over its interval, transfers
// done by a reading fold into their op's total, and the total after the last interval is the sum of the amounts.
#include <doctest/doctest.h>

#include <vector>

#include "models/kernel/paced_transfers.h"

using namespace roofsim;

TEST_CASE("paced transfers: each op's amount is spent evenly over its intervals, whole once they end") {
  PacedTransfers transfers;
  transfers.add(0, 100, 200, 1000.0);  // 10 per fs
  transfers.add(1, 150, 250, 500.0);   // 5 per fs
  transfers.add(0, 300, 300, 7.0);     // no duration: spent at its end
  const auto spent_by = [&](TimeFs at_fs) {
    transfers.read(at_fs);
    return std::vector<double>{transfers.spent(0), transfers.spent(1)};
  };
  std::vector<double> spent;
  spent = spent_by(50);
  CHECK(spent[0] == 0.0);
  CHECK(spent[1] == 0.0);
  CHECK(transfers.busy_after(50));
  spent = spent_by(175);
  CHECK(transfers.busy_after(175, 1));
  CHECK_FALSE(transfers.busy_after(250, 1));
  CHECK(spent[0] == doctest::Approx(750.0));
  CHECK(spent[1] == doctest::Approx(125.0));
  spent = spent_by(250);
  CHECK(spent[0] == 1000.0);
  CHECK(spent[1] == 500.0);
  CHECK(transfers.busy_after(250));
  spent = spent_by(300);
  CHECK(spent[0] == 1007.0);
  CHECK_FALSE(transfers.busy_after(300));
  // A transfer added later, for an op not seen before, adds to what its op spent.
  transfers.add(1, 400, 500, 100.0);
  spent = spent_by(450);
  CHECK(spent[0] == 1007.0);
  CHECK(spent[1] == doctest::Approx(550.0));
}
