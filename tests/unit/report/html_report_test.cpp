// report.html: one self-contained file (no request leaves it), the same bytes for the same report, and the embedded
// data the page draws from reads back with each op's figures, whatever characters the op names hold.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include <sstream>

#include "sim/report/html_report.h"
#include "tests/support/test_paths.h"
#include "tests/unit/report/report_fixture.h"

using namespace roofsim;

namespace {

std::string page_text(const Report& report) {
  std::ostringstream out;
  write_report_html(report, out);
  return out.str();
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// The JSON between <script type="application/json" id="roofsim-data"> and its </script>.
nlohmann::ordered_json embedded_data(const std::string& page) {
  const std::string open = "<script type=\"application/json\" id=\"roofsim-data\">";
  const auto begin = page.find(open);
  REQUIRE(begin != std::string::npos);
  const auto end = page.find("</script>", begin);
  REQUIRE(end != std::string::npos);
  return nlohmann::ordered_json::parse(page.substr(begin + open.size(), end - begin - open.size()));
}

}  // namespace

TEST_CASE("report.html: self-contained, deterministic, and its data holds every op with its binding ceiling") {
  const auto device = test::h100_like_device();
  auto report = test::sample_report(device);
  report.roofs = device_lines(device);
  report.ops[0].sim_time_s = 2e-3;
  report.ops[0].achieved_flops_per_s = 5e14;
  report.ops[0].extra["gap"] = {
      {"ceiling_time_s", 1.5e-3}, {"gap_s", 0.5e-3}, {"causes_s", {{"tail", 0.3e-3}, {"latency", 0.2e-3}}}};
  const auto page = page_text(report);
  CHECK(page == page_text(report));
  CHECK(page.rfind("<!DOCTYPE html>", 0) == 0);
  CHECK(page.find("Content-Security-Policy\" content=\"default-src 'none'") != std::string::npos);
  // Nothing to fetch: no external script, style, image or frame.
  CHECK(page.find(" src=\"http") == std::string::npos);
  CHECK(page.find("<link") == std::string::npos);
  CHECK(page.find("@import") == std::string::npos);

  const auto data = embedded_data(page);
  CHECK(data.at("page") == "report");
  REQUIRE(data.at("ops").size() == report.ops.size());
  CHECK(data.at("compute_lines").size() == report.roofs->compute.size());
  CHECK(data.at("bandwidth_lines").size() == report.roofs->bandwidth.size());
  for (std::size_t i = 0; i < report.ops.size(); ++i) {
    const auto& op = data.at("ops")[i];
    CHECK(op.at("name") == report.ops[i].name);
    CHECK(op.at("bound_by") == report.ops[i].roofline.bound_by);
    CHECK(op.at("ceiling_y").get<double>() == doctest::Approx(report.ops[i].attainable_flops_per_s()));
  }
  const auto& first = data.at("ops")[0];
  CHECK(first.at("y").get<double>() == doctest::Approx(5e14));
  CHECK(first.at("gap").at("causes")[0][0] == "tail");
  CHECK(first.at("gap").at("causes")[1][1].get<double>() == doctest::Approx(0.2e-3));
  // A roofline report's op has no simulated time: the page puts it on its binding ceiling.
  CHECK(data.at("ops")[1].at("sim_time_s").is_null());
  CHECK(data.at("ops")[1].at("y") == data.at("ops")[1].at("ceiling_y"));
}

TEST_CASE("report.html: an op name that looks like markup stays data") {
  const auto device = test::h100_like_device();
  auto report = test::sample_report(device);
  report.ops[0].name = "</script><script>alert(1)</script><!--";
  report.workload_name = "<b>w</b>";
  const auto page = page_text(report);
  CHECK(count(page, "</script>") == 3);  // the error hook, the data, the page script
  CHECK(page.find("<b>w</b>") == std::string::npos);
  CHECK(embedded_data(page).at("ops")[0].at("name") == report.ops[0].name);
}

TEST_CASE("sweep report.html embeds the sweep's charts as images and its CSV as data") {
  const auto dir = test::scratch_dir("html_report_sweep");
  test::write_file(dir / "sweep.csv", "point,op,sim_time_s\n0,a,1e-6\n0,total,1e-6\n");
  test::write_file(dir / "sweep.svg", "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"10\" height=\"10\"/>");
  std::ostringstream out;
  write_sweep_html("s", dir, out);
  const auto data = embedded_data(out.str());
  CHECK(data.at("page") == "sweep");
  CHECK(data.at("csv") == "point,op,sim_time_s\n0,a,1e-6\n0,total,1e-6\n");
  REQUIRE(data.at("charts").size() == 1);  // sweep_roofline.svg is absent
  // The 64-byte SVG in base64 (RFC 4648): 22 groups of 4 characters, the last padded with "==".
  CHECK(data.at("charts")[0].at("data_uri") ==
        "data:image/"
        "svg+xml;base64,PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciIHdpZHRoPSIxMCIgaGVpZ2h0PSIxMCIvPg==");
}
