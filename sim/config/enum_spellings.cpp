#include "sim/config/enum_spellings.h"

namespace roofsim {

const std::array<EnumSpelling<DataType>, kAllDataTypes.size()> EnumSpellings<DataType>::kAll = [] {
  std::array<EnumSpelling<DataType>, kAllDataTypes.size()> spellings{};
  for (std::size_t i = 0; i < kAllDataTypes.size(); ++i) spellings[i] = {kAllDataTypes[i], to_string(kAllDataTypes[i])};
  return spellings;
}();

}  // namespace roofsim
