#pragma once
// A workload: a DAG of ops over named tensors, built from a workload TOML file (templates expanded, parameters
// substituted, edges inferred from producer to consumer), checked against the hardware.
#include <filesystem>
#include <string>
#include <vector>

#include "sim/config/hardware_params.h"
#include "sim/graph/op.h"

namespace roofsim {

struct Workload {
  std::string name;
  std::string file;
  std::vector<Tensor> tensors;
  std::vector<Op> ops;  // in a topological order (every op after the ops it depends on), stable w.r.t. the file

  [[nodiscard]] Flops total_useful_flops() const;
  [[nodiscard]] Bytes total_compulsory_bytes() const;
};

class KeyRegistry;
[[nodiscard]] const KeyRegistry& workload_registry();

// Reads a workload file, applies overrides (keys relative to the workload file, e.g. "params.batch"), expands
// templates, builds and checks the DAG (cycles name their ops), counts FLOPs and bytes, allocates tensor addresses,
// and checks each op against the hardware (data type and engine present; the minimal tile fits the local SRAM).
// Throws InputError naming the file, the key or the op.
[[nodiscard]] Workload load_workload(const std::filesystem::path& file, const std::vector<Override>& overrides,
                                     const HardwareParams& hardware);

}  // namespace roofsim
