#pragma once
// A chart parsed back from its SVG, and the checks every chart must pass: no two text boxes overlap; every label
// drawn in the plot keeps off the reference lines (class "compute" or "bandwidth") and the op markers that are not
// its own; each ceiling label (a text with data-line) lies within a few pixels of its own line and nearer to it
// than to any other; every label drawn in the plot lies inside the plot area. Text boxes use the label placer's metrics
// (sim/report/label_placer.h), which overestimate the glyphs, so a pass means the real text does not collide either.
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <regex>
#include <string>
#include <vector>

#include "sim/report/label_placer.h"

namespace roofsim::test {

struct ChartText {
  std::map<std::string, std::string> attributes;
  std::string content;
  std::vector<Box> boxes;
};

struct ChartLine {
  std::string cls, line_id;  // class and data-line
  std::vector<Segment> segments;
};

inline std::map<std::string, std::string> svg_attributes(const std::string& body) {
  static const std::regex attribute("([a-zA-Z0-9:-]+)=\"([^\"]*)\"");
  std::map<std::string, std::string> attributes;
  for (auto it = std::sregex_iterator(body.begin(), body.end(), attribute); it != std::sregex_iterator(); ++it) {
    attributes[(*it)[1]] = (*it)[2];
  }
  return attributes;
}

inline std::string unescape_svg(std::string text) {
  const std::pair<const char*, const char*> entities[] = {
      {"&lt;", "<"}, {"&gt;", ">"}, {"&quot;", "\""}, {"&amp;", "&"}};
  for (const auto& [entity, plain] : entities) {
    for (auto at = text.find(entity); at != std::string::npos; at = text.find(entity, at + 1)) {
      text.replace(at, std::string(entity).size(), plain);
    }
  }
  return text;
}

// Every <text> element (one per line, as the writers emit them) with its boxes.
inline std::vector<ChartText> chart_texts(const std::string& svg) {
  std::vector<ChartText> texts;
  std::size_t at = 0;
  while ((at = svg.find("<text", at)) != std::string::npos) {
    const auto open_end = svg.find('>', at);
    const auto close = svg.find("</text>", open_end);
    if (open_end == std::string::npos || close == std::string::npos) break;
    ChartText text;
    text.attributes = svg_attributes(svg.substr(at + 5, open_end - at - 5));
    text.content = unescape_svg(svg.substr(open_end + 1, close - open_end - 1));
    at = close;
    if (text.content.empty()) continue;
    const double x = std::stod(text.attributes["x"]), y = std::stod(text.attributes["y"]);
    const double font = text.attributes.count("font-size") ? std::stod(text.attributes["font-size"]) : 12.0;
    const std::string anchor_name = text.attributes.count("text-anchor") ? text.attributes["text-anchor"] : "start";
    const Anchor anchor = anchor_name == "middle" ? Anchor::middle : anchor_name == "end" ? Anchor::end : Anchor::start;
    static const std::regex rotate("rotate\\(([-0-9.]+)");
    std::smatch angle;
    const std::string transform = text.attributes.count("transform") ? text.attributes["transform"] : "";
    if (std::regex_search(transform, angle, rotate) && std::stod(angle[1]) != 0) {
      // Rotated text is drawn about its anchor; rotated_text_boxes takes the text's centre.
      const double degrees = std::stod(angle[1]), radians = degrees * M_PI / 180.0;
      const double width = text_width_px(text.content, font);
      const double shift = anchor == Anchor::start ? width / 2 : anchor == Anchor::end ? -width / 2 : 0.0;
      text.boxes =
          rotated_text_boxes(text.content, x + shift * std::cos(radians), y + shift * std::sin(radians), font, degrees);
    } else {
      text.boxes = {text_box(text.content, x, y, font, anchor)};
    }
    texts.push_back(std::move(text));
  }
  return texts;
}

// The reference lines: <line> and <path> elements of the classes below (and any with data-line).
inline std::vector<ChartLine> chart_lines(const std::string& svg) {
  std::vector<ChartLine> lines;
  static const std::regex element("<(line|path) ([^>]*)>");
  static const std::regex point("([ML])\\s*([-0-9.]+)[ ,]([-0-9.]+)");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), element); it != std::sregex_iterator(); ++it) {
    auto attributes = svg_attributes((*it)[2]);
    const std::string cls = attributes["class"];
    static const char* kReference[] = {"compute",          "bandwidth",        "power",    "power-bound", "arch",
                                       "measured-ceiling", "analytic-ceiling", "reference"};
    const bool reference = std::find(std::begin(kReference), std::end(kReference), cls) != std::end(kReference);
    if (!reference && attributes.count("data-line") == 0) continue;
    ChartLine line{cls, attributes["data-line"], {}};
    if ((*it)[1] == "line") {
      line.segments.push_back({std::stod(attributes["x1"]), std::stod(attributes["y1"]), std::stod(attributes["x2"]),
                               std::stod(attributes["y2"])});
    } else {
      const std::string d = attributes["d"];
      double last_x = 0, last_y = 0;
      bool open = false;
      for (auto p = std::sregex_iterator(d.begin(), d.end(), point); p != std::sregex_iterator(); ++p) {
        const double x = std::stod((*p)[2]), y = std::stod((*p)[3]);
        if ((*p)[1] == "L" && open) line.segments.push_back({last_x, last_y, x, y});
        last_x = x, last_y = y, open = true;
      }
    }
    lines.push_back(std::move(line));
  }
  return lines;
}

