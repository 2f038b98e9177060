// The replay runner of a harness in builds without libFuzzer: calls LLVMFuzzerTestOneInput on every file named on the
// command line (folders: every file inside, in name order) and fails when an input escapes the harness with an
// exception other than InputError, or takes longer than a fuzz run's -timeout. A crash or a sanitizer report ends the
// process, which fails the test as well; the name of the input being replayed is printed first so that it is known.
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {

// As scripts/fuzz passes -timeout and -rss_limit_mb to libFuzzer.
constexpr double kTimeoutSeconds = 10;
constexpr rlim_t kAddressSpaceBytes = rlim_t{4} << 30;

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kAddressSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kAddressSanitizer = true;
#else
constexpr bool kAddressSanitizer = false;
#endif
#else
constexpr bool kAddressSanitizer = false;
#endif

std::vector<std::filesystem::path> inputs_of(const std::vector<std::string>& arguments) {
  std::vector<std::filesystem::path> inputs;
  for (const auto& argument : arguments) {
    if (std::filesystem::is_directory(argument)) {
      std::vector<std::filesystem::path> files;
      for (const auto& entry : std::filesystem::directory_iterator(argument)) {
        if (entry.is_regular_file()) files.push_back(entry.path());
      }
      std::sort(files.begin(), files.end());
      inputs.insert(inputs.end(), files.begin(), files.end());
    } else {
      inputs.emplace_back(argument);
    }
  }
  return inputs;
}

}  // namespace

int main(int argc, char** argv) {
  // An input that allocates without bound fails with bad_alloc (a finding) instead of taking the machine;
  // AddressSanitizer reserves terabytes of address space and limits allocations itself (allocator_may_return_null=0).
  if (!kAddressSanitizer) {
    const rlimit limit{kAddressSpaceBytes, kAddressSpaceBytes};
    setrlimit(RLIMIT_AS, &limit);
  }
  const auto inputs = inputs_of(std::vector<std::string>(argv + 1, argv + argc));
  if (inputs.empty()) {
    std::cerr << "usage: " << argv[0] << " FILE_OR_FOLDER...\n";
    return 2;
  }
  int failures = 0;
  double slowest_s = 0;
  std::string slowest;
  for (const auto& input : inputs) {
    std::ifstream in(input, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    const std::string bytes = text.str();
    if (!in) {
      std::cerr << input.string() << ": cannot read\n";
      ++failures;
      continue;
    }
    std::cerr << "replaying " << input.string() << "\n";
    const auto start = std::chrono::steady_clock::now();
    try {
      LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
    } catch (const std::exception& error) {
      std::cerr << input.string()
                << ": FAILED: the harness let through an exception other than InputError: " << error.what() << "\n";
      ++failures;
    } catch (...) {
      std::cerr << input.string() << ": FAILED: the harness let through an exception that is no std::exception\n";
      ++failures;
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (seconds > kTimeoutSeconds) {
      std::cerr << input.string() << ": FAILED: took " << seconds << " s, above the fuzz timeout of " << kTimeoutSeconds
                << " s\n";
      ++failures;
    }
    if (seconds > slowest_s) {
      slowest_s = seconds;
      slowest = input.string();
    }
  }
  std::cout << inputs.size() << " inputs replayed, " << failures << " failed; slowest " << slowest_s << " s ("
            << slowest << ")\n";
  return failures == 0 ? 0 : 1;
}
