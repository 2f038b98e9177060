#include "sim/report/svg_primitives.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <ostream>

#include "sim/report/svg_chart.h"

namespace roofsim::svg {

std::string px(double value) {
  return fmt::format("{:.2f}", value);
}

std::string escape(std::string_view text) {
  std::string out;
  for (const char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

const char* anchor_name(Anchor anchor) {
  return anchor == Anchor::start ? "start" : anchor == Anchor::middle ? "middle" : "end";
}

double LogAxis::map(double value) const {
  return px_lo + (std::log10(value) - lo_exp) / (hi_exp - lo_exp) * (px_hi - px_lo);
}

std::pair<double, double> decade_range(double lo, double hi, double pad, int min_decades) {
  double lo_exp = std::floor(std::log10(lo / pad));
  double hi_exp = std::ceil(std::log10(hi * pad));
  while (hi_exp - lo_exp < min_decades) {
    lo_exp -= 1;
    if (hi_exp - lo_exp < min_decades) hi_exp += 1;
  }
  return {lo_exp, hi_exp};
}

std::string dash_attr(const std::string& dash) {
  return dash.empty() ? "" : " stroke-dasharray=\"" + dash + "\"";
}

std::string bound_colour(const std::string& bound_by) {
  if (bound_by.rfind("compute", 0) == 0) return "#0072B2";
  if (bound_by.rfind("memory", 0) == 0) return "#009E73";
  if (bound_by == "dram-rows") return "#8C6D1F";
  if (bound_by == "latency" || bound_by == "launch") return "#CC79A7";
  if (bound_by == "power") return "#D55E00";
  if (bound_by == "network") return "#E69F00";
  return "#555555";
}

std::string bound_category(const std::string& bound_by) {
  if (bound_by.rfind("compute", 0) == 0) return "compute";
  if (bound_by.rfind("memory", 0) == 0) return "memory";
  return bound_by;
}

namespace {
std::string class_attr(const std::string& cls) {
  return cls.empty() ? "" : " class=\"" + cls + "\"";
}
}  // namespace

void SvgOut::raw(const std::string& text) {
  out_ << text << "\n";
}

void SvgOut::line(double x1, double y1, double x2, double y2, const LineStyle& style, const std::string& cls,
                  const std::string& attributes) {
  out_ << "<line" << class_attr(cls) << attributes << " x1=\"" << px(x1) << "\" y1=\"" << px(y1) << "\" x2=\"" << px(x2)
       << "\" y2=\"" << px(y2) << "\" stroke=\"" << style.colour << "\" stroke-width=\"" << px(style.width) << "\""
       << dash_attr(style.dash) << "/>\n";
}

void SvgOut::text(double x, double y, std::string_view content, double font_px, Anchor anchor, const std::string& cls,
                  const std::string& fill, double rotate_deg, bool halo, const std::string& attributes) {
  out_ << "<text" << class_attr(cls) << attributes << " x=\"" << px(x) << "\" y=\"" << px(y) << "\" font-size=\""
       << px(font_px) << "\" text-anchor=\"" << anchor_name(anchor) << "\" fill=\"" << fill << "\"";
  if (rotate_deg != 0) out_ << " transform=\"rotate(" << px(rotate_deg) << " " << px(x) << " " << px(y) << ")\"";
  if (halo) out_ << " stroke=\"#FFFFFF\" stroke-width=\"3\" stroke-linejoin=\"round\" paint-order=\"stroke\"";
  out_ << ">" << escape(content) << "</text>\n";
}

void draw_log_grid(SvgOut& svg, const PlotFrame& frame, const LogAxis& x_axis, const LogAxis& y_axis, double font_px) {
  const double x_lo = x_axis.lo_exp, x_hi = x_axis.hi_exp, y_lo = y_axis.lo_exp, y_hi = y_axis.hi_exp;
  for (int e = static_cast<int>(x_lo); e <= static_cast<int>(x_hi); ++e) {
    const double x = x_axis.map(std::pow(10.0, e));
    svg.line(x, frame.top, x, frame.bottom(), {"#E3E3E3", 1, ""}, "grid-x");
    svg.line(x, frame.bottom(), x, frame.bottom() + 6, {"#333333", 1, ""}, "tick-x");
    svg.text(x, frame.bottom() + 20, decade_label(e), font_px, Anchor::middle, "tick-label-x");
    for (int m = 2; m <= 9 && e < static_cast<int>(x_hi); ++m) {
      const double mx = x_axis.map(m * std::pow(10.0, e));
      svg.line(mx, frame.bottom(), mx, frame.bottom() + 3, {"#666666", 0.8, ""}, "minor-tick-x");
    }
  }
  for (int e = static_cast<int>(y_lo); e <= static_cast<int>(std::floor(y_hi)); ++e) {
    const double y = y_axis.map(std::pow(10.0, e));
    svg.line(frame.left, y, frame.right(), y, {"#E3E3E3", 1, ""}, "grid-y");
    svg.line(frame.left - 6, y, frame.left, y, {"#333333", 1, ""}, "tick-y");
    svg.text(frame.left - 9, y + 4, decade_label(e), font_px, Anchor::end, "tick-label-y");
    for (int m = 2; m <= 9 && std::log10(m) + e < y_hi; ++m) {
      const double my = y_axis.map(m * std::pow(10.0, e));
      svg.line(frame.left - 3, my, frame.left, my, {"#666666", 0.8, ""}, "minor-tick-y");
    }
  }
}

Legend::Legend(double left, double top, double font_px, double small_font_px)
    : left_(left), y_(top), font_px_(font_px), small_font_px_(small_font_px), right_(left) {}

void Legend::title(const std::string& text) {
  out_.text(left_, y_ + 4, text, font_px_, Anchor::start, "legend-title", "#000000");
  y_ += 18;
}

void Legend::line(const LineStyle& style, const std::string& text) {
  right_ = std::max(right_, left_ + 36 + text_width_px(text, small_font_px_) * 0.92);
  out_.line(left_, y_, left_ + 28, y_, style, "legend-swatch");
  out_.text(left_ + 36, y_ + 4, text, small_font_px_, Anchor::start, "legend-text");
  y_ += 16;
}

void Legend::circle(const std::string& colour, double radius, const std::string& text) {
  body_ << "<circle cx=\"" << px(left_ + 14) << "\" cy=\"" << px(y_) << "\" r=\"" << px(radius) << "\" fill=\""
        << colour << "\"/>\n";
  out_.text(left_ + 36, y_ + 4, text, small_font_px_, Anchor::start, "legend-text");
  y_ += 16;
}

void Legend::text(const std::string& text) {
  right_ = std::max(right_, left_ + text_width_px(text, small_font_px_) * 0.92);
  out_.text(left_, y_ + 4, text, small_font_px_, Anchor::start, "legend-text");
  y_ += 16;
}

std::vector<std::string> wrap_notes(const std::vector<std::string>& notes, std::size_t wrap) {
  std::vector<std::string> lines;
  for (const auto& note : notes) {
    std::string current;
    std::istringstream words(note);
    std::string word;
    while (words >> word) {
      if (!current.empty() && current.size() + 1 + word.size() > wrap) {
        lines.push_back(current);
        current.clear();
      }
      current += (current.empty() ? "" : " ") + word;
    }
    if (!current.empty()) lines.push_back(current);
  }
  return lines;
}

void open_layout_document(std::ostream& stream, double width, double height) {
  using namespace layout;
  stream << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  stream << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << px(width) << "\" height=\"" << px(height)
         << "\" viewBox=\"0 0 " << px(width) << " " << px(height)
         << "\" font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\">\n";
  stream << "<defs><clipPath id=\"plot-clip\"><rect x=\"" << px(kPlotLeft) << "\" y=\"" << px(kPlotTop) << "\" width=\""
         << px(kPlotWidth) << "\" height=\"" << px(kPlotHeight) << "\"/></clipPath></defs>\n";
  stream << "<rect width=\"100%\" height=\"100%\" fill=\"#FFFFFF\"/>\n";
}

void write_layout_page(std::ostream& stream, const LayoutPage& page, const std::string& body, const Legend& legend) {
  using namespace layout;
  const double notes_top = kPlotBottom + 62;
  // A legend that reaches below the plot shares the notes' rows, so the notes then end where the legend begins (and
  // are wrapped at the wider text estimate the label checks use).
  const bool legend_beside_notes = legend.y() > notes_top && legend.left() < kWidth - 24;
  const auto note_lines = wrap_notes(
      page.notes, legend_beside_notes
                      ? static_cast<std::size_t>(std::max(20.0, (legend.left() - 8 - 24) / (kSmallFontPx * 0.65)))
                      : static_cast<std::size_t>((kWidth - 2 * 24) / (kSmallFontPx * 0.56)));
  const double width = std::max(kWidth, legend.right() + 16);
  const double height = std::max(notes_top + 16.0 * static_cast<double>(note_lines.size()) + 12, legend.y() + 12);
  open_layout_document(stream, width, height);
  SvgOut head(stream);
  head.text(kPlotLeft, 24, page.title, 16, Anchor::start, "title", "#000000");
  head.text(kPlotLeft, 44, page.subtitle, kSmallFontPx, Anchor::start, "subtitle", "#555555");
  const auto rectangle = [&](const char* cls) {
    stream << "<rect class=\"" << cls << "\" x=\"" << px(kPlotLeft) << "\" y=\"" << px(kPlotTop) << "\" width=\""
           << px(kPlotWidth) << "\" height=\"" << px(kPlotHeight) << "\" fill=\"none\" stroke=\"#333333\"/>\n";
  };
  rectangle("plot-area");
  stream << body;
  if (page.frame_over_body) rectangle("plot-frame");
  head.text(kPlotLeft + kPlotWidth / 2, kPlotBottom + 42, page.x_title, kFontPx, Anchor::middle, "axis-title-x",
            "#000000");
  head.text(24, kPlotTop + kPlotHeight / 2, page.y_title, kFontPx, Anchor::middle, "axis-title-y", "#000000", -90);
  stream << legend.body();
  for (std::size_t i = 0; i < note_lines.size(); ++i) {
    head.text(24, notes_top + 16.0 * static_cast<double>(i), note_lines[i], kSmallFontPx, Anchor::start, "note",
              "#444444");
  }
  stream << "</svg>\n";
}

}  // namespace roofsim::svg
