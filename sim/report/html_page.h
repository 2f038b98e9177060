#pragma once
// The one HTML page roofsim writes (report.html of `run`, `roofline` and `sweep`; diff.html of `diff`): a
// self-contained file whose inline script (html/report_page.js) draws the page from a JSON document embedded in it.
// A Content-Security-Policy forbids every request, so the page works offline and shows the same thing anywhere.
// Opened with the fragment #selftest, the script also clicks through its own controls and writes what it saw into a
// <pre id="selftest-result"> (the browser test reads it).
#include <nlohmann/json.hpp>

#include <iosfwd>
#include <string>

namespace roofsim {

// `data` must hold "page": "report", "sweep" or "diff" and the fields that page reads (html_report.h, diff_writers.h).
void write_html_page(const std::string& title, const std::string& subtitle, const nlohmann::ordered_json& data,
                     std::ostream& out);

// Text with &, <, >, " and ' escaped for HTML.
[[nodiscard]] std::string html_escape(const std::string& text);

}  // namespace roofsim
