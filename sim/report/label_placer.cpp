#include "sim/report/label_placer.h"

#include <algorithm>
#include <cmath>

namespace roofsim {

namespace {
constexpr std::uint32_t kSegmentBit = 0x80000000u;
}  // namespace

bool segment_crosses(const Segment& segment, const Box& box) {
  const double dx = segment.x1 - segment.x0, dy = segment.y1 - segment.y0;
  double t0 = 0, t1 = 1;
  // Each pair (p, q): the segment is inside the half-plane where p t <= q.
  const double p[] = {-dx, dx, -dy, dy};
  const double q[] = {segment.x0 - box.x0, box.x1 - segment.x0, segment.y0 - box.y0, box.y1 - segment.y0};
  for (int i = 0; i < 4; ++i) {
    if (p[i] == 0) {
      // Parallel to this side: outside (or on the border, which is not the interior) means no crossing.
      if (q[i] <= 0) return false;
      continue;
    }
    const double t = q[i] / p[i];
    if (p[i] < 0) {
      t0 = std::max(t0, t);
    } else {
      t1 = std::min(t1, t);
    }
    if (t0 >= t1) return false;
  }
  return true;
}

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
  // Squares of 0.84 em every half em, centred 0.4 em above the baseline: at any angle they cover the glyphs (the
  // baseline to 0.8 em above it) and reach at most 0.2 em below the baseline, so that a label can sit close to its
  // own line without its boxes crossing a line just beyond it.
  const double half = font_px * 0.42;
  const int pieces = std::max(1, static_cast<int>(std::ceil(width / (0.5 * font_px))));
  std::vector<Box> boxes;
  for (int i = 0; i <= pieces; ++i) {
    const double along = -width / 2 + width * i / pieces;
    // Along the text, then up its normal (uy, -ux).
    const double cx = x + along * ux + uy * 0.4 * font_px;
    const double cy = y + along * uy - ux * 0.4 * font_px;
    boxes.push_back({cx - half, cy - half, cx + half, cy + half});
  }
  return boxes;
}

LabelPlacer::LabelPlacer(Box bounds, double cell_px)
    : bounds_(bounds),
      cell_px_(cell_px),
      cols_(std::max<std::size_t>(1, static_cast<std::size_t>(std::ceil((bounds.x1 - bounds.x0) / cell_px)))),
      rows_(std::max<std::size_t>(1, static_cast<std::size_t>(std::ceil((bounds.y1 - bounds.y0) / cell_px)))),
      cells_(cols_ * rows_) {}

LabelPlacer::CellRange LabelPlacer::cells_of(const Box& box) const {
  // Anything outside the bounds is filed in the border cells: a candidate never leaves the bounds, so it meets such
  // an item only in a border cell.
  const auto index = [&](double value, double origin, std::size_t count) {
    const double cell = std::floor((value - origin) / cell_px_);
    if (!(cell > 0)) return std::size_t{0};
    if (cell >= static_cast<double>(count - 1)) return count - 1;
    return static_cast<std::size_t>(cell);
  };
  return {index(box.x0, bounds_.x0, cols_), index(box.x1, bounds_.x0, cols_), index(box.y0, bounds_.y0, rows_),
          index(box.y1, bounds_.y0, rows_)};
}

void LabelPlacer::file(const Box& box, std::uint32_t item) {
  const auto range = cells_of(box);
  for (std::size_t row = range.row0; row <= range.row1; ++row) {
    for (std::size_t col = range.col0; col <= range.col1; ++col) cells_[row * cols_ + col].push_back(item);
  }
}

void LabelPlacer::block(const Box& box) {
  file(box, static_cast<std::uint32_t>(boxes_.size()));
  boxes_.push_back(box);
  box_seen_.push_back(0);
}

void LabelPlacer::block_line(const Segment& segment) {
  const auto item = static_cast<std::uint32_t>(segments_.size()) | kSegmentBit;
  segments_.push_back(segment);
  segment_seen_.push_back(0);
  // File the segment only in the cells it passes through (slightly widened, so that a segment along a cell border
  // is found from both sides).
  const Box extent{std::min(segment.x0, segment.x1), std::min(segment.y0, segment.y1), std::max(segment.x0, segment.x1),
                   std::max(segment.y0, segment.y1)};
  const auto range = cells_of(extent);
  for (std::size_t row = range.row0; row <= range.row1; ++row) {
    for (std::size_t col = range.col0; col <= range.col1; ++col) {
      const double x0 = bounds_.x0 + cell_px_ * static_cast<double>(col);
      const double y0 = bounds_.y0 + cell_px_ * static_cast<double>(row);
      Box cell{x0 - 1, y0 - 1, x0 + cell_px_ + 1, y0 + cell_px_ + 1};
      // Border cells hold everything beyond the bounds as well.
      if (col == 0) cell.x0 = -1e300;
      if (row == 0) cell.y0 = -1e300;
      if (col + 1 == cols_) cell.x1 = 1e300;
      if (row + 1 == rows_) cell.y1 = 1e300;
      if (segment_crosses(segment, cell)) cells_[row * cols_ + col].push_back(item);
    }
  }
}

bool LabelPlacer::fits(const std::vector<Box>& boxes, int own_line) const {
  for (const auto& box : boxes) {
    if (!box.inside(bounds_)) return false;
    if (++stamp_ == 0) {
      std::fill(box_seen_.begin(), box_seen_.end(), 0);
      std::fill(segment_seen_.begin(), segment_seen_.end(), 0);
      stamp_ = 1;
    }
    const auto range = cells_of(box);
    for (std::size_t row = range.row0; row <= range.row1; ++row) {
      for (std::size_t col = range.col0; col <= range.col1; ++col) {
        for (const std::uint32_t item : cells_[row * cols_ + col]) {
          if ((item & kSegmentBit) != 0) {
            const std::uint32_t index = item & ~kSegmentBit;
            if (segment_seen_[index] == stamp_) continue;
            segment_seen_[index] = stamp_;
            ++comparisons_;
            const auto& segment = segments_[index];
            if ((own_line < 0 || segment.owner != own_line) && segment_crosses(segment, box)) return false;
          } else {
            if (box_seen_[item] == stamp_) continue;
            box_seen_[item] = stamp_;
            ++comparisons_;
            if (box.overlaps(boxes_[item])) return false;
          }
        }
      }
    }
  }
  return true;
}

bool LabelPlacer::try_place(const std::vector<Box>& boxes, int own_line) {
  if (!fits(boxes, own_line)) return false;
  for (const auto& box : boxes) block(box);
  return true;
}

}  // namespace roofsim
