#include "sim/config/cluster_params.h"

#include <utility>

#include "sim/config/config_document.h"
#include "sim/config/data_paths.h"
#include "sim/config/enum_spellings.h"
#include "sim/config/key_spec.h"

namespace roofsim {

namespace {
using namespace schema;

// Devices of a cluster, and along a torus dimension: up to 2^24, beyond the largest machines built. A run of more
// than WorkLimits::devices is refused unless --allow-large.
constexpr ValueRange kDeviceCount = within(1, 1 << 24);

// The keys of every link section, spelled once per section so `list --keys` shows each. (clang-format would
// break the rows of a macro apart.)
// clang-format off
#define ROOFSIM_LINK_KEYS(PATH, WHAT)                                                                            \
  {PATH, K::section, Q::bytes, opt, "", WHAT},                                                                   \
  {PATH ".bandwidth", K::quantity, Q::bandwidth, req, "", "Bandwidth per direction of one link",                 \
   &LinkParams::bandwidth_bytes_per_s},                                                                          \
  {PATH ".latency", K::quantity, Q::time, opt, "0ns", "Latency of one traversal (wire, SerDes, switch hop)",     \
   &LinkParams::latency_s, within(0, 10.0)},                                                                     \
  {PATH ".overhead", K::quantity, Q::time, opt, "0ns",                                                           \
   "Per-message cost: the link is occupied this long before a message's first packet", &LinkParams::overhead_s, \
   within(0, 10e-3)},                                                                                            \
  {PATH ".packet_payload", K::quantity, Q::bytes, opt, "0B",                                                     \
   "Data bytes per link-layer packet (0: no framing; the link carries bandwidth x payload/(payload+header))",    \
   &LinkParams::packet_payload_bytes, within(0, 1 << 20)},                                                       \
  {PATH ".packet_header", K::quantity, Q::bytes, opt, "0B",                                                      \
   "Header and check bytes per link-layer packet (with packet_payload)", &LinkParams::packet_header_bytes,      \
   within(0, 1 << 20)}
// clang-format on

}  // namespace

std::string_view to_string(TopologyKind kind) {
  return to_string<TopologyKind>(kind);
}

const KeyRegistry& cluster_registry() {
  static const KeyRegistry registry(
      "cluster",
      {
          {"cluster", K::section, Q::bytes, req, "", "The cluster as a whole"},
          {"cluster.name", K::text, Q::bytes, req, "", "Name shown in reports", &ClusterParams::name},
          {"cluster.source", K::text, Q::bytes, opt, "", "Where the link figures of this file come from"},
          {"cluster.device", K::text, Q::bytes, req, "",
           "The device file of every rank, by name (\"H100-SXM5\") or path", by_hand},
          {"cluster.devices", K::count, Q::bytes, req, "", "Number of devices (ranks)", &ClusterParams::devices,
           kDeviceCount},

          {"topology", K::section, Q::bytes, req, "", "How devices are joined"},
          {"topology.kind", K::choice, Q::bytes, req, "",
           "ring, fully_connected, switch (one NVSwitch-like crossbar), torus, or two_level (nodes of devices on a "
           "switch, nodes joined through NICs and a fat tree)",
           &ClusterParams::topology},
          {"topology.dims", K::integer_list, Q::bytes, opt, "",
           "torus: devices along each of 2 or 3 dimensions (product = devices), first dimension fastest", by_hand,
           kDeviceCount},
          {"topology.in_switch_reduction", K::flag, Q::bytes, opt, "false",
           "switch: the switch reduces and multicasts (NVLink SHARP), enabling the `switch` algorithm",
           &ClusterParams::in_switch_reduction},
          {"topology.switch_reduction_bandwidth", K::quantity, Q::bandwidth, opt, "0B/s",
           "switch with in_switch_reduction: bytes of operands per second the switch's reduction engines take in, "
           "all ports together (0: unlimited)",
           &ClusterParams::switch_reduction_bytes_per_s, within(0, 1e15)},
          {"topology.fabric_reduction_bandwidth", K::quantity, Q::bandwidth, opt, "0B/s",
           "two_level: bytes of operands per second each fabric switch's aggregation engines (InfiniBand SHARP) take "
           "in, enabling the `collnet` algorithm (0: the fabric switches do not reduce)",
           &ClusterParams::fabric_reduction_bytes_per_s, within(0, 1e15)},
          {"topology.rail_optimized", K::flag, Q::bytes, opt, "false",
           "two_level: NIC i of every node connects to the leaf switches of rail i (a rail-optimized fat tree)",
           &ClusterParams::rail_optimized},
          {"topology.devices_per_node", K::count, Q::bytes, opt, "", "two_level: devices per node (on one switch)",
           &ClusterParams::devices_per_node, within(1, 65536)},
          {"topology.nics_per_node", K::count, Q::bytes, opt, "",
           "two_level: NICs per node; device d uses NIC d mod nics (divides devices_per_node)",
           &ClusterParams::nics_per_node, within(1, 1024)},
          {"topology.leaf_ports", K::count, Q::bytes, opt, "32",
           "two_level: down ports of a fat-tree leaf switch (as many up ports, one to each spine: full bisection)",
           &ClusterParams::leaf_ports, within(1, 65536)},

          ROOFSIM_LINK_KEYS("link", "Device links: ring, torus and fully connected neighbours; device-switch links"),
          ROOFSIM_LINK_KEYS("host_link", "two_level: device to its NIC (PCIe)"),
          ROOFSIM_LINK_KEYS("nic_link", "two_level: NIC to its fat-tree leaf switch"),
          ROOFSIM_LINK_KEYS("fabric_link", "two_level: leaf to spine switch (default: as nic_link)"),

          {"collective", K::section, Q::bytes, opt, "", "Defaults of `roofsim collective`"},
          {"collective.packet_size", K::quantity, Q::bytes, opt, "64KiB",
           "Messages move in packets of this size (one calculation per message and link, never per byte)",
           &CollectiveDefaults::packet_bytes, within(1, 1 << 30)},
          {"collective.chunk_size", K::quantity, Q::bytes, opt, "1MiB",
           "Pipelining unit: a schedule splits each message larger than this into chunks",
           &CollectiveDefaults::chunk_bytes, within(1, 1ULL << 40)},
          {"collective.channels", K::integer, Q::bytes, opt, "0",
           "Channels (rings) a collective is split over; 0: one per NIC of a node on two_level, one per link "
           "direction on ring, torus and fully connected, one on a switch",
           &CollectiveDefaults::channels, within(0, 64)},
          {"collective.protocol", K::text, Q::bytes, opt, "auto",
           "Wire protocol: Simple, LL, LL128, or auto (the least predicted time at each size, as NCCL's tuner)",
           &CollectiveDefaults::protocol},
          {"collective.data_type", K::choice, Q::bytes, opt, "fp32", "Element type of the buffers (reductions)",
           &CollectiveDefaults::data_type},
          {"collective.reduce_cost", K::choice, Q::bytes, opt, "device",
           "device: reductions take time on the vector engine and memory; free: they take none",
           &CollectiveDefaults::reduce_cost},
      });
  return registry;
}

#undef ROOFSIM_LINK_KEYS

namespace {

LinkParams read_link(const ConfigSection& section) {
  LinkParams link;
  section.read_fields(link);
  if (link.bandwidth_bytes_per_s <= 0) section.fail("bandwidth", "a bandwidth greater than 0");
  return link;
}

LinkParams required_link(const ConfigSection& root, std::string_view key, const std::string& why) {
  const auto section = root.child(key);
  if (!section) root.fail(key, "a [" + std::string(key) + "] section (" + why + ")");
  return read_link(*section);
}

std::filesystem::path find_device_file(const std::string& name, const std::filesystem::path& base_dir) {
  const std::filesystem::path given(name);
  if (given.is_absolute() && path_exists(given)) return given;
  const std::string file = given.extension() == ".toml" ? name : name + ".toml";
  for (const auto& dir : {base_dir, base_dir.parent_path()}) {
    if (dir.empty()) continue;
    if (path_exists(dir / name) && std::filesystem::is_regular_file(dir / name)) return dir / name;
    if (path_exists(dir / file)) return dir / file;
  }
  return resolve_data_file(name, "configs");
}

// Overrides of a cluster run: a key whose first segment is a section of the cluster file (cluster, topology, link,
// host_link, collective) sets the cluster file; any other key sets the device file of every rank, with the same
// path as in `roofsim run --hw DEVICE` (--set memory.l2.capacity=16MiB, --set dram.model=simple).
bool is_cluster_key(const std::string& key) {
  const auto first = key.substr(0, key.find('.'));
  for (const auto& spec : cluster_registry().specs()) {
    if (spec.path == first) return true;
  }
  return false;
}

// A row binds a member of the struct that declares it: the network's topology members are TopologyParams', the rest
// ClusterParams', so a section of the cluster file fills both.
void read_cluster_fields(const ConfigSection& section, ClusterParams& cluster) {
  section.read_fields(cluster);
  section.read_fields(static_cast<TopologyParams&>(cluster));
}

ClusterParams read_cluster(const ConfigDocument& document, const std::filesystem::path& base_dir,
                           const std::vector<Override>& device_overrides, const WorkLimits& limits) {
  const auto root = document.root();
  ClusterParams cluster;
  cluster.file = document.file_name();
  const auto head = *root.child("cluster");
  read_cluster_fields(head, cluster);
  check_work_limit(head.pos("devices"), "the cluster", cluster.devices, limits.devices, "devices");
  const auto device_name = head.text("device");
  const auto device_file = find_device_file(device_name, base_dir);
  if (!path_exists(device_file)) {
    head.fail("device", "a device file by path or by name (bundled in configs/ or beside the cluster file)");
  }
  cluster.device_file = device_file.string();
  cluster.device = load_hardware(device_file, device_overrides);

  const auto topology = *root.child("topology");
  read_cluster_fields(topology, cluster);
  if (cluster.rail_optimized && cluster.topology != TopologyKind::two_level) {
    topology.fail("rail_optimized", "false unless kind = \"two_level\"");
  }
  if (cluster.fabric_reduction_bytes_per_s > 0 && cluster.topology != TopologyKind::two_level) {
    topology.fail("fabric_reduction_bandwidth", "0B/s unless kind = \"two_level\"");
  }
  if (cluster.in_switch_reduction && cluster.topology != TopologyKind::switch_star) {
    topology.fail("in_switch_reduction", "false unless kind = \"switch\"");
  }

  if (cluster.topology == TopologyKind::torus) {
    if (!topology.has("dims")) topology.fail("dims", "the devices along each dimension of the torus ([16, 16])");
    const auto* dims = topology.node("dims")->as_array();
    if (dims->size() < 2 || dims->size() > 3) topology.fail("dims", "2 or 3 dimensions");
    std::uint64_t product = 1;
    bool overflow = false;
    for (const auto& element : *dims) {
      const auto value = element.as_integer()->get();
      if (value <= 0) topology.fail("dims", "dimensions of at least 1 device");
      cluster.dims.push_back(static_cast<std::uint64_t>(value));
      overflow = overflow || __builtin_mul_overflow(product, static_cast<std::uint64_t>(value), &product);
    }
    if (overflow || product != cluster.devices) {
      topology.fail("dims", "dimensions whose product is cluster.devices = " + std::to_string(cluster.devices));
    }
  } else if (topology.has("dims")) {
    topology.fail("dims", "no dims unless kind = \"torus\"");
  }

  if (cluster.devices < 2 && cluster.topology != TopologyKind::two_level) head.fail("devices", "at least 2 devices");
  cluster.link = required_link(root, "link", "the device links");

  if (cluster.topology == TopologyKind::two_level) {
    if (!topology.has("devices_per_node")) topology.fail("devices_per_node", "devices per node for two_level");
    if (!topology.has("nics_per_node")) topology.fail("nics_per_node", "NICs per node for two_level");
    if (cluster.devices % cluster.devices_per_node != 0 || cluster.devices / cluster.devices_per_node < 2) {
      topology.fail("devices_per_node", "a divisor of cluster.devices = " + std::to_string(cluster.devices) +
                                            " that leaves at least 2 nodes");
    }
    if (cluster.devices_per_node % cluster.nics_per_node != 0) {
      topology.fail("nics_per_node", "a divisor of devices_per_node = " + std::to_string(cluster.devices_per_node));
    }
    cluster.host_link = required_link(root, "host_link", "two_level: device to NIC");
    cluster.nic_link = required_link(root, "nic_link", "two_level: NIC to fabric");
    cluster.fabric_link = root.child("fabric_link") ? read_link(*root.child("fabric_link")) : cluster.nic_link;
  } else {
    for (const auto* key : {"devices_per_node", "nics_per_node"}) {
      if (topology.has(key)) topology.fail(key, "no " + std::string(key) + " unless kind = \"two_level\"");
    }
    for (const auto* key : {"host_link", "nic_link", "fabric_link"}) {
      if (root.has(key)) root.fail(key, "no [" + std::string(key) + "] unless topology.kind = \"two_level\"");
    }
  }

  const auto collective = root.child_or_defaults("collective");
  collective.read_fields(cluster.collective);
  if (cluster.collective.packet_bytes == 0) collective.fail("packet_size", "a packet size greater than 0 B");
  if (cluster.collective.chunk_bytes == 0) collective.fail("chunk_size", "a chunk size greater than 0 B");
  const auto& protocol = cluster.collective.protocol;
  if (protocol != "auto" && protocol != "Simple" && protocol != "LL" && protocol != "LL128") {
    collective.fail("protocol", "Simple, LL, LL128 or auto");
  }
  return cluster;
}

}  // namespace

namespace {

// Applies the overrides of cluster keys to `document`, checks it, and reads the cluster; every other override sets the
// device file of each rank.
ClusterParams read_with_overrides(ConfigDocument& document, const std::filesystem::path& base_dir,
                                  const std::vector<Override>& overrides, const WorkLimits& limits) {
  std::vector<Override> device_overrides;
  for (const auto& entry : overrides) {
    if (is_cluster_key(entry.key)) {
      document.apply_override(entry.key, entry.value);
    } else {
      device_overrides.push_back(entry);
    }
  }
  document.check();
  return read_cluster(document, base_dir, device_overrides, limits);
}

}  // namespace

ClusterParams load_cluster(const std::filesystem::path& file, const std::vector<Override>& overrides,
                           const WorkLimits& limits) {
  ConfigDocument document(file, cluster_registry());
  return read_with_overrides(document, file.parent_path(), overrides, limits);
}

ClusterParams load_cluster_text(std::string_view text, const std::string& name, const std::filesystem::path& base_dir,
                                const std::vector<Override>& overrides, const WorkLimits& limits) {
  ConfigDocument document(text, name, cluster_registry());
  return read_with_overrides(document, base_dir, overrides, limits);
}

}  // namespace roofsim
