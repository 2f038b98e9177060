#pragma once
// The folder a command writes into, claimed before any simulation: created if missing, required to be a folder this
// process can write into, and locked through DIR/.roofsim.lock (flock) so that two runs never mix their files in one
// folder. Every problem is an InputError (exit 2) naming the folder, found before the work rather than after it.
#include <filesystem>
#include <memory>

#include "sim/core/interrupt.h"

namespace roofsim {

inline constexpr const char* kOutputLockName = ".roofsim.lock";

class OutputFolder {
 public:
  // exclusive: one writer at a time (a run, a whole sweep, a merge). shared: many writers of disjoint files may
  // share the folder (the shards of one sweep), but not with an exclusive writer.
  enum class Access { exclusive, shared };

  explicit OutputFolder(std::filesystem::path dir, Access access = Access::exclusive);
  // Releases the lock; the lock file is removed by its last holder.
  ~OutputFolder();
  OutputFolder(const OutputFolder&) = delete;
  OutputFolder& operator=(const OutputFolder&) = delete;

  [[nodiscard]] const std::filesystem::path& path() const { return dir_; }

 private:
  std::filesystem::path dir_;
  std::filesystem::path lock_file_;
  Access access_;
  int fd_ = -1;
  std::unique_ptr<RemoveOnSignal> remove_on_signal_;
};

}  // namespace roofsim
