#include "sim/report/ert_writers.h"

#include <ostream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "sim/config/quantity.h"

namespace roofsim {

namespace {

using Json = nlohmann::ordered_json;

std::string band_range(const ErtBand& band) {
  if (band.to_bytes == ~Bytes{0}) return fmt::format(">= {}", format_bytes(band.from_bytes));
  if (band.from_bytes > band.to_bytes) return "none";
  if (band.from_bytes <= 1) return fmt::format("<= {}", format_bytes(band.to_bytes));
  return fmt::format("{} .. {}", format_bytes(band.from_bytes), format_bytes(band.to_bytes));
}

std::string ratio_text(double ratio) {
  return ratio > 0 ? fmt::format("{:.3f}", ratio) : "-";
}

std::string where(const ErtReport& report, const ErtCeiling& ceiling) {
  if (!ceiling.best_point) return "not measured";
  const auto& point = report.points[*ceiling.best_point];
  return fmt::format("{}, {} FLOP/element ({:.4g} FLOP/B)", format_bytes(point.working_set_bytes),
                     point.flops_per_element, point.intensity);
}

Json nullable(double value) {
  return value > 0 ? Json(value) : Json(nullptr);
}

Json ceiling_json(const ErtCeiling& ceiling, const char* unit) {
  Json out;
  out["name"] = ceiling.name;
  if (ceiling.kind == ErtCeilingKind::compute) {
    out["engine"] = ceiling.engine;
    out["dtype"] = std::string(to_string(ceiling.dtype));
  }
  out[fmt::format("measured_{}", unit)] = nullable(ceiling.measured);
  out[fmt::format("analytic_{}", unit)] = nullable(ceiling.analytic);
  out["measured_over_analytic"] = nullable(ceiling.ratio);
  out["best_point"] = ceiling.best_point ? Json(*ceiling.best_point) : Json(nullptr);
  return out;
}

}  // namespace

void write_ert_table(const ErtReport& report, std::ostream& out) {
  out << fmt::format("# roofsim ert: {} ({} DRAM model{}), {} of {} points{}\n", report.device,
                     report.dram_model.empty() ? "no" : report.dram_model, report.quick ? ", quick" : "",
                     report.measured_points, report.points.size(), report.complete ? "" : " (interrupted)");
  out << fmt::format(
      "# kernel: load, FLOPs, store in place per element; {} tiles of {} requests; bandwidth and "
      "intensity points on {}\n",
      report.slots, format_bytes(report.request_bytes), report.types[report.memory_type].label());
  out << "\nmemory ceilings: best bytes loaded + stored per second over the working sets of each band\n";
  out << fmt::format("{:<18} {:<24} {:>16} {:>16} {:>10}  {}\n", "level", "working sets", "measured_GB/s",
                     "analytic_GB/s", "meas/anal", "best at");
  for (std::size_t b = 0; b < report.memory_ceilings.size(); ++b) {
    const auto& ceiling = report.memory_ceilings[b];
    out << fmt::format("{:<18} {:<24} {:>16.1f} {:>16.1f} {:>10}  {}\n", ceiling.name, band_range(report.bands[b]),
                       ceiling.measured / 1e9, ceiling.analytic / 1e9, ratio_text(ceiling.ratio),
                       where(report, ceiling));
  }
  out << "\ncompute ceilings: best FLOP/s of each engine and data type\n";
  out << fmt::format("{:<18} {:<24} {:>16} {:>16} {:>10}  {}\n", "engine dtype", "", "measured_GFLOP/s",
                     "analytic_GFLOP/s", "meas/anal", "best at");
  for (const auto& ceiling : report.compute_ceilings) {
    out << fmt::format("{:<18} {:<24} {:>16.1f} {:>16.1f} {:>10}  {}\n", ceiling.name, "", ceiling.measured / 1e9,
                       ceiling.analytic / 1e9, ratio_text(ceiling.ratio), where(report, ceiling));
  }
  out << "\n";
  for (const auto& note : report.notes) out << "# " << note << "\n";
}

void write_ert_json(const ErtReport& report, std::ostream& out) {
  Json json;
  json["command"] = "ert";
  json["method"] =
      "Empirical Roofline Toolkit (Lo et al., PMBS 2014): per element load, flops_per_element FLOPs, store in place; "
      "rates are the steady state of runs of p and 2p passes";
  json["hardware"] = {{"name", report.device}, {"file", report.hardware_file}};
  json["dram_model"] = report.dram_model.empty() ? Json(nullptr) : Json(report.dram_model);
  json["quick"] = report.quick;
  json["complete"] = report.complete;
  json["main_memory"] = report.main_memory;
  json["request_bytes"] = report.request_bytes;
  json["tiles"] = report.slots;
  Json types = Json::array();
  for (const auto& type : report.types) {
    types.push_back({{"engine", type.engine},
                     {"dtype", std::string(to_string(type.dtype))},
                     {"peak_flops_per_s", type.peak_flops_per_s},
                     {"top_flops_per_element", type.top_flops_per_element}});
  }
  json["types"] = types;
  json["memory_type"] = report.types[report.memory_type].label();
  Json bands = Json::array();
  for (const auto& band : report.bands) {
    bands.push_back({{"level", band.level},
                     {"from_bytes", band.from_bytes},
                     {"to_bytes", band.to_bytes == ~Bytes{0} ? Json(nullptr) : Json(band.to_bytes)},
                     {"representative_bytes", band.representative_bytes}});
  }
  json["bands"] = bands;
  Json memory = Json::array(), compute = Json::array();
  for (const auto& ceiling : report.memory_ceilings) memory.push_back(ceiling_json(ceiling, "bytes_per_s"));
  for (const auto& ceiling : report.compute_ceilings) compute.push_back(ceiling_json(ceiling, "flops_per_s"));
  json["ceilings"] = {{"memory", memory}, {"compute", compute}};
  Json points = Json::array();
  for (const auto& point : report.points) {
    points.push_back({{"index", point.index},
                      {"purpose", std::string(to_string(point.purpose))},
                      {"engine", point.engine},
                      {"dtype", std::string(to_string(point.dtype))},
                      {"band", point.band.empty() ? Json(nullptr) : Json(point.band)},
                      {"working_set_bytes", point.working_set_bytes},
                      {"flops_per_element", point.flops_per_element},
                      {"intensity_flops_per_byte", point.intensity},
                      {"passes", point.passes},
                      {"warm_up", point.warm_up},
                      {"measured", point.measured},
                      {"throttled", point.throttled},
                      {"short_run_s", point.measured ? Json(point.short_run_s) : Json(nullptr)},
                      {"long_run_s", point.measured ? Json(point.long_run_s) : Json(nullptr)},
                      {"pass_s", point.measured ? Json(point.pass_s) : Json(nullptr)},
                      {"flops_per_s", point.measured ? Json(point.flops_per_s) : Json(nullptr)},
                      {"bytes_per_s", point.measured ? Json(point.bytes_per_s) : Json(nullptr)}});
  }
  json["points"] = points;
  json["notes"] = report.notes;
  out << json.dump(2) << "\n";
}

void write_ert_points_csv(const ErtReport& report, std::ostream& out) {
  out << "index,purpose,engine,dtype,band,working_set_bytes,flops_per_element,intensity_flops_per_byte,passes,"
         "warm_up,throttled,short_run_s,long_run_s,pass_s,gflops_per_s,gbytes_per_s\n";
  for (const auto& point : report.points) {
    out << fmt::format("{},{},{},{},{},{},{},{:.9g},{},{},{},", point.index, to_string(point.purpose), point.engine,
                       to_string(point.dtype), point.band, point.working_set_bytes, point.flops_per_element,
                       point.intensity, point.passes, point.warm_up ? 1 : 0, point.throttled ? 1 : 0);
    if (point.measured) {
      out << fmt::format("{:.9g},{:.9g},{:.9g},{:.9g},{:.9g}\n", point.short_run_s, point.long_run_s, point.pass_s,
                         point.flops_per_s / 1e9, point.bytes_per_s / 1e9);
    } else {
      out << ",,,,\n";
    }
  }
}

void write_ert_ceilings_csv(const ErtReport& report, std::ostream& out) {
  out << "kind,name,engine,dtype,unit,measured,analytic,measured_over_analytic,best_point\n";
  const auto row = [&](const ErtCeiling& ceiling) {
    const bool compute = ceiling.kind == ErtCeilingKind::compute;
    out << fmt::format("{},{},{},{},{},{:.9g},{:.9g},{},{}\n", compute ? "compute" : "memory", ceiling.name,
                       ceiling.engine, compute ? std::string(to_string(ceiling.dtype)) : "",
                       compute ? "GFLOP/s" : "GB/s", ceiling.measured / 1e9, ceiling.analytic / 1e9,
                       ceiling.ratio > 0 ? fmt::format("{:.6f}", ceiling.ratio) : "",
                       ceiling.best_point ? std::to_string(*ceiling.best_point) : "");
  };
  for (const auto& ceiling : report.memory_ceilings) row(ceiling);
  for (const auto& ceiling : report.compute_ceilings) row(ceiling);
}

}  // namespace roofsim
