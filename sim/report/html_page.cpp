#include "sim/report/html_page.h"

#include <ostream>

#include "sim/report/html/page_assets.h"

namespace roofsim {

namespace {

// Catches errors from the first line on (the page's own script reports into the same list), so a test sees them.
constexpr const char* kErrorHook =
    "window.roofsimErrors=[];"
    "window.addEventListener('error',function(e){window.roofsimErrors.push(String(e.message));});"
    "(function(){var o=console.error;console.error=function(){"
    "window.roofsimErrors.push(Array.prototype.join.call(arguments,' '));o.apply(console,arguments);};})();";

// JSON inside <script type="application/json">: a "<" could close the element ("</script>") or open a comment, so
// every "<" is written as its JSON escape; the document reads back the same.
std::string script_safe_json(const nlohmann::ordered_json& data) {
  const std::string text = data.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    if (c == '<') {
      out += "\\u003c";
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace

std::string html_escape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

void write_html_page(const std::string& title, const std::string& subtitle, const nlohmann::ordered_json& data,
                     std::ostream& out) {
  out << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      << "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; script-src 'unsafe-inline'; "
         "style-src 'unsafe-inline'; img-src data:\">\n"
      << "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      << "<meta name=\"generator\" content=\"roofsim\">\n"
      << "<title>" << html_escape(title) << "</title>\n"
      << "<script>" << kErrorHook << "</script>\n"
      << "<style>\n"
      << html_assets::kPageStyle << "</style>\n</head>\n<body>\n<header><h1>" << html_escape(title) << "</h1><p>"
      << html_escape(subtitle) << "</p></header>\n<main id=\"app\"></main>\n"
      << "<noscript><p>This report draws its charts and tables with JavaScript; the same figures are in "
         "report.json and ops.csv beside it.</p></noscript>\n"
      << "<script type=\"application/json\" id=\"roofsim-data\">" << script_safe_json(data) << "</script>\n"
      << "<script>\n"
      << html_assets::kPageScript << "</script>\n</body>\n</html>\n";
}

}  // namespace roofsim
