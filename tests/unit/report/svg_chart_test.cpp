// roofline.svg parsed back: op points inside the plot area, decade ticks on both axes, labels that do not overlap,
// byte-identical output twice.
#include <doctest/doctest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>

#include "sim/report/energy_chart.h"
#include "sim/report/label_placer.h"
#include "sim/report/svg_chart.h"
#include "tests/support/test_paths.h"
#include "tests/unit/report/report_fixture.h"

using namespace roofsim;

namespace {

// Attributes of every element `<tag ... class="cls" ...>` (a small XML scan: our writer puts one element per line).
std::vector<std::map<std::string, std::string>> elements(const std::string& svg, const std::string& tag,
                                                         const std::string& cls) {
  std::vector<std::map<std::string, std::string>> found;
  const std::regex element("<" + tag + " class=\"" + cls + "\"([^>]*)>([^<]*)");
  const std::regex attribute("([a-z0-9-]+)=\"([^\"]*)\"");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), element); it != std::sregex_iterator(); ++it) {
    std::map<std::string, std::string> attrs;
    const std::string body = (*it)[1];
    for (auto a = std::sregex_iterator(body.begin(), body.end(), attribute); a != std::sregex_iterator(); ++a) {
      attrs[(*a)[1]] = (*a)[2];
    }
    attrs["#text"] = (*it)[2];
    found.push_back(attrs);
  }
  return found;
}

double number(const std::map<std::string, std::string>& attrs, const std::string& key) {
  return std::stod(attrs.at(key));
}

std::string render(const Report& report, const DeviceRoof& device) {
  std::ostringstream out;
  write_roofline_svg(report, device, out);
  return out.str();
}

}  // namespace

TEST_CASE("decade labels use SI prefixes") {
  CHECK(decade_label(-2) == "0.01");
  CHECK(decade_label(-1) == "0.1");
  CHECK(decade_label(0) == "1");
  CHECK(decade_label(2) == "100");
  CHECK(decade_label(3) == "1k");
  CHECK(decade_label(4) == "10k");
  CHECK(decade_label(12) == "1T");
  CHECK(decade_label(14) == "100T");
  CHECK(decade_label(15) == "1P");
}

TEST_CASE("every op point lies inside the plot area and both axes carry decade ticks") {
  const auto device = test::h100_like_device();
  const auto report = test::sample_report(device);
  const std::string svg = render(report, device);
  std::ofstream(test::scratch_dir("svg_chart") / "roofline.svg") << svg;

  const auto areas = elements(svg, "rect", "plot-area");
  REQUIRE(areas.size() == 1);
  const double x0 = number(areas[0], "x"), y0 = number(areas[0], "y");
  const double x1 = x0 + number(areas[0], "width"), y1 = y0 + number(areas[0], "height");

  const auto points = elements(svg, "circle", "op");
  // sendrecv has no FLOPs and cannot sit on log-log axes; every other op is a point (ops at the same spot share one).
  int ops_drawn = 0;
  for (const auto& point : points) ops_drawn += std::stoi(point.at("data-ops"));
  CHECK(ops_drawn == static_cast<int>(report.ops.size()) - 1);
  for (const auto& point : points) {
    CHECK(number(point, "cx") > x0);
    CHECK(number(point, "cx") < x1);
    CHECK(number(point, "cy") > y0);
    CHECK(number(point, "cy") < y1);
  }

  for (const std::string axis : {"x", "y"}) {
    const auto ticks = elements(svg, "line", "tick-" + axis);
    const auto labels = elements(svg, "text", "tick-label-" + axis);
    REQUIRE(ticks.size() >= 4);
    REQUIRE(labels.size() == ticks.size());
    // Decades are equally spaced on a log axis, and their labels are successive powers of ten.
    const std::string key = axis == "x" ? "x1" : "y1";
    const double step = number(ticks[1], key) - number(ticks[0], key);
    for (std::size_t i = 1; i < ticks.size(); ++i) {
      CHECK(number(ticks[i], key) - number(ticks[i - 1], key) == doctest::Approx(step).epsilon(1e-3));
    }
    const std::regex decade("(0\\.0*1|10*[kMGTPE]?)");
    for (const auto& label : labels) CHECK(std::regex_match(label.at("#text"), decade));
  }
  // The y axis spans the top compute peak (fp8: 132 x 8192 x 1.83 GHz = 1.98 PFLOP/s) and ends below 10 PFLOP/s.
  const auto y_labels = elements(svg, "text", "tick-label-y");
  CHECK(y_labels.back().at("#text") == "1P");
}

