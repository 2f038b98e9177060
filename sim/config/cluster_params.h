#pragma once
// Stage 2 of a cluster file: a device file by name, a device count and a topology whose links each have a
// bandwidth per direction, a latency and a per-message overhead, in base units. The network model (models/net/)
// builds its graph from this struct and never parses text.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "models/net/net_params.h"
#include "sim/config/hardware_params.h"
#include "sim/config/work_limits.h"
#include "sim/core/data_type.h"
#include "sim/core/units.h"

namespace roofsim {

[[nodiscard]] std::string_view to_string(TopologyKind kind);

// Cost of a reduction in a collective: which data type is reduced and whether it costs device time at all.
enum class ReduceCost { device, free };

struct CollectiveDefaults {
  Bytes packet_bytes = 0;  // a message moves in packets of this size (simulation granularity, not a wire MTU)
  Bytes chunk_bytes = 0;   // pipelining unit of the collective schedules
  DataType data_type = DataType::fp32;
  ReduceCost reduce_cost = ReduceCost::device;
  std::uint64_t channels = 0;     // 0: the network model's default for the topology
  std::string protocol = "auto";  // Simple, LL, LL128 or auto
};

// The topology's fields (devices, topology, links, ...) are the network model's parameters (models/net/net_params.h),
// so that the network is built from the cluster as it is.
struct ClusterParams : TopologyParams {
  // two_level: bytes of operands per second each fabric switch's aggregation engines (InfiniBand SHARP) take in,
  // enabling CollNet; 0: the fabric switches do not reduce.
  BytesPerSecond fabric_reduction_bytes_per_s = 0;
  std::string name;
  std::string file;
  std::string device_file;  // the resolved path of the device file
  HardwareParams device;
  CollectiveDefaults collective;
};

class KeyRegistry;
[[nodiscard]] const KeyRegistry& cluster_registry();

// Reads, checks and validates a cluster file. An override whose first segment is a section of the cluster file sets
// the cluster (`--set topology.dims=[4,4]`); any other sets the device file of every rank, by the same path as for
// a device run (`--set memory.l2.capacity=16MiB`, `--set dram.model=simple`). The device
// file is looked up by path, then beside the cluster file and in its parent folder, then among the bundled configs.
// Throws InputError, also for more than `limits.devices` devices.
[[nodiscard]] ClusterParams load_cluster(const std::filesystem::path& file, const std::vector<Override>& overrides = {},
                                         const WorkLimits& limits = {});
// The same from text in memory (tests); `name` stands for the file, `base_dir` is where the device file is looked up.
[[nodiscard]] ClusterParams load_cluster_text(std::string_view text, const std::string& name,
                                              const std::filesystem::path& base_dir,
                                              const std::vector<Override>& overrides = {},
                                              const WorkLimits& limits = {});

}  // namespace roofsim
