#include "sim/report/op_labels.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <unordered_map>
#include <utility>

namespace roofsim {

namespace {

// A key entry or summary longer than this widens the legend past the page; it is cut with an ellipsis.
constexpr std::size_t kMaxEntryChars = 72;

std::string cut(std::string text) {
  if (text.size() <= kMaxEntryChars) return text;
  text.resize(kMaxEntryChars - 3);
  return text + "...";
}

}  // namespace

std::string name_pattern(std::string_view name) {
  std::string pattern;
  pattern.reserve(name.size());
  bool in_digits = false;
  for (const char c : name) {
    const bool digit = std::isdigit(static_cast<unsigned char>(c)) != 0;
    if (digit && !in_digits) pattern += '*';
    if (!digit) pattern += c;
    in_digits = digit;
  }
  return pattern;
}

namespace {

// The runs of digits and of other characters of a name, in order.
std::vector<std::string> digit_runs(std::string_view name) {
  std::vector<std::string> runs;
  bool previous_digit = false;
  for (const char c : name) {
    const bool digit = std::isdigit(static_cast<unsigned char>(c)) != 0;
    if (runs.empty() || digit != previous_digit) runs.emplace_back();
    runs.back() += c;
    previous_digit = digit;
  }
  return runs;
}

}  // namespace

std::string summarise_names(const std::vector<std::string>& names, std::size_t max_groups) {
  // A group holds the names of one pattern: its runs as in the first name, and which digit runs vary among them.
  struct Group {
    std::vector<std::string> runs;
    std::vector<bool> varies;
    std::size_t count = 0;
  };
  std::vector<Group> groups;  // in order of first appearance
  std::unordered_map<std::string, std::size_t> index;
  for (const auto& name : names) {
    const auto [at, inserted] = index.emplace(name_pattern(name), groups.size());
    if (inserted) {
      auto runs = digit_runs(name);
      const auto size = runs.size();
      groups.push_back({std::move(runs), std::vector<bool>(size, false), 0});
    } else if (groups[at->second].varies.size() > 0) {
      auto& group = groups[at->second];
      const auto runs = digit_runs(name);
      for (std::size_t r = 0; r < runs.size() && r < group.runs.size(); ++r) {
        if (runs[r] != group.runs[r]) group.varies[r] = true;
      }
    }
    ++groups[at->second].count;
  }
  std::string text;
  std::size_t shown = 0;
  for (std::size_t g = 0; g < groups.size() && g < max_groups; ++g) {
    const auto& group = groups[g];
    std::string name;
    for (std::size_t r = 0; r < group.runs.size(); ++r) name += group.varies[r] ? "*" : group.runs[r];
    text += (g ? ", " : "") + (group.count == 1 ? name : fmt::format("{} x{}", name, group.count));
    shown += group.count;
  }
  if (shown < names.size()) text += fmt::format("{}+{} more", text.empty() ? "" : ", ", names.size() - shown);
  return text;
}

OpKey place_op_labels(const std::vector<OpLabelPoint>& points, LabelPlacer& placer, svg::SvgOut& svg, double font_px,
                      const OpLabelLimits& limits) {
  OpKey key;
  std::vector<std::string> unlabelled;
  std::size_t labels = 0, attempts = 0;
  for (const auto& point : points) {
    bool placed = false;
    if (attempts < limits.max_attempts && (labels < limits.max_labels || key.entries.size() < limits.max_key_entries)) {
      ++attempts;
      // A shared point names its ops' patterns when that stays short; else it gets a number and the legend names them.
      const std::string text = point.names.size() == 1 ? point.names.front() : summarise_names(point.names, 2);
      const bool named = labels < limits.max_labels && text.size() <= 40 && text.find("more") == std::string::npos;
      if (named) {
        for (const double radius : {7.0, 14.0, 24.0}) {
          // Right, left, above, below, then the diagonals.
          const std::pair<double, double> directions[] = {{1, 0},  {-1, 0},  {0, -1}, {0, 1},
                                                          {1, -1}, {-1, -1}, {1, 1},  {-1, 1}};
          for (const auto& [dx, dy] : directions) {
            const Anchor anchor = dx > 0 ? Anchor::start : dx < 0 ? Anchor::end : Anchor::middle;
            const double tx = point.x + dx * radius;
            const double ty = point.y + dy * radius + (dy == 0 ? 0.3 * font_px : dy > 0 ? font_px * 0.8 : 0.0);
            const auto box = text_box(text, tx, ty, font_px, anchor);
            if (!placer.try_place({box})) continue;
            if (radius > 10) {
              const double lx = std::clamp(point.x, box.x0, box.x1), ly = std::clamp(point.y, box.y0, box.y1);
              svg.line(point.x, point.y, lx, ly, {"#999999", 0.7, ""}, "leader");
            }
            svg.text(tx, ty, text, font_px, anchor, "op-label", "#111111", 0, true);
            placed = true;
            ++labels;
            break;
          }
          if (placed) break;
        }
      }
      if (!placed && key.entries.size() < limits.max_key_entries) {
        // No room for the name (or too long a name): a number beside the point, the names in the legend.
        const std::string number = std::to_string(key.entries.size() + 1);
        for (const double radius : {6.0, 11.0, 18.0}) {
          for (const auto& [dx, dy] : {std::pair<double, double>{1, -1}, {-1, -1}, {1, 1}, {-1, 1}, {0, -1}, {0, 1}}) {
            const double tx = point.x + dx * radius, ty = point.y + dy * radius + 0.3 * font_px;
            if (!placer.try_place({text_box(number, tx, ty, font_px, Anchor::middle)})) continue;
            svg.text(tx, ty, number, font_px, Anchor::middle, "op-label", "#111111", 0, true);
            key.entries.push_back(cut(fmt::format("{}: {}", number, summarise_names(point.names, 4))));
            placed = true;
            break;
          }
          if (placed) break;
        }
      }
    }
    if (!placed) {
      ++key.unlabelled_points;
      key.unlabelled_ops += point.names.size();
      unlabelled.insert(unlabelled.end(), point.names.begin(), point.names.end());
    }
  }
  if (!unlabelled.empty()) key.unlabelled_names = summarise_names(unlabelled, 3);
  return key;
}

void draw_op_key(svg::Legend& legend, const OpKey& key) {
  if (key.entries.empty() && key.unlabelled_points == 0) return;
  legend.gap(6);
  legend.title("Op labels");
  for (const auto& entry : key.entries) legend.text(entry);
  if (key.unlabelled_points > 0) {
    legend.text(fmt::format("{} more point{} ({} op{}) unlabelled:", key.unlabelled_points,
                            key.unlabelled_points == 1 ? "" : "s", key.unlabelled_ops,
                            key.unlabelled_ops == 1 ? "" : "s"));
    legend.text(cut(key.unlabelled_names));
  }
}

}  // namespace roofsim