TEST_CASE("op labels do not overlap each other or the points") {
  const auto device = test::h100_like_device();
  const auto report = test::sample_report(device);
  const std::string svg = render(report, device);
  std::vector<Box> boxes;
  for (const auto& label : elements(svg, "text", "op-label")) {
    const std::string anchor = label.at("text-anchor");
    const Anchor a = anchor == "start" ? Anchor::start : anchor == "end" ? Anchor::end : Anchor::middle;
    boxes.push_back(text_box(label.at("#text"), number(label, "x"), number(label, "y"), number(label, "font-size"), a));
  }
  CHECK(boxes.size() >= 10);
  for (std::size_t i = 0; i < boxes.size(); ++i) {
    for (std::size_t j = i + 1; j < boxes.size(); ++j) CHECK_FALSE(boxes[i].overlaps(boxes[j]));
    for (const auto& point : elements(svg, "circle", "op")) {
      const Box marker{number(point, "cx") - 3, number(point, "cy") - 3, number(point, "cx") + 3,
                       number(point, "cy") + 3};
      CHECK_FALSE(boxes[i].overlaps(marker));
    }
  }
}

TEST_CASE("the chart shows compute and bandwidth and DRAM row and power and latency and network lines") {
  const auto device = test::h100_like_device();
  const std::string svg = render(test::sample_report(device), device);
  CHECK(elements(svg, "line", "compute").size() >= 4);
  CHECK(elements(svg, "line", "bandwidth").size() == 7);  // smem, l2, dram, all-hit, all-miss, latency, network
  CHECK(elements(svg, "path", "power").size() >= 1);
  CHECK(elements(svg, "path", "ridge").size() >= 4);
  CHECK(svg.find("dram all-miss") != std::string::npos);
  CHECK(svg.find("latency (Little's law): 28.8 TB/s") != std::string::npos);  // 132 x 32 x 4 KiB / 600 ns
  CHECK(svg.find("network (x = FLOP/net B): 450 GB/s") != std::string::npos);
}

TEST_CASE("every bandwidth line is labelled and no other bandwidth line runs through a label") {
  // The fixture's shared-memory (30.9 TB/s) and latency (28.8 TB/s) lines are a few pixels apart, as on H100.
  const auto device = test::h100_like_device();
  const std::string svg = render(test::sample_report(device), device);
  std::ofstream(test::scratch_dir("svg_chart_bandwidth_labels") / "roofline.svg") << svg;
  const auto lines = elements(svg, "line", "bandwidth");
  const auto labels = elements(svg, "text", "bandwidth-label");
  CHECK(labels.size() == lines.size());
  const std::regex rotate("rotate\\(([-0-9.]+) ");
  for (const auto& label : labels) {
    std::smatch angle;
    const std::string transform = label.at("transform");
    REQUIRE(std::regex_search(transform, angle, rotate));
    const double radians = std::stod(angle[1]) * M_PI / 180.0;
    const double font = number(label, "font-size");
    const double half_width = 0.5 * text_width_px(label.at("#text"), font);
    const double x = number(label, "x"), y = number(label, "y");
    // The glyphs span the baseline to 0.8 em above it along the text's upward normal, over the text's width.
    const double ux = std::cos(radians), uy = std::sin(radians), nx = uy, ny = -ux;
    for (const auto& line : lines) {
      const double x1 = number(line, "x1"), y1 = number(line, "y1"), x2 = number(line, "x2"), y2 = number(line, "y2");
      // Where the line crosses the text's axis (the baseline through (x, y) along (ux, uy)), if it does within the
      // text: the lines are parallel to the text, so look at the signed distance of the line from the baseline.
      const double distance = (x1 - x) * nx + (y1 - y) * ny;
      const double along = ((x1 - x) * ux + (y1 - y) * uy);
      const double length = std::hypot(x2 - x1, y2 - y1);
      const bool spans_label = along <= half_width && along + length >= -half_width;
      if (!spans_label) continue;
      CHECK_MESSAGE(!(distance > 0.5 && distance < 0.8 * font - 0.5),
                    label.at("#text") << " has a bandwidth line " << distance << " px above its baseline");
    }
  }
}

