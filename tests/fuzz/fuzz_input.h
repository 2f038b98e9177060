#pragma once
// What the loader harnesses share. A harness hands the fuzzer's bytes to a loader as the file it reads (the loaders
// read by path, and the path is part of what they check) and treats an InputError as the loader's normal answer to bad
// input. Any other exception escapes the harness: libFuzzer reports it as a crash (std::terminate), and the replay
// runner (replay_main.cpp) as a failure of the file that caused it.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>

#include "sim/config/work_limits.h"
#include "sim/core/input_error.h"

namespace roofsim::fuzz {

// Writes the bytes to `name` in this process's own scratch folder (made on first use, removed at exit), replacing the
// previous input of that name, and returns its path.
[[nodiscard]] std::filesystem::path input_file(const std::string& name, const std::uint8_t* data, std::size_t size);

// The bundled data folder of the source tree (configs/, workloads/), for harnesses that need a real device.
[[nodiscard]] std::filesystem::path source_dir();

// The limits a harness loads with: those of the program scaled down, so that an input at a limit still runs in well
// under a second, while crossing a limit takes the same code path as in the program.
[[nodiscard]] WorkLimits harness_limits();

// Runs `load`; an InputError is the expected outcome of bad input and is dropped.
template <class Load>
void load_expecting_input_errors(Load&& load) {
  try {
    load();
  } catch (const InputError&) {
  }
}

}  // namespace roofsim::fuzz
