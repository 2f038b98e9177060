#include "models/kernel/port_array.h"

namespace roofsim {

__attribute__((target_clones("avx2", "default"))) std::int64_t reserve_port_run(std::int64_t* free_fs, std::uint64_t n,
                                                                                std::int64_t now,
                                                                                std::int64_t duration) {
  std::int64_t done = now;
  for (std::uint64_t p = 0; p < n; ++p) {
    const std::int64_t finish = std::max(now, free_fs[p]) + duration;
    free_fs[p] = finish;
    done = std::max(done, finish);
  }
  return done;
}

}  // namespace roofsim