TEST_CASE("the same report renders to the same bytes twice") {
  const auto device = test::h100_like_device();
  const auto report = test::sample_report(device);
  CHECK(render(report, device) == render(report, device));
}

TEST_CASE("a crowded chart (60 conv-like ops) keeps points inside and labels apart") {
  const auto device = test::h100_like_device();
  auto report = test::sample_report(device);
  report.ops.clear();
  for (int i = 0; i < 60; ++i) {
    // Intensities from 20 to 600 FLOP/B around the ridge, as ResNet-50's convolutions have.
    const double oi = 20.0 * std::pow(30.0, (i % 20) / 19.0) * (1 + 0.01 * (i / 20));
    const double flops = 1e9 * (1 + i);
    report.ops.push_back(
        test::make_op(device, "conv" + std::to_string(i + 1), "conv2d", DataType::fp16, flops, flops / oi));
  }
  const std::string svg = render(report, device);
  std::ofstream(test::scratch_dir("svg_chart_crowded") / "roofline.svg") << svg;
  const auto areas = elements(svg, "rect", "plot-area");
  const double x0 = number(areas[0], "x"), y0 = number(areas[0], "y");
  const double x1 = x0 + number(areas[0], "width"), y1 = y0 + number(areas[0], "height");
  int ops_drawn = 0;
  for (const auto& point : elements(svg, "circle", "op")) {
    ops_drawn += std::stoi(point.at("data-ops"));
    CHECK(number(point, "cx") > x0);
    CHECK(number(point, "cx") < x1);
    CHECK(number(point, "cy") > y0);
    CHECK(number(point, "cy") < y1);
  }
  CHECK(ops_drawn == 60);
  std::vector<Box> boxes;
  for (const auto& label : elements(svg, "text", "op-label")) {
    const std::string anchor = label.at("text-anchor");
    const Anchor a = anchor == "start" ? Anchor::start : anchor == "end" ? Anchor::end : Anchor::middle;
    boxes.push_back(text_box(label.at("#text"), number(label, "x"), number(label, "y"), number(label, "font-size"), a));
  }
  for (std::size_t i = 0; i < boxes.size(); ++i) {
    for (std::size_t j = i + 1; j < boxes.size(); ++j) CHECK_FALSE(boxes[i].overlaps(boxes[j]));
  }
}

