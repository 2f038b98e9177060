#pragma once
// "Did you mean": the known names closest to one a user typed (a bundled device, a workload, a configuration key), so
// that an error for `--hw H100` names H100-SXM5 and one for `--set power.capp=450W` names power.cap.
#include <string>
#include <vector>

namespace roofsim {

// The candidates that `name` is a case-insensitive prefix of, or within an edit distance of a third of its length (at
// least 1), nearest first and then in the candidates' order; at most `limit`.
[[nodiscard]] std::vector<std::string> closest_names(const std::string& name,
                                                     const std::vector<std::string>& candidates, std::size_t limit = 3);

// "; did you mean H100-SXM5?" ("...: A, B or C?" for several), or "" when nothing is close.
[[nodiscard]] std::string did_you_mean(const std::string& name, const std::vector<std::string>& candidates);

}  // namespace roofsim
