#include "sim/core/systemc_setup.h"

#include <systemc>

#include <cstdlib>

namespace roofsim {

namespace {
// libsystemc's main() prints its banner before sc_main() runs, so the variable must be set during static
// initialisation; this object lives in the same file as prepare_systemc_process(), which every sc_main calls, so
// the linker always keeps it.
const bool kBannerSilenced = ::setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1) == 0;
}  // namespace

void prepare_systemc_process() {
  (void)kBannerSilenced;
  sc_core::sc_set_time_resolution(1.0, sc_core::SC_FS);
}

}  // namespace roofsim