// Distance in px from a box to a segment (0 when they touch or cross).
inline double box_segment_distance(const Box& box, const Segment& segment) {
  if (segment_crosses(segment, box)) return 0;
  double best = std::numeric_limits<double>::infinity();
  const auto point_box = [&](double x, double y) {
    const double dx = std::max({box.x0 - x, 0.0, x - box.x1}), dy = std::max({box.y0 - y, 0.0, y - box.y1});
    return std::hypot(dx, dy);
  };
  // The nearest points lie at a segment end or at a box corner's projection on the segment.
  best = std::min(point_box(segment.x0, segment.y0), point_box(segment.x1, segment.y1));
  const double dx = segment.x1 - segment.x0, dy = segment.y1 - segment.y0, length2 = dx * dx + dy * dy;
  for (const auto& [cx, cy] :
       {std::pair<double, double>{box.x0, box.y0}, {box.x1, box.y0}, {box.x0, box.y1}, {box.x1, box.y1}}) {
    const double t =
        length2 > 0 ? std::clamp(((cx - segment.x0) * dx + (cy - segment.y0) * dy) / length2, 0.0, 1.0) : 0;
    best = std::min(best, point_box(segment.x0 + t * dx, segment.y0 + t * dy));
  }
  return best;
}

inline double text_line_distance(const ChartText& text, const ChartLine& line) {
  double best = std::numeric_limits<double>::infinity();
  for (const auto& drawn : text.boxes) {
    // A quarter pixel in from the edges: the SVG's coordinates are rounded to 0.01 px, a touch is not a crossing.
    const Box box{drawn.x0 + 0.25, drawn.y0 + 0.25, drawn.x1 - 0.25, drawn.y1 - 0.25};
    for (const auto& segment : line.segments) best = std::min(best, box_segment_distance(box, segment));
  }
  return best;
}

