#pragma once

namespace roofsim {

// Called first in every sc_main: silences the SystemC banner (it would corrupt machine-readable output) and sets the
// time resolution to 1 fs before any sc_time exists (an H100 cycle is 546.4 ps; 1 ps would round it).
void prepare_systemc_process();

}  // namespace roofsim
