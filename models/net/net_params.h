#pragma once
// The parameters of the network model as the configuration describes them (sim/config produces them from a cluster
// file, in base units): the topology and its links, and what a device's reductions cost.
#include <cstdint>
#include <vector>

#include "sim/core/data_type.h"
#include "sim/core/units.h"

namespace roofsim {

enum class TopologyKind { ring, fully_connected, switch_star, torus, two_level };

// One kind of link. Each link has two directions; each direction is its own resource with this bandwidth.
struct LinkParams {
  BytesPerSecond bandwidth_bytes_per_s = 0;  // per direction, on the wire (headers included)
  Seconds latency_s = 0;                     // first bit in to first bit out (wire, SerDes, switch hop)
  Seconds overhead_s = 0;                    // per message: the link is occupied this long before the first packet
  // The link layer's packets: each carries up to `packet_payload_bytes` of data behind `packet_header_bytes` of
  // header and check bytes (NVLink: 16-byte header flits; InfiniBand: LRH, BTH and CRCs). 0: no framing.
  Bytes packet_payload_bytes = 0;
  Bytes packet_header_bytes = 0;

  // The data a direction carries per second: the wire rate less the headers of full packets (a stream of
  // messages much longer than one packet, as a collective's chunks are).
  [[nodiscard]] BytesPerSecond payload_bandwidth_bytes_per_s() const {
    if (packet_payload_bytes == 0 || packet_header_bytes == 0) return bandwidth_bytes_per_s;
    return bandwidth_bytes_per_s * static_cast<double>(packet_payload_bytes) /
           static_cast<double>(packet_payload_bytes + packet_header_bytes);
  }
};

// The devices and how they are joined: what the network's graph (models/net/topology.h) is built from.
struct TopologyParams {
  std::uint64_t devices = 0;
  TopologyKind topology = TopologyKind::ring;
  std::vector<std::uint64_t> dims;   // torus: devices along each dimension, first dimension fastest
  bool in_switch_reduction = false;  // switch: the switch can reduce (NVLink SHARP) and multicast
  // switch: bytes of operands per second the switch's reduction engines take in (all ports together); 0: unlimited
  BytesPerSecond switch_reduction_bytes_per_s = 0;
  LinkParams link;  // ring, fully connected and torus neighbour links; device-switch links
  // two_level only
  std::uint64_t devices_per_node = 0;
  std::uint64_t nics_per_node = 0;
  LinkParams host_link;          // device to its NIC (PCIe)
  LinkParams nic_link;           // NIC to the first fat-tree switch
  LinkParams fabric_link;        // between fat-tree switches
  std::uint64_t leaf_ports = 0;  // down ports of a fat-tree leaf switch; as many up ports (full bisection)
  bool rail_optimized = false;   // NIC i of every node on the leaves of rail i (else NICs fill leaves in order)

  [[nodiscard]] std::uint64_t nodes() const {
    return topology == TopologyKind::two_level ? devices / devices_per_node : 1;
  }
};

// What a reduction of received data into a device's own costs (models/net/reduction_model.h): the element type, the
// peak of the engine that adds (the device's vector engine, else its fastest engine for the type) and the bandwidth of
// the memory the operands stream through (its DRAM, else its outermost on-chip level; 0 when it has neither).
struct ReductionParams {
  DataType type = DataType::fp32;
  FlopsPerSecond flops_per_s = 0;
  BytesPerSecond memory_bytes_per_s = 0;
};

}  // namespace roofsim
