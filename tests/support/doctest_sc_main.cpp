// The test runner. libsystemc.so defines main() and calls sc_main(), so doctest runs from here.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdlib>

#include "sim/core/systemc_setup.h"

extern "C" int sc_main(int argc, char* argv[]) {
  roofsim::prepare_systemc_process();
  doctest::Context context;
  context.applyCommandLine(argc, argv);
  return context.run();
}
