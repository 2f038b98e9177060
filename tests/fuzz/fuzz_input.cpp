#include "tests/fuzz/fuzz_input.h"

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <stdexcept>
#include <system_error>

namespace roofsim::fuzz {

namespace {

// One folder per process (CTest runs the replays in parallel, libFuzzer may fork workers), removed when it exits.
class ScratchFolder {
 public:
  ScratchFolder() {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/roofsim-fuzz-XXXXXX";
    if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("cannot create a scratch folder " + pattern);
    path_ = pattern;
  }
  ~ScratchFolder() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  ScratchFolder(const ScratchFolder&) = delete;
  ScratchFolder& operator=(const ScratchFolder&) = delete;

  [[nodiscard]] const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace

std::filesystem::path input_file(const std::string& name, const std::uint8_t* data, std::size_t size) {
  static const ScratchFolder folder;
  const auto path = folder.path() / name;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  out.close();
  if (!out) throw std::runtime_error("cannot write the fuzz input " + path.string());
  return path;
}

std::filesystem::path source_dir() {
  return ROOFSIM_SOURCE_DIR;
}

WorkLimits harness_limits() {
  WorkLimits limits;
  limits.ops = 2'000;
  limits.tiles = 10'000'000;
  limits.sweep_points = 2'000;
  limits.devices = 4'096;
  return limits;
}

}  // namespace roofsim::fuzz

// libsystemc.so, which the loaders' libraries link, refers to sc_main from its own main(); the harness binaries have
// their own main (libFuzzer's, or replay_main.cpp), so this one is never called.
extern "C" int sc_main(int /*argc*/, char* /*argv*/[]) {
  return 1;
}
