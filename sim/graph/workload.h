#pragma once
// A workload: a DAG of ops over named tensors, built from a workload TOML file (templates expanded, parameters
// substituted, edges inferred from producer to consumer), checked against the hardware.
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "sim/config/hardware_params.h"
#include "sim/config/work_limits.h"
#include "sim/graph/op.h"

namespace roofsim {

struct Workload {
  std::string name;
  std::string file;
  std::uint64_t devices = 1;    // data-parallel ranks (workload.devices); the default group of collectives
  std::vector<Tensor> tensors;  // in order of first use by the ops; addresses ascend in this order
  std::vector<Op> ops;          // in a topological order (every op after the ops it depends on), stable w.r.t. the file
  Bytes footprint_bytes = 0;    // end of the last tensor's aligned range: device memory the workload occupies
  std::string oversubscribe;    // workload.oversubscribe: why a run may exceed the device's memory (a what-if)

  [[nodiscard]] Flops total_useful_flops() const;
  [[nodiscard]] Bytes total_compulsory_bytes() const;
  [[nodiscard]] const Op* find_op(std::string_view name) const;          // nullptr when absent
  [[nodiscard]] const Tensor* find_tensor(std::string_view name) const;  // nullptr when absent
};

// Tensors start at multiples of this (and of the device's request size when larger), so that a request chunk
// never straddles two tensors and addresses do not depend on the order of unrelated allocations.
inline constexpr Bytes kTensorAlignmentBytes = 4096;

class KeyRegistry;
[[nodiscard]] const KeyRegistry& workload_registry();

// A workload file built from a model (a top-level [model], workload_model_template.h) is that model's graph, its
// overrides the model keys ("batch", "tp"); the rest of this describes the files of ops and templates.
// Reads a workload file, applies overrides (keys relative to the workload file, e.g. "params.batch"), expands
// templates, builds and checks the DAG (cycles name their ops), counts FLOPs and bytes, allocates tensor addresses,
// and checks each op against the hardware (data type and engine present; the minimal tile fits the local SRAM).
// Throws InputError naming the file, the key or the op, also when the graph would have more than `limits.ops` ops
// (checked for each template before it expands).
[[nodiscard]] Workload load_workload(const std::filesystem::path& file, const std::vector<Override>& overrides,
                                     const HardwareParams& hardware, const WorkLimits& limits = {});

// The same without a device: the file's schema, expressions, templates, DAG, counts and addresses (aligned to
// `alignment_bytes`), but no engine, data-type or SRAM check. `roofsim validate` uses this.
[[nodiscard]] Workload build_workload(const std::filesystem::path& file, const std::vector<Override>& overrides,
                                      Bytes alignment_bytes = kTensorAlignmentBytes, const WorkLimits& limits = {});

// The workload of ops and tensors built in code (sim/graph/model_builder.h) rather than read from a file: the same DAG
// building, counting and address assignment as a file's.
struct OpDraft;
struct TensorDraft;
[[nodiscard]] Workload assemble_workload(std::string name, std::string file, std::uint64_t devices,
                                         std::vector<OpDraft> drafts, const std::vector<TensorDraft>& tensors,
                                         Bytes alignment_bytes = kTensorAlignmentBytes);

}  // namespace roofsim
