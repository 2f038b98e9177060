#pragma once
// The one table of spellings of every enum that configuration text names: hardware and DRAM files, cluster files,
// `--set` overrides and command-line options all parse through it (see sim/config/enum_text.h), and the schema's
// choices (`roofsim list --keys`, "expected one of ...") are made from it. List values in the order a user should
// read them; the first is not a default (defaults are in the schema).
#include <array>

#include "sim/config/cluster_params.h"
#include "sim/config/dram_params.h"
#include "sim/config/enum_text.h"
#include "sim/config/hardware_params.h"
#include "sim/core/data_type.h"

namespace roofsim {

template <>
struct EnumSpellings<DramModel> {
  static constexpr EnumSpelling<DramModel> kAll[] = {{DramModel::simple, "simple"}, {DramModel::detailed, "detailed"}};
};

template <>
struct EnumSpellings<PagePolicy> {
  static constexpr EnumSpelling<PagePolicy> kAll[] = {
      {PagePolicy::open, "open"}, {PagePolicy::closed, "closed"}, {PagePolicy::adaptive, "adaptive"}};
};

template <>
struct EnumSpellings<DramScheduler> {
  static constexpr EnumSpelling<DramScheduler> kAll[] = {{DramScheduler::frfcfs, "frfcfs"},
                                                         {DramScheduler::fcfs, "fcfs"}};
};

template <>
struct EnumSpellings<RefreshMode> {
  static constexpr EnumSpelling<RefreshMode> kAll[] = {
      {RefreshMode::all_bank, "all_bank"}, {RefreshMode::per_bank, "per_bank"}, {RefreshMode::none, "none"}};
};

template <>
struct EnumSpellings<LevelScope> {
  static constexpr EnumSpelling<LevelScope> kAll[] = {{LevelScope::unit, "unit"}, {LevelScope::device, "device"}};
};

template <>
struct EnumSpellings<LevelKind> {
  static constexpr EnumSpelling<LevelKind> kAll[] = {{LevelKind::scratchpad, "scratchpad"},
                                                     {LevelKind::cache, "cache"}};
};

template <>
struct EnumSpellings<TopologyKind> {
  static constexpr EnumSpelling<TopologyKind> kAll[] = {{TopologyKind::ring, "ring"},
                                                        {TopologyKind::fully_connected, "fully_connected"},
                                                        {TopologyKind::switch_star, "switch"},
                                                        {TopologyKind::torus, "torus"},
                                                        {TopologyKind::two_level, "two_level"}};
};

template <>
struct EnumSpellings<ReduceCost> {
  static constexpr EnumSpelling<ReduceCost> kAll[] = {{ReduceCost::device, "device"}, {ReduceCost::free, "free"}};
};

template <>
struct EnumSpellings<KernelSchedule> {
  static constexpr EnumSpelling<KernelSchedule> kAll[] = {{KernelSchedule::serial, "serial"},
                                                          {KernelSchedule::pingpong, "pingpong"}};
};

// Data types are spelled by sim/core (workloads name them too); this row only lets configuration code read them
// through the same functions as the other enums.
template <>
struct EnumSpellings<DataType> {
  static const std::array<EnumSpelling<DataType>, kAllDataTypes.size()> kAll;
};

}  // namespace roofsim
