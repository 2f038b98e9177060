#pragma once
// Small hardware and workload files written into a scratch directory, so the graph tests do not depend on the
// bundled device files.
#include <filesystem>
#include <fstream>
#include <string>

#include "tests/support/test_paths.h"

namespace roofsim::test {

struct TestHardwareOptions {
  std::string local_capacity = "228KiB";
  bool fp8 = true;
  std::string default_tile = "m = 128\nn = 128\nk = 64\n";
};

// An H100-like device without DRAM (the graph needs only engines and the local SRAM level).
inline std::filesystem::path write_test_hardware(const std::filesystem::path& dir,
                                                 const TestHardwareOptions& options = {}) {
  const auto path = dir / "test-hw.toml";
  std::ofstream out(path);
  out << "[device]\nname = \"test-gpu\"\n\n[compute]\nunits = 132\n\n[compute.default_tile]\n"
      << options.default_tile
      << "\n[compute.engines.matrix]\nclock = \"1.83GHz\"\n[compute.engines.matrix.flops_per_cycle]\n"
         "tf32 = 1024\nbf16 = 2048\nfp16 = 2048\nint8 = 4096\n"
      << (options.fp8 ? "fp8 = 4096\n" : "")
      << "\n[compute.engines.vector]\nclock = \"1.83GHz\"\n[compute.engines.vector.flops_per_cycle]\n"
         "fp64 = 128\nfp32 = 256\nbf16 = 512\nfp16 = 512\n"
      << "\n[memory.smem]\nscope = \"unit\"\nkind = \"scratchpad\"\ncapacity = \"" << options.local_capacity
      << "\"\nline_size = \"128B\"\nbytes_per_cycle = 128\nclock = \"1.83GHz\"\nlatency = \"30cycles\"\n"
         "\n[memory.l2]\nscope = \"device\"\ncapacity = \"50MiB\"\nbytes_per_cycle = 5000\nclock = \"1.83GHz\"\n"
         "latency = \"200cycles\"\n";
  return path;
}

inline std::filesystem::path write_file(const std::filesystem::path& dir, const std::string& name,
                                        const std::string& text) {
  const auto path = dir / name;
  std::ofstream(path) << text;
  return path;
}

}  // namespace roofsim::test
