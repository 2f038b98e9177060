#pragma once
#include <array>
#include <optional>
#include <string_view>

#include "sim/core/units.h"

namespace roofsim {

// Element types of tensors. tf32 is stored as fp32 (4 bytes) but computed on the matrix engine at tf32 rate.
enum class DataType { fp64, fp32, tf32, bf16, fp16, fp8, int8 };

inline constexpr std::array<DataType, 7> kAllDataTypes = {
    DataType::fp64, DataType::fp32, DataType::tf32, DataType::bf16, DataType::fp16, DataType::fp8, DataType::int8};

[[nodiscard]] std::string_view to_string(DataType type);
[[nodiscard]] std::optional<DataType> parse_data_type(std::string_view name);
[[nodiscard]] Bytes element_bytes(DataType type);

}  // namespace roofsim
