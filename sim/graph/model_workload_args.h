#pragma once
// What `--model` builds: the phase, the batch and sequence sizes and the parallel degrees, read from the workload
// overrides (`--set workload.phase=decode`), each key with its unit, default and range (model_workload_keys()).
#include <cstdint>
#include <string>
#include <vector>

#include "sim/config/hardware_params.h"
#include "sim/config/key_spec.h"
#include "sim/core/data_type.h"
#include "sim/core/input_error.h"
#include "sim/graph/moe_routing.h"
#include "sim/graph/pipeline_schedule.h"

namespace roofsim {

enum class ModelPhase { prefill, decode, train };
enum class Recompute { none, full };

struct ModelWorkloadArgs {
  ModelPhase phase = ModelPhase::prefill;
  std::uint64_t batch = 1;    // sequences per data-parallel replica and step
  std::uint64_t seq = 2048;   // tokens per sequence (prefill, train); decode adds one token
  std::uint64_t context = 0;  // decode: positions in the KV cache (0: seq)
  std::uint64_t layers = 0;   // blocks built (0: the config's num_hidden_layers); memory counts the whole model
  std::uint64_t micro_batches = 1;
  std::uint64_t tp = 1, pp = 1, dp = 1, ep = 1;
  bool sequence_parallel = false;
  std::uint64_t zero = 0;  // ZeRO stage 0..3
  Recompute recompute = Recompute::none;
  PipelineScheduleKind pipeline_schedule = PipelineScheduleKind::one_f_one_b;
  std::uint64_t virtual_stages = 2;  // interleaved: model chunks per stage
  RoutingParams routing;
  DataType dtype = DataType::bf16;

  [[nodiscard]] std::uint64_t devices() const { return tp * pp * dp; }
};

struct ModelWorkloadKey {
  const char* name;
  const char* unit;
  const char* default_value;
  const char* description;
  ValueKind kind;       // as a workload file built from a model writes it (workload_model_template.h)
  const char* choices;  // of a choice: "prefill|decode|train"
};
[[nodiscard]] const std::vector<ModelWorkloadKey>& model_workload_keys();

// Applies one key (without the "workload." prefix) to `args`. An unknown key or a bad value is an InputError at `pos`
// naming "workload.KEY", the value and what was expected. Setting dp clears `dp_unset`.
void apply_model_workload_key(ModelWorkloadArgs& args, const Override& entry, const SourcePos& pos,
                              bool* dp_unset = nullptr);

// Reads the overrides (keys without the "workload." prefix), the later of two equal keys winning; errors at "--set".
// `dp_unset` is set when dp was not given (a cluster run then fills it from the device count).
[[nodiscard]] ModelWorkloadArgs read_model_workload_args(const std::vector<Override>& overrides,
                                                         bool* dp_unset = nullptr);

[[nodiscard]] std::string_view to_string(ModelPhase phase);

}  // namespace roofsim
