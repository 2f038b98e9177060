#pragma once
// Collision avoidance for chart labels: a label is a set of axis-aligned boxes (one for horizontal text, a chain of
// small boxes along the baseline for rotated text); a label is placed at the first candidate position whose boxes
// stay inside the bounds and overlap nothing reserved before: no other label, no marker, no line. Plain geometry,
// tested without any SVG.
//
// Reserved boxes and line segments are filed in a uniform grid of cells over the bounds, so that a candidate is
// compared only with what lies in the cells it covers: the work per candidate depends on how crowded its
// neighbourhood is, not on how many labels, markers and lines the chart holds.
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace roofsim {

struct Box {
  double x0 = 0, y0 = 0, x1 = 0, y1 = 0;  // x0 <= x1, y0 <= y1 (SVG coordinates: y grows downwards)

  [[nodiscard]] bool overlaps(const Box& other) const {
    return x0 < other.x1 && other.x0 < x1 && y0 < other.y1 && other.y0 < y1;
  }
  [[nodiscard]] bool inside(const Box& bounds) const {
    return x0 >= bounds.x0 && x1 <= bounds.x1 && y0 >= bounds.y0 && y1 <= bounds.y1;
  }
};

// A straight line from (x0, y0) to (x1, y1) that labels must not cross, except the labels of its owner (a chart line
// made of several segments has one owner id; -1: no owner).
struct Segment {
  double x0 = 0, y0 = 0, x1 = 0, y1 = 0;
  int owner = -1;
};

// True when the segment passes through the box's interior (Liang and Barsky's clipping).
[[nodiscard]] bool segment_crosses(const Segment& segment, const Box& box);

// Width of a text in a sans-serif font, estimated generously (0.65 em per character: DejaVu Sans digits are 0.636 em)
// so that real glyphs fit.
[[nodiscard]] double text_width_px(std::string_view text, double font_px);

enum class Anchor { start, middle, end };

// The box of horizontal text drawn at (x, y) (y is the baseline) with an SVG text-anchor.
[[nodiscard]] Box text_box(std::string_view text, double x, double y, double font_px, Anchor anchor);

// Boxes along text drawn centred at (x, y) and rotated by `angle_deg` (SVG: clockwise positive).
[[nodiscard]] std::vector<Box> rotated_text_boxes(std::string_view text, double x, double y, double font_px,
                                                  double angle_deg);

class LabelPlacer {
 public:
  // `cell_px`: the grid's cell size; about a label's height keeps the cells' contents few and the cells per label few.
  explicit LabelPlacer(Box bounds, double cell_px = 16);

  // Reserves space that labels must avoid (markers, the legend).
  void block(const Box& box);
  // Reserves a line: no label may cross it.
  void block_line(const Segment& segment);
  // True (and reserves the boxes) when they fit inside the bounds and overlap nothing reserved; the segments of
  // `own_line` (a line's label beside it) do not count.
  bool try_place(const std::vector<Box>& boxes, int own_line = -1);
  [[nodiscard]] bool fits(const std::vector<Box>& boxes, int own_line = -1) const;

  // Tests of a candidate box against a reserved box or segment made so far: the placer's work, which a unit test
  // bounds (a count, unlike a time, does not depend on the machine).
  [[nodiscard]] std::uint64_t comparisons() const { return comparisons_; }

 private:
  struct CellRange {
    std::size_t col0, col1, row0, row1;
  };
  [[nodiscard]] CellRange cells_of(const Box& box) const;
  void file(const Box& box, std::uint32_t item);

  Box bounds_;
  double cell_px_;
  std::size_t cols_, rows_;
  std::vector<Box> boxes_;
  std::vector<Segment> segments_;
  // Items per cell: index into boxes_, or into segments_ with the top bit set.
  std::vector<std::vector<std::uint32_t>> cells_;
  // A stamp per item so that an item filed in several cells is compared once per candidate box.
  mutable std::vector<std::uint32_t> box_seen_, segment_seen_;
  mutable std::uint32_t stamp_ = 0;
  mutable std::uint64_t comparisons_ = 0;
};

}  // namespace roofsim
