#pragma once
// Records when each tile ran on which unit and slot, as data for the timeline trace. The dispatcher
// calls start() when it gives a unit a tile and finish() when the unit reports it done; nothing is written here.
// A unit with occupancy k runs up to k tiles at once; each gets the lowest free slot, so the spans of one
// (unit, slot) never overlap and a trace can draw them on one track.
#include <cstdint>
#include <vector>

#include "models/kernel/time_fs.h"

namespace roofsim {

struct TileSpan {
  std::uint32_t op = 0;
  std::uint32_t unit = 0;
  std::uint32_t slot = 0;
  TimeFs start_fs = 0;
  TimeFs end_fs = 0;
};

class TileSpanRecorder {
 public:
  explicit TileSpanRecorder(std::uint64_t units = 0) : open_(units) {}

  // Whether spans are kept: a run that writes no trace.json (a cluster run's ranks) keeps none, which spares a span
  // per tile (the 1024-GPU GPT-3 step's 28.8 million tiles: 0.9 GB, and as much again for the result's copy).
  void keep(bool on) { keep_ = on; }

  void start(std::size_t op, std::uint64_t unit, TimeFs now) {
    if (!keep_) return;
    auto& open = open_[unit];
    std::uint32_t slot = 0;
    while (slot_taken(open, slot)) ++slot;
    open.push_back(Open{static_cast<std::uint32_t>(op), slot, now});
  }

  // The tile of `op` that started first on `unit` ends (units finish a given op's tiles in any order, but which of
  // them ends only changes which slot's track shows it, not the unit's busy picture).
  void finish(std::size_t op, std::uint64_t unit, TimeFs now) {
    if (!keep_) return;
    auto& open = open_[unit];
    for (std::size_t i = 0; i < open.size(); ++i) {
      if (open[i].op != op) continue;
      spans_.push_back(TileSpan{open[i].op, static_cast<std::uint32_t>(unit), open[i].slot, open[i].start_fs, now});
      open.erase(open.begin() + static_cast<std::ptrdiff_t>(i));
      return;
    }
  }

  [[nodiscard]] const std::vector<TileSpan>& spans() const { return spans_; }
  // A span of a memoized replay, recorded from its twin and shifted in time.
  void add(const TileSpan& span) {
    if (keep_) spans_.push_back(span);
  }
  // The spans of `op` that started at or after `from_fs` move `by_fs` later (a fast-forwarded op's waves after its
  // skipped ones).
  void shift(std::uint32_t op, TimeFs from_fs, TimeFs by_fs) {
    for (auto& span : spans_) {
      if (span.op != op || span.start_fs < from_fs) continue;
      span.start_fs += by_fs;
      span.end_fs += by_fs;
    }
  }
  // The same for a skip inside tiles at `at_fs`: the spans of `op` running at that moment last `by_fs` longer.
  void stretch(std::uint32_t op, TimeFs at_fs, TimeFs by_fs) {
    for (auto& span : spans_) {
      if (span.op != op || span.end_fs <= at_fs) continue;
      if (span.start_fs >= at_fs) span.start_fs += by_fs;
      span.end_fs += by_fs;
    }
  }

 private:
  struct Open {
    std::uint32_t op;
    std::uint32_t slot;
    TimeFs start_fs;
  };
  static bool slot_taken(const std::vector<Open>& open, std::uint32_t slot) {
    for (const auto& o : open) {
      if (o.slot == slot) return true;
    }
    return false;
  }

  std::vector<std::vector<Open>> open_;
  std::vector<TileSpan> spans_;
  bool keep_ = true;
};

}  // namespace roofsim
