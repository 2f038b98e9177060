#include "sim/engine/ert_run.h"

#include <systemc>

#include <algorithm>
#include <chrono>

#include <fmt/format.h>

#include "sim/engine/device.h"
#include "sim/engine/engine.h"
#include "sim/engine/simulation_loop.h"

namespace roofsim {

namespace {

// Where each point's runs sit in the workload.
struct PointOps {
  std::size_t short_run = 0, long_run = 0;
};

std::vector<PointOps> point_ops(const ErtPlan& plan) {
  std::vector<PointOps> ops;
  std::size_t next = 0;
  for (const auto& point : plan.points) {
    if (point.warm_up) ++next;
    ops.push_back({next, next + 1});
    next += 2;
  }
  return ops;
}

Bytes round_up(Bytes value, Bytes unit) {
  return (value + unit - 1) / unit * unit;
}

}  // namespace

Workload make_ert_workload(const ErtPlan& plan, const HardwareParams& hw) {
  Workload workload;
  workload.name = "ert";
  workload.file = hw.file;
  for (std::size_t p = 0; p < plan.points.size(); ++p) {
    const auto& point = plan.points[p];
    const auto& type = plan.types[point.type];
    Tensor tensor;
    tensor.name = fmt::format("ert{}.data", p);
    tensor.dtype = type.dtype;
    tensor.bytes = point.working_set_bytes;
    tensor.shape = {point.working_set_bytes / element_bytes(type.dtype)};
    // Each point has its own addresses, so that no point starts with another's data in a cache.
    tensor.address = workload.footprint_bytes;
    workload.tensors.push_back(tensor);
    workload.footprint_bytes += round_up(tensor.bytes, std::max<Bytes>(kTensorAlignmentBytes, plan.request_bytes));
    const auto add_run = [&](const std::string& role, std::uint64_t passes) {
      Op op;
      op.name = fmt::format("ert{}.{}", p, role);
      op.kind = OpKind::elementwise;
      op.dtype = type.dtype;
      op.engine = type.engine;
      op.shape.elements = tensor.shape.front();
      op.shape.flops_per_element = point.flops_per_element;
      op.shape.ert_passes = passes;
      op.inputs = {workload.tensors.size() - 1};
      op.outputs = op.inputs;
      if (!workload.ops.empty()) op.after = {workload.ops.size() - 1};
      op.pos = SourcePos{"roofsim ert"};
      op.useful_flops = op.shape.elements * point.flops_per_element * passes;
      op.bytes_read = tensor.bytes * passes;
      op.bytes_written = tensor.bytes * passes;
      workload.ops.push_back(std::move(op));
    };
    if (point.warm_up) add_run("warm", 1);
    add_run("short", point.passes);
    add_run("long", 2 * point.passes);
  }
  return workload;
}

ErtRunResult run_ert(const HardwareParams& hw, const ErtPlan& plan,
                     const std::function<void(std::size_t, std::size_t)>& progress) {
  const auto wall_start = std::chrono::steady_clock::now();
  const Workload workload = make_ert_workload(plan, hw);
  const auto ops = point_ops(plan);
  // Lives until the process exits: SystemC cannot tear an elaborated hierarchy down and elaborate another.
  auto* device = new Device("device", hw, workload);
  std::size_t done = 0;
  const auto report_progress = [&] {
    if (!progress) return;
    while (done < ops.size() && device->policy().times(ops[done].long_run).end_fs != kNever) ++done;
    progress(done, ops.size());
  };
  const bool complete = simulate_until_idle_or_interrupted(report_progress);
  const RunResult run = collect_run_result(
      hw, workload, *device, std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count(),
      complete);

  ErtRunResult result;
  result.complete = run.complete;
  result.dram_model = run.dram_model;
  result.events = run.events;
  result.wall_s = run.wall_s;
  // The finished ops by their place in the workload (an interrupted run keeps only those).
  std::vector<const OpRunStats*> by_index(workload.ops.size(), nullptr);
  for (std::size_t i = 0; i < run.ops.size(); ++i) {
    by_index[run.complete ? i : run.finished_op_indices[i]] = &run.ops[i];
    result.throttled_s += run.ops[i].throttle_s;
  }
  for (std::size_t p = 0; p < plan.points.size(); ++p) {
    const auto& point = plan.points[p];
    ErtPointResult out;
    const OpRunStats* short_run = by_index[ops[p].short_run];
    const OpRunStats* long_run = by_index[ops[p].long_run];
    if (short_run != nullptr && long_run != nullptr) {
      out.short_run_s = short_run->end_s - short_run->start_s;
      out.long_run_s = long_run->end_s - long_run->start_s;
      out.throttled = short_run->throttle_s > 0 || long_run->throttle_s > 0;
      // The better of the two runs' mean times per pass, as ERT keeps the best rate over its trial counts: a rate a
      // run achieved, launch latency excluded, fill and drain included (the passes make them a small part).
      const auto passes = static_cast<double>(point.passes);
      out.pass_s = std::min(out.short_run_s / passes, out.long_run_s / (2 * passes));
      const auto bytes = static_cast<double>(point.working_set_bytes);
      const auto elements = bytes / static_cast<double>(element_bytes(plan.types[point.type].dtype));
      out.flops_per_s = elements * static_cast<double>(point.flops_per_element) / out.pass_s;
      out.bytes_per_s = 2 * bytes / out.pass_s;
      out.measured = true;
      ++result.measured_points;
    }
    result.points.push_back(out);
  }
  return result;
}

}  // namespace roofsim
