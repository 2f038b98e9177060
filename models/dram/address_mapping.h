#pragma once
// Address mapping: which channel, bank group, bank, row and column a physical address falls in. The mapping is an
// order of fields, most significant first, as DRAMSys and Ramulator 2 name theirs ("RoBaBgCoCh": row on top, then
// bank, bank group, column, channel; the byte offset within a burst is always the lowest). Each field is a digit of
// a mixed-radix number (radix = the field's count), which for power-of-two counts is exactly a bit field and also
// allows device channel counts such as 80 (five HBM stacks of 16). The row takes everything above the other fields.
//
// A ":xor" suffix ("RoBaBgCoCh:xor") permutes the bank, bank group and channel digits with the low digits of the row
// (XOR for power-of-two counts, addition modulo the count otherwise), the permutation-based page interleaving of
// Zhang, Zhu and Zhang (MICRO 2000): addresses one row apart no longer fall in the same bank.
//
// A ":hash" suffix permutes every field but the column with a fold of all the fields above it but the column, the
// row included: the XOR of the field-width bit slices of them for a power-of-two count, the sum of their base-count
// digits modulo the count otherwise. It is a GF(2)-linear channel hash of the higher address bits, as GPU memory
// controllers use so that power-of-two strides do not fall in one channel (the polynomial IPOLY indexing of Rau,
// "Pseudo-randomly interleaved memory", ISCA 1991, is one; Accel-Sim's validated Volta configuration,
// tested-cfgs/SM7_QV100, selects it with -gpgpu_memory_partition_indexing 2). ":xor" folds in the row only, so two
// streams one bank digit apart (1 MiB on an MI300X under RoBaChBgCo) still meet in every channel; under ":hash"
// they do not. Each field's permutation depends only on fields above it, so an aligned span of the fields below the
// row still covers every channel, bank group and bank once (a stream keeps its balance), a channel's run of bursts
// stays contiguous, and the column is never permuted nor folded in (bursts one column stride apart keep their
// channel, bank and row).
#include <array>
#include <cstdint>
#include <string>

#include "models/kernel/fast_index.h"
#include "sim/core/units.h"

namespace roofsim::dram {

struct DramAddress {
  std::uint32_t channel = 0;
  std::uint32_t bank_group = 0;
  std::uint32_t bank = 0;  // within its bank group
  std::uint64_t row = 0;
  std::uint32_t column = 0;  // in bursts
};

struct MappingShape {
  std::uint32_t channels = 1;
  std::uint32_t bank_groups = 1;
  std::uint32_t banks_per_group = 1;
  std::uint32_t columns = 1;  // bursts per row
  Bytes burst_bytes = 32;
};

class AddressMapping {
 public:
  // Throws std::invalid_argument naming what is wrong with `order` (the caller turns it into an InputError).
  AddressMapping(const std::string& order, const MappingShape& shape);

  [[nodiscard]] DramAddress decode(std::uint64_t address) const;
  [[nodiscard]] const MappingShape& shape() const { return shape_; }
  // Bursts from one column of a row to the next: the product of the counts of the fields below the column. The
  // bursts b, b + stride, ... share their channel, bank and row while the column does not wrap.
  [[nodiscard]] std::uint64_t column_stride_bursts() const { return column_stride_bursts_; }
  // By the burst and by column_stride_bursts(), for callers that split requests into bursts.
  [[nodiscard]] const Divider& per_burst() const { return per_burst_; }
  [[nodiscard]] const Divider& per_column_stride() const { return per_column_stride_; }
  // Consecutive bursts of the address space that fall in one channel: the product of the counts of the fields below
  // the channel (a sequential stream moves on to the next channel after this many).
  [[nodiscard]] std::uint64_t channel_run_bursts() const { return channel_run_bursts_; }
  [[nodiscard]] const std::string& order() const { return order_; }
  // The grammar, for --help and error messages.
  [[nodiscard]] static std::string grammar();

 private:
  enum Field : std::uint8_t { kChannel, kBankGroup, kBank, kColumn };
  std::string order_;
  MappingShape shape_;
  std::array<Field, 4> low_to_high_{};    // the fields below the row, least significant first
  std::array<std::uint32_t, 4> radix_{};  // of each field in low_to_high_ order
  std::array<int, 5> shift_{};            // bit position of each field and of the row when every count is 2^n
  bool bit_fields_ = false;               // every count (and the burst) is a power of two: decode by shifts
  int burst_shift_ = 0;
  // By the burst and by each field's radix (a decode divides by each once; most radixes are no power of two).
  Divider per_burst_;
  std::array<Divider, 4> per_radix_{};
  enum class Permutation : std::uint8_t { none, row_xor, fold };
  [[nodiscard]] std::uint32_t fold_above(std::size_t slot, const std::uint32_t* digits, std::uint64_t row) const;
  Permutation permutation_ = Permutation::none;
  std::uint64_t column_stride_bursts_ = 1;
  Divider per_column_stride_;
  std::uint64_t channel_run_bursts_ = 1;
};

}  // namespace roofsim::dram
