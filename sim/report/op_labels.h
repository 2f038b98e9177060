#pragma once
// How the log-log charts label their op points with bounded work and a bounded legend: each point gets its name (a
// point shared by several ops, the summary of their names) beside it where the label placer finds room, else a
// number keyed in the legend; past a fixed number of labels and keys, the rest is counted and summarised by name
// pattern ("decoder.l*.attn.qkv x32"), so that a chart of 100k ops costs about as much as one of a hundred.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "sim/report/label_placer.h"
#include "sim/report/svg_primitives.h"

namespace roofsim {

// The name with each run of digits replaced by '*' ("decoder.l12.attn.qkv" -> "decoder.l*.attn.qkv").
[[nodiscard]] std::string name_pattern(std::string_view name);

// The names grouped by pattern, in order of first appearance, at most `max_groups` groups: a group of one name is the
// name, a larger one the name with '*' for the numbers that differ among its names, and its count; then "+N more"
// ops. "decoder.l*.attn.qkv x32, embed, +40 more"; "batch=16 power cap=*W x10".
[[nodiscard]] std::string summarise_names(const std::vector<std::string>& names, std::size_t max_groups);

struct OpLabelPoint {
  double x = 0, y = 0;             // px
  std::vector<std::string> names;  // the ops drawn at this point
};

struct OpLabelLimits {
  std::size_t max_labels = 60;       // names drawn beside their points
  std::size_t max_attempts = 300;    // points tried at all (each try is a fixed number of candidates)
  std::size_t max_key_entries = 20;  // numbered points explained in the legend
};

// What the legend says about the points: the numbered ones, then how many points and ops have no label.
struct OpKey {
  std::vector<std::string> entries;  // "[1] block.qkv, block.proj, block.up, block.down"
  std::size_t unlabelled_points = 0, unlabelled_ops = 0;
  std::string unlabelled_names;  // summarise_names of those ops
};

// Places the labels of `points` in order (class "op-label"; numbers too); markers and lines must already be
// blocked in the placer.
OpKey place_op_labels(const std::vector<OpLabelPoint>& points, LabelPlacer& placer, svg::SvgOut& svg, double font_px,
                      const OpLabelLimits& limits = {});

// The key as a legend section ("Op labels"): nothing when every point carries its name.
void draw_op_key(svg::Legend& legend, const OpKey& key);

}  // namespace roofsim
