// Label collision avoidance: overlapping or out-of-bounds labels are refused, free space is taken.
#include <doctest/doctest.h>

#include "sim/report/label_placer.h"

using namespace roofsim;

TEST_CASE("a label that overlaps a placed one or leaves the bounds is refused") {
  LabelPlacer placer(Box{0, 0, 200, 100});
  const auto first = text_box("gemm", 10, 20, 10, Anchor::start);
  CHECK(placer.try_place({first}));
  CHECK_FALSE(placer.try_place({text_box("softmax", 20, 22, 10, Anchor::start)}));
  CHECK(placer.try_place({text_box("softmax", 20, 40, 10, Anchor::start)}));
  CHECK_FALSE(placer.try_place({text_box("outside", 195, 60, 10, Anchor::start)}));
  CHECK(placer.try_place({text_box("inside", 195, 60, 10, Anchor::end)}));
  placer.block({100, 80, 110, 90});
  CHECK_FALSE(placer.fits({text_box("x", 105, 88, 10, Anchor::middle)}));
}

TEST_CASE("text boxes follow the anchor and rotated text is a chain of boxes along its direction") {
  const auto start = text_box("abcd", 100, 50, 10, Anchor::start);
  const auto end = text_box("abcd", 100, 50, 10, Anchor::end);
  CHECK(start.x0 == doctest::Approx(100));
  CHECK(end.x1 == doctest::Approx(100));
  CHECK(start.x1 - start.x0 == doctest::Approx(text_width_px("abcd", 10)));
  const auto chain = rotated_text_boxes("abcdefghij", 100, 100, 10, -45);
  REQUIRE(chain.size() > 2);
  // Going up and to the right at -45 degrees.
  CHECK(chain.back().x0 > chain.front().x0);
  CHECK(chain.back().y0 < chain.front().y0);
}
