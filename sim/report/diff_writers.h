#pragma once
// The writers of `roofsim diff` (sim/results/result_diff.h): the console table and diff.html.
#include <nlohmann/json.hpp>

#include <iosfwd>

#include "sim/results/result_diff.h"

namespace roofsim {

// One row per op (A's order, then the ops only B has): the simulated times and their ratio B/A, the ratio of bytes
// at each level, and the bound of each side where it changed; a head line with the totals and counts.
void write_diff_table(const ResultDiff& diff, std::ostream& out);

// The data of the diff page (html_page.h) and the page itself.
[[nodiscard]] nlohmann::ordered_json diff_page_data(const ResultDiff& diff);
void write_diff_html(const ResultDiff& diff, std::ostream& out);

}  // namespace roofsim
