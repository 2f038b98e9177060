#pragma once
// Collision avoidance for chart labels: a label is a set of axis-aligned boxes (one for horizontal text, a chain of
// small boxes along the baseline for rotated text); a label is placed at the first candidate position whose boxes
// stay inside the bounds and overlap nothing placed before. Plain geometry, tested without any SVG.
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
  explicit LabelPlacer(Box bounds) : bounds_(bounds) {}

  // Reserves space that labels must avoid (markers, the legend).
  void block(const Box& box) { placed_.push_back(box); }
  // True (and reserves the boxes) when they fit inside the bounds and overlap nothing reserved.
  bool try_place(const std::vector<Box>& boxes);
  [[nodiscard]] bool fits(const std::vector<Box>& boxes) const;

 private:
  Box bounds_;
  std::vector<Box> placed_;
};

}  // namespace roofsim
