#pragma once
// The version of this roofsim build: `git describe` of the source tree when it was built (a tarball without git gives
// the project version with "-nogit"). `roofsim --version` prints it and report.json records it.

namespace roofsim {

[[nodiscard]] const char* roofsim_version();

}  // namespace roofsim