TEST_CASE("a run's chart puts each op at its intensity at every on-chip level, inside the plot area") {
  const auto device = test::h100_like_device();
  auto report = test::sample_report(device);
  report.command = "run";
  report.bytes_basis = "simulated";
  // A run measures bytes per level: on-chip levels move more bytes than DRAM (reuse), so their OI is lower.
  for (auto& op : report.ops) {
    op.achieved_flops_per_s = op.attainable_flops_per_s() * 0.8;
    for (auto& level : op.bytes) {
      if (level.level != report.main_memory) level.bytes *= 4;
    }
  }
  const std::string svg = render(report, device);
  const auto areas = elements(svg, "rect", "plot-area");
  REQUIRE(areas.size() == 1);
  const double x0 = number(areas[0], "x"), x1 = x0 + number(areas[0], "width");
  const auto markers = elements(svg, "path", "op-level");
  std::map<std::string, int> per_level;
  for (const auto& marker : markers) {
    ++per_level[marker.at("data-level")];
    // The path starts at the marker's left edge (M x y ...): it lies inside the plot horizontally.
    const std::regex start("M([0-9.]+) ([0-9.]+)");
    std::smatch match;
    const std::string d = marker.at("d");
    REQUIRE(std::regex_search(d, match, start));
    CHECK(std::stod(match[1]) > x0 - 10);
    CHECK(std::stod(match[1]) < x1);
  }
  // Every op drawn (all but the 0-FLOP collective) has a marker for each on-chip level, none for the main memory.
  const auto plotted = static_cast<int>(report.ops.size()) - 1;
  CHECK(per_level["smem"] == plotted);
  CHECK(per_level["l2"] == plotted);
  CHECK(per_level.count("dram") == 0);
  // An analytic report has no measured per-level points.
  report.command = "roofline";
  CHECK(elements(render(report, device), "path", "op-level").empty());
}

TEST_CASE("a roofline and energy chart of 100,000 ops: the placer's work stays bounded and the legend short") {
  // 10,000 distinct points over the chart; the 100k-op workload repeats the 10k-op one ten times, as the layers of a
  // model repeat. The label placer's work follows the picture, not the op count: the same comparisons for both
  // (the old placer compared every candidate with every marker and label placed, 100x the work for 10x the ops).
  // The charts name at most 60 ops, number at most 20 and count the rest.
  const auto device = test::h100_like_device();
  const auto chart_of = [&](int ops, std::string& roofline, std::string& energy) {
    auto report = test::sample_report(device);
    report.ops.clear();
    // 1,000 shapes evaluated on the roofline; the other ops copy one with its bytes scaled (another intensity).
    std::vector<OpReport> shapes;
    for (int i = 0; i < 1000; ++i) {
      const double oi = std::pow(10.0, -1.0 + 4.0 * ((i * 7919) % 1000) / 1000.0);
      const double flops = 1e6 * (1 + (i * 104729) % 1000);
      shapes.push_back(test::make_op(device, "shape", "gemm", DataType::fp16, flops, flops / oi));
    }
    report.ops.reserve(static_cast<std::size_t>(ops));
    for (int i = 0; i < ops; ++i) {
      auto op = shapes[static_cast<std::size_t>(i % 1000)];
      op.name = "layer" + std::to_string(i / 10) + ".op" + std::to_string(i % 10);
      for (auto& level : op.bytes) level.bytes += level.bytes / 1000 * static_cast<Bytes>(i / 1000 % 10);
      report.ops.push_back(std::move(op));
    }
    std::ostringstream roofline_out, energy_out;
    const auto work = write_roofline_svg(report, device, roofline_out).label_comparisons +
                      write_energy_svg(report, device, energy_out).label_comparisons;
    roofline = roofline_out.str();
    energy = energy_out.str();
    return work;
  };
  std::string small_roofline, small_energy, roofline, energy;
  const auto small_work = chart_of(10000, small_roofline, small_energy);
  const auto work = chart_of(100000, roofline, energy);
  MESSAGE("placer comparisons: 10k ops " << small_work << ", 100k ops " << work);
  CHECK(work <= small_work + small_work / 100);
  for (const auto* svg : {&roofline, &energy}) {
    std::size_t labels = 0;
    for (auto at = svg->find("class=\"op-label\""); at != std::string::npos;
         at = svg->find("class=\"op-label\"", at + 1)) {
      ++labels;
    }
    CHECK(labels <= 80);
    // The summary line counts the rest and names their patterns.
    CHECK(svg->find("unlabelled:") != std::string::npos);
    CHECK(svg->find("layer*.op* x") != std::string::npos);
    CHECK(svg->size() < 30'000'000);
  }
}
