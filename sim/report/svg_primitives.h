#pragma once
// The drawing pieces the report's log-log charts share (roofline.svg and energy.svg): number formatting, text
// escaping, a log axis, decade ranges, line styles, a tiny SVG writer, the decade grid with its ticks and labels,
// a legend column and wrapped notes. Deterministic: fixed coordinate formatting.
#include <iosfwd>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/report/label_placer.h"

namespace roofsim::svg {

// The canvas layout the roofline and energy charts share, in px: the plot leaves room on the left for tick labels
// and on the right for the legend.
namespace layout {
inline constexpr double kWidth = 1060;
inline constexpr double kPlotLeft = 84, kPlotTop = 64, kPlotWidth = 660, kPlotHeight = 500;
inline constexpr double kPlotRight = kPlotLeft + kPlotWidth, kPlotBottom = kPlotTop + kPlotHeight;
inline constexpr double kLegendLeft = kPlotRight + 22;
inline constexpr double kFontPx = 12, kSmallFontPx = 10.5, kOpFontPx = 10.5;
inline constexpr double kPointRadius = 4;
}  // namespace layout

[[nodiscard]] std::string px(double value);  // "12.34"
[[nodiscard]] std::string escape(std::string_view text);
[[nodiscard]] const char* anchor_name(Anchor anchor);

struct LogAxis {
  double lo_exp = 0, hi_exp = 1;  // decades at the ends
  double px_lo = 0, px_hi = 1;    // pixel of lo and hi (y runs upwards: px_lo > px_hi)
  [[nodiscard]] double map(double value) const;
};

// Ends of an axis: whole decades around the values, at least `min_decades` wide (widened downwards first: the
// room below holds the slow ops).
[[nodiscard]] std::pair<double, double> decade_range(double lo, double hi, double pad, int min_decades);

struct LineStyle {
  std::string colour;
  double width = 1.5;
  std::string dash;  // "" solid
};

[[nodiscard]] std::string dash_attr(const std::string& dash);

// Colours (colour-blind-safe palette of Okabe and Ito, 2008) by what limits an op, and the legend's category.
[[nodiscard]] std::string bound_colour(const std::string& bound_by);
[[nodiscard]] std::string bound_category(const std::string& bound_by);

class SvgOut {
 public:
  explicit SvgOut(std::ostream& out) : out_(out) {}
  void raw(const std::string& text);
  void line(double x1, double y1, double x2, double y2, const LineStyle& style, const std::string& cls = "",
            const std::string& attributes = "");
  // `attributes`: more attributes written after the class (` data-line="roof-0"`), for tests that read the chart.
  void text(double x, double y, std::string_view content, double font_px, Anchor anchor, const std::string& cls = "",
            const std::string& fill = "#222222", double rotate_deg = 0, bool halo = false,
            const std::string& attributes = "");

 private:
  std::ostream& out_;
};

// The plot area in px.
struct PlotFrame {
  double left = 0, top = 0, width = 0, height = 0;
  [[nodiscard]] double right() const { return left + width; }
  [[nodiscard]] double bottom() const { return top + height; }
};

// Decade grid lines, ticks and labels (decade_label) on both axes, with minor ticks at 2..9; y may end between
// decades (its top decade label is drawn only when inside).
void draw_log_grid(SvgOut& svg, const PlotFrame& frame, const LogAxis& x_axis, const LogAxis& y_axis, double font_px);

// A legend column: titles, line swatches with text, and markers; tracks its right edge and bottom.
class Legend {
 public:
  Legend(double left, double top, double font_px, double small_font_px);
  void title(const std::string& text);
  void line(const LineStyle& style, const std::string& text);
  // A circle marker of `colour` (and class `cls` when given) followed by text.
  void circle(const std::string& colour, double radius, const std::string& text);
  // A line of text alone (a key entry).
  void text(const std::string& text);
  void gap(double px_height) { y_ += px_height; }
  [[nodiscard]] double y() const { return y_; }
  [[nodiscard]] double left() const { return left_; }
  [[nodiscard]] double right() const { return right_; }
  [[nodiscard]] std::string body() const { return body_.str(); }
  [[nodiscard]] SvgOut& out() { return out_; }

 private:
  double left_, y_, font_px_, small_font_px_, right_;
  std::ostringstream body_;
  SvgOut out_{body_};
};

// The page around a log-log plot of the shared layout: title and subtitle above, the plot area's rectangle, the
// body (grid, lines, markers, labels), axis titles, the legend column and the wrapped notes below; the page grows to
// hold the legend and the notes.
struct LayoutPage {
  std::string title, subtitle, x_title, y_title;
  std::vector<std::string> notes;
  bool frame_over_body = false;  // a second rectangle (class plot-frame) over the body, so that lines end under it
};
void write_layout_page(std::ostream& stream, const LayoutPage& page, const std::string& body, const Legend& legend);

// Notes broken into lines of at most `wrap` characters at word boundaries.
[[nodiscard]] std::vector<std::string> wrap_notes(const std::vector<std::string>& notes, std::size_t wrap);

// The opening of a chart of the shared layout: XML declaration, <svg> of `width` x `height` px, the clip path of the
// plot area (id "plot-clip") and a white background.
void open_layout_document(std::ostream& stream, double width, double height);

}  // namespace roofsim::svg
