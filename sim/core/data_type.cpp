#include "sim/core/data_type.h"

namespace roofsim {

std::string_view to_string(DataType type) {
  switch (type) {
    case DataType::fp64: return "fp64";
    case DataType::fp32: return "fp32";
    case DataType::tf32: return "tf32";
    case DataType::bf16: return "bf16";
    case DataType::fp16: return "fp16";
    case DataType::fp8: return "fp8";
    case DataType::int8: return "int8";
  }
  return "?";
}

std::optional<DataType> parse_data_type(std::string_view name) {
  for (const DataType type : kAllDataTypes) {
    if (to_string(type) == name) return type;
  }
  return std::nullopt;
}

Bytes element_bytes(DataType type) {
  switch (type) {
    case DataType::fp64: return 8;
    case DataType::fp32:
    case DataType::tf32: return 4;
    case DataType::bf16:
    case DataType::fp16: return 2;
    case DataType::fp8:
    case DataType::int8: return 1;
  }
  return 0;
}

}  // namespace roofsim
