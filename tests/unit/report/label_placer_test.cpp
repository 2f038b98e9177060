// Label collision avoidance: overlapping or out-of-bounds labels are refused, free space is taken.
#include <doctest/doctest.h>

#include "sim/report/label_placer.h"
#include "sim/report/op_labels.h"

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

TEST_CASE("a label may not cross a line, except the line it belongs to") {
  LabelPlacer placer(Box{0, 0, 200, 100});
  placer.block_line(Segment{0, 50, 200, 50, 7});
  const auto across = text_box("label", 50, 54, 10, Anchor::start);  // from y = 46 to 56.5
  CHECK_FALSE(placer.fits({across}));
  CHECK_FALSE(placer.fits({across}, 3));
  CHECK(placer.fits({across}, 7));
  CHECK(placer.fits({text_box("label", 50, 45, 10, Anchor::start)}));  // ends at 47.5, above the line
  // A diagonal crosses the box only where it passes through it.
  CHECK(segment_crosses(Segment{0, 0, 100, 100}, Box{40, 40, 60, 60}));
  CHECK_FALSE(segment_crosses(Segment{0, 0, 100, 100}, Box{60, 10, 80, 30}));
  CHECK_FALSE(segment_crosses(Segment{0, 0, 30, 30}, Box{40, 40, 60, 60}));
}

TEST_CASE("the placer's work per candidate depends on what is near it, not on how much is placed") {
  // 100,000 markers in the left half of the chart, then 1,000 candidates in the right half: no comparison at all,
  // however many markers there are; then 1,000 candidates among the markers cost at most the markers of the few
  // cells each candidate covers.
  LabelPlacer placer(Box{0, 0, 660, 500});
  std::uint64_t state = 12345;
  const auto next = [&state] {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<double>(state >> 11) / 9007199254740992.0;
  };
  for (int i = 0; i < 100000; ++i) {
    const double x = 300 * next(), y = 500 * next();
    placer.block(Box{x - 1, y - 1, x + 1, y + 1});
  }
  for (int i = 0; i < 1000; ++i)
    (void)placer.fits({text_box("op", 340 + 300 * next(), 20 + 470 * next(), 10, Anchor::start)});
  CHECK(placer.comparisons() == 0);
  for (int i = 0; i < 1000; ++i)
    (void)placer.fits({text_box("op", 20 + 260 * next(), 20 + 470 * next(), 10, Anchor::start)});
  // 100,000 markers over 300 x 500 px: about 11 per 16 px cell, a candidate 13 x 11 px covers at most 4 cells.
  CHECK(placer.comparisons() / 1000 < 4 * 11 * 2);
}

TEST_CASE("op names are summarised by pattern, keeping the numbers all of a group share") {
  CHECK(name_pattern("decoder.l12.attn.qkv") == "decoder.l*.attn.qkv");
  CHECK(summarise_names({"l0.qkv", "l1.qkv", "embed", "l2.qkv"}, 4) == "l*.qkv x3, embed");
  CHECK(summarise_names({"batch=16 cap=250W", "batch=16 cap=300W"}, 4) == "batch=16 cap=*W x2");
  CHECK(summarise_names({"a", "b", "c"}, 2) == "a, b, +1 more");
}
