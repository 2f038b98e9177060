#include "sim/config/suggestions.h"

#include <algorithm>
#include <cctype>

namespace roofsim {

namespace {

std::string lower(const std::string& text) {
  std::string out = text;
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

// Levenshtein distance (insertions, deletions, substitutions), one row at a time.
std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

}  // namespace

std::vector<std::string> closest_names(const std::string& name, const std::vector<std::string>& candidates,
                                       std::size_t limit) {
  const std::string typed = lower(name);
  if (typed.empty()) return {};
  const std::size_t allowed = std::max<std::size_t>(1, typed.size() / 3);
  std::vector<std::pair<std::size_t, std::size_t>> ranked;  // distance (0 for a prefix), index
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    const std::string candidate = lower(candidates[i]);
    if (candidate == typed) continue;
    if (candidate.rfind(typed, 0) == 0) {
      ranked.emplace_back(0, i);
    } else if (const auto distance = edit_distance(typed, candidate); distance <= allowed) {
      ranked.emplace_back(distance, i);
    }
  }
  std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::string> names;
  for (const auto& [distance, index] : ranked) {
    if (names.size() == limit) break;
    names.push_back(candidates[index]);
  }
  return names;
}

std::string did_you_mean(const std::string& name, const std::vector<std::string>& candidates) {
  const auto names = closest_names(name, candidates);
  if (names.empty()) return "";
  std::string text = "; did you mean ";
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i > 0) text += i + 1 == names.size() ? " or " : ", ";
    text += names[i];
  }
  return text + "?";
}

}  // namespace roofsim
