#include "sim/report/label_placer.h"

#include <algorithm>
#include <cmath>

namespace roofsim {

double text_width_px(std::string_view text, double font_px) {
  return static_cast<double>(text.size()) * font_px * 0.65;
}

Box text_box(std::string_view text, double x, double y, double font_px, Anchor anchor) {
  const double width = text_width_px(text, font_px);
  const double left = anchor == Anchor::start ? x : anchor == Anchor::middle ? x - width / 2 : x - width;
  // Ascenders reach about 0.8 em above the baseline, descenders about 0.25 em below.
  return {left, y - 0.8 * font_px, left + width, y + 0.25 * font_px};
}

std::vector<Box> rotated_text_boxes(std::string_view text, double x, double y, double font_px, double angle_deg) {
  const double width = text_width_px(text, font_px);
  const double radians = angle_deg * M_PI / 180.0;
  const double ux = std::cos(radians), uy = std::sin(radians);
  const double half = font_px * 0.55;
  const int pieces = std::max(1, static_cast<int>(std::ceil(width / font_px)));
  std::vector<Box> boxes;
  for (int i = 0; i <= pieces; ++i) {
    const double along = -width / 2 + width * i / pieces;
    // The glyphs sit above the baseline: shift the chain by half an em along the text's normal (-uy, ux) upwards.
    const double cx = x + along * ux + uy * 0.35 * font_px;
    const double cy = y + along * uy - ux * 0.35 * font_px;
    boxes.push_back({cx - half, cy - half, cx + half, cy + half});
  }
  return boxes;
}

bool LabelPlacer::fits(const std::vector<Box>& boxes) const {
  for (const auto& box : boxes) {
    if (!box.inside(bounds_)) return false;
    for (const auto& other : placed_) {
      if (box.overlaps(other)) return false;
    }
  }
  return true;
}

bool LabelPlacer::try_place(const std::vector<Box>& boxes) {
  if (!fits(boxes)) return false;
  placed_.insert(placed_.end(), boxes.begin(), boxes.end());
  return true;
}

}  // namespace roofsim
