// roofsim: libsystemc.so owns main() and calls sc_main(); the command line is handled in sim/cli.
#include "sim/cli/app.h"

extern "C" int sc_main(int argc, char* argv[]) {
  return roofsim::cli::run_main(argc, argv);
}
