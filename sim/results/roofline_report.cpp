#include "sim/results/roofline_report.h"

#include "sim/config/enum_spellings.h"
#include "sim/graph/hardware_check.h"

namespace roofsim {

Report report_head(const std::string& command, const std::string& bytes_basis, const Workload& workload,
                   const HardwareParams& hardware, const DeviceRoof& device) {
  Report report;
  report.command = command;
  report.bytes_basis = bytes_basis;
  report.hardware_name = hardware.name;
  report.hardware_file = hardware.file;
  report.workload_name = workload.name;
  report.workload_file = workload.file;
  for (const auto& level : device.levels) report.levels.push_back(level.name);
  report.main_memory = device.main_memory;
  if (hardware.dram) {
    report.dram = DramModelInfo{std::string(to_string(hardware.dram->model)), hardware.dram->standard.name};
  }
  report.roofs = device_lines(device);
  return report;
}

Report make_roofline_report(const Workload& workload, const HardwareParams& hardware, const DeviceRoof& device) {
  Report report = report_head("roofline", "compulsory", workload, hardware, device);
  for (const auto& op : workload.ops) {
    const auto input = compulsory_input(op, device);
    OpReport row;
    row.name = op.name;
    row.kind = std::string(to_string(op.kind));
    row.dtype = op.dtype;
    const auto* engine = op_engine(op, hardware.compute);
    row.engine = engine != nullptr ? engine->name : op.engine;
    row.useful_flops = op.useful_flops;
    row.executed_flops = op.useful_flops;
    row.bytes = input.bytes;
    row.network_bytes = op.network_bytes;
    row.row_hit_rate = input.row_hit_rate;
    row.roofline = evaluate_roofline(device, input);
    report.ops.push_back(std::move(row));
  }
  return report;
}

}  // namespace roofsim
