#include "sim/engine/progress.h"

#include <fmt/format.h>

namespace roofsim {

std::string ProgressReport::update(std::uint64_t done_ops, Flops done_flops, Seconds sim_time_s, Seconds wall_s) {
  if (out_ == nullptr || wall_s < kProgressAfterWallS) return "";
  if (last_wall_s_ >= 0 && wall_s - last_wall_s_ < kProgressEveryWallS) return "";
  last_wall_s_ = wall_s;
  const double share = total_flops_ > 0 ? static_cast<double>(done_flops) / static_cast<double>(total_flops_)
                       : total_ops_ > 0 ? static_cast<double>(done_ops) / static_cast<double>(total_ops_)
                                        : 0.0;
  const std::string eta = share > 0 ? fmt::format("{:.0f} s", wall_s * (1.0 - share) / share) : "unknown";
  return fmt::format("progress: {}/{} ops done, simulated {:.6g} s, wall {:.0f} s, ETA {}\n", done_ops, total_ops_,
                     sim_time_s, wall_s, eta);
}

}  // namespace roofsim
