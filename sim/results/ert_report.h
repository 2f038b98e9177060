#pragma once
// The report of `roofsim ert`: every measured point of the sweep, and the empirical ceilings the Empirical Roofline
// Toolkit derives from them (Lo et al., PMBS 2014) beside the analytic ones of sim/roofline with their ratio:
// - a memory ceiling per band (ert_plan.h): the best bandwidth (bytes loaded and stored per second) over the points
//   whose working set lies in the band, against the level's analytic bandwidth (DRAM: the pin bandwidth);
// - a compute ceiling per engine and data type: the best FLOP/s over that type's points, against its analytic peak.
// The writers (sim/report/ert_writers.h, ert_chart.h) format this; nothing here formats.
#include <optional>
#include <string>
#include <vector>

#include "sim/config/hardware_params.h"
#include "sim/engine/ert_plan.h"
#include "sim/engine/ert_run.h"
#include "sim/roofline/roofline.h"

namespace roofsim {

struct ErtPointReport {
  std::size_t index = 0;
  ErtPurpose purpose = ErtPurpose::bandwidth;
  std::string engine;
  DataType dtype = DataType::fp32;
  std::string band;  // "" between bands
  Bytes working_set_bytes = 0;
  std::uint64_t flops_per_element = 1;
  std::uint64_t passes = 1;  // of the short run
  bool warm_up = false;
  FlopsPerByte intensity = 0;  // FLOPs per byte loaded and stored
  bool measured = false;
  bool throttled = false;  // the power governor lowered the clock in either run
  Seconds short_run_s = 0, long_run_s = 0, pass_s = 0;
  FlopsPerSecond flops_per_s = 0;
  BytesPerSecond bytes_per_s = 0;
};

enum class ErtCeilingKind { memory, compute };

struct ErtCeiling {
  ErtCeilingKind kind = ErtCeilingKind::memory;
  std::string name;  // the level ("l2", "dram"), or the type's label ("matrix bf16")
  std::string engine;
  DataType dtype = DataType::fp32;        // compute ceilings
  double measured = 0;                    // B/s or FLOP/s; 0 when no point was measured
  double analytic = 0;                    // B/s or FLOP/s
  double ratio = 0;                       // measured / analytic; 0 when either is 0
  std::optional<std::size_t> best_point;  // the point that set `measured`
};

struct ErtReport {
  std::string device;
  std::string hardware_file;
  std::string dram_model;
  bool quick = false;
  bool complete = true;
  std::size_t measured_points = 0;
  std::string main_memory;
  Bytes request_bytes = 0;
  std::uint64_t slots = 0;
  std::vector<ErtKernelType> types;
  std::size_t memory_type = 0;
  std::vector<ErtBand> bands;
  std::vector<ErtPointReport> points;
  std::vector<ErtCeiling> memory_ceilings;   // one per band, in band order
  std::vector<ErtCeiling> compute_ceilings;  // one per type, in type order
  Seconds throttled_s = 0;
  std::vector<std::string> notes;  // what in the model shapes the measured ceilings
  std::uint64_t events = 0;
  Seconds wall_s = 0;
};

[[nodiscard]] ErtReport make_ert_report(const HardwareParams& hw, const DeviceRoof& device, const ErtPlan& plan,
                                        const ErtRunResult& run, bool quick);

}  // namespace roofsim
