#pragma once
// What a `--model` run adds to its report: the model's counts (parameters, active parameters, FLOPs per token by the
// closed forms), the layout, the memory footprint per rank against the device's capacity, the expert rank built and
// the pipeline schedule's bubble. report.json carries it as "model"; the console prints the same lines.
#include <iosfwd>

#include <nlohmann/json.hpp>

#include "sim/graph/model_builder.h"

namespace roofsim {

[[nodiscard]] nlohmann::ordered_json model_report_json(const ModelWorkload& model, Bytes capacity_bytes);
void write_model_summary(const ModelWorkload& model, Bytes capacity_bytes, bool verbose, std::ostream& out);

}  // namespace roofsim