// The problems of a chart, one sentence each; empty when it passes. `near_px`: how far a ceiling label may lie from
// its own line.
inline std::vector<std::string> chart_label_problems(const std::string& svg, double near_px = 10) {
  std::vector<std::string> problems;
  const auto texts = chart_texts(svg);
  const auto lines = chart_lines(svg);
  // No two texts overlap (the boxes shrunk by a quarter pixel: adjacent is not overlapping).
  for (std::size_t i = 0; i < texts.size(); ++i) {
    for (std::size_t j = i + 1; j < texts.size(); ++j) {
      bool overlap = false;
      for (const auto& a : texts[i].boxes) {
        for (const auto& b : texts[j].boxes) {
          overlap = overlap || Box{a.x0 + 0.25, a.y0 + 0.25, a.x1 - 0.25, a.y1 - 0.25}.overlaps(b);
        }
      }
      if (overlap) problems.push_back("text '" + texts[i].content + "' overlaps '" + texts[j].content + "'");
    }
  }
  // The plot areas (rects of class "plot-area", one per panel): each plot label lies inside one of them.
  std::vector<Box> plot_areas;
  static const std::regex area_rect("<rect class=\"plot-area\"([^>]*)>");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), area_rect); it != std::sregex_iterator(); ++it) {
    auto attributes = svg_attributes((*it)[1]);
    const double x = std::stod(attributes["x"]), y = std::stod(attributes["y"]);
    plot_areas.push_back({x, y, x + std::stod(attributes["width"]), y + std::stod(attributes["height"])});
  }
  // Markers of ops: circles of class "op".
  std::vector<Box> markers;
  static const std::regex circle("<circle class=\"op\"([^>]*)>");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), circle); it != std::sregex_iterator(); ++it) {
    auto attributes = svg_attributes((*it)[1]);
    const double x = std::stod(attributes["cx"]), y = std::stod(attributes["cy"]), r = std::stod(attributes["r"]) - 1;
    markers.push_back({x - r, y - r, x + r, y + r});
  }
  for (const auto& text : texts) {
    const std::string cls = text.attributes.count("class") ? text.attributes.at("class") : "";
    const bool plot_label = cls == "op-label" || cls == "compute-label" || cls == "bandwidth-label" ||
                            cls == "ridge-label" || text.attributes.count("data-line") > 0;
    if (!plot_label) continue;
    const std::string own = text.attributes.count("data-line") ? text.attributes.at("data-line") : "";
    // The own line's class: a roof label must not lie nearer another roof, a bandwidth label another diagonal.
    std::string own_class;
    for (const auto& line : lines) {
      if (!own.empty() && line.line_id == own) own_class = line.cls;
    }
    double own_distance = std::numeric_limits<double>::infinity(), other_distance = own_distance;
    for (const auto& line : lines) {
      const double distance = text_line_distance(text, line);
      if (!own.empty() && line.line_id == own) {
        own_distance = std::min(own_distance, distance);
        continue;
      }
      if (line.cls == own_class) other_distance = std::min(other_distance, distance);
      if (distance == 0) {
        problems.push_back("label '" + text.content + "' lies over the " + line.cls + " line " + line.line_id);
      }
    }
    if (!own.empty()) {
      if (!(own_distance <= near_px)) {
        problems.push_back("label '" + text.content + "' is " + std::to_string(own_distance) + " px from its line " +
                           own);
      }
      // Lines within 2 px of each other (shared memory and the latency line on H100) cannot be told apart by
      // position; their colours tell them apart.
      if (other_distance + 2 < own_distance) {
        problems.push_back("label '" + text.content + "' lies nearer another line than its own " + own);
      }
    }
    // A quarter pixel of slack: the SVG's coordinates are rounded to 0.01 px.
    const auto inside = [&](const Box& area) {
      return std::all_of(text.boxes.begin(), text.boxes.end(), [&](const Box& box) {
        return box.x0 >= area.x0 - 0.25 && box.x1 <= area.x1 + 0.25 && box.y0 >= area.y0 - 0.25 &&
               box.y1 <= area.y1 + 0.25;
      });
    };
    if (!plot_areas.empty() && std::none_of(plot_areas.begin(), plot_areas.end(), inside)) {
      problems.push_back("label '" + text.content + "' lies outside the plot area");
    }
    for (const auto& marker : markers) {
      for (const auto& box : text.boxes) {
        if (box.overlaps(marker)) problems.push_back("label '" + text.content + "' covers an op marker");
      }
    }
  }
  return problems;
}

}  // namespace roofsim::test
