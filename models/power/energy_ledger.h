#pragma once
// Energy per op and in total: each op's activity is kept per DVFS state as integer counts, and the
// static energy is shared out by time: every femtosecond of the run belongs to the ops running then, split evenly
// between them (time before an op, when nothing runs, belongs to the next op to start: it waits for its launch).
// Counting is integer throughout; energies are formed once at the end, so results do not depend on event order,
// and the per-op energies add up to the total by construction.
#include <cstddef>
#include <map>
#include <utility>
#include <vector>

#include "models/power/clock_domain.h"
#include "models/power/energy_model.h"

namespace roofsim {

// An op's life: from its launch to its last write.
struct OpInterval {
  TimeFs start_fs = 0;
  TimeFs end_fs = 0;
};

struct OpEnergy {
  EnergyBreakdown energy;
  TimeFs duration_fs = 0;
  std::vector<TimeFs> time_at_state_fs;  // the op's life at each DVFS state
  TimeFs throttled_fs = 0;               // the op's life below the fastest state
  Flops flops = 0;                       // FLOPs counted (executed)

  [[nodiscard]] Watts average_power_w() const;   // energy / duration; 0 for an instant op
  [[nodiscard]] double joules_per_flop() const;  // energy / FLOPs; 0 without FLOPs
};

struct EnergyTotals {
  std::vector<OpEnergy> ops;
  EnergyBreakdown total;
  TimeFs run_fs = 0;
  std::vector<TimeFs> time_at_state_fs;

  [[nodiscard]] Watts average_power_w() const;
};

class EnergyLedger {
 public:
  EnergyLedger(const EnergyModel& model, std::vector<DvfsState> states, std::size_t ops);

  // Adds activity that op `op` performed while the compute domain was in `state`.
  void add(std::size_t op, std::size_t state, const Activity& activity);

  // Energies per op and in total, for ops that lived in `ops` (one interval per op, in op order) over a run whose
  // clock followed `timeline` (adjacent intervals from 0 to the end of the run).
  [[nodiscard]] EnergyTotals finish(const std::vector<OpInterval>& ops,
                                    const std::vector<StateInterval>& timeline) const;

 private:
  const EnergyModel& model_;
  std::vector<DvfsState> states_;
  // [op]: (state, activity) for the states the op performed activity in, in state order. Most ops see a few of the
  // DVFS states, and a thousand-rank training step's ranks hold thousands of ops each: a full [op][state] table of
  // per-slot vectors would cost hundreds of megabytes of zeros.
  std::vector<std::vector<std::pair<std::size_t, Activity>>> activity_;
};

}  // namespace roofsim
