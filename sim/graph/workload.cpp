#include "sim/graph/workload.h"

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>
#include <utility>

#include "sim/config/config_document.h"
#include "sim/config/enum_spellings.h"
#include "sim/config/key_spec.h"
#include "sim/graph/counting.h"
#include "sim/graph/dag.h"
#include "sim/graph/expression.h"
#include "sim/graph/hardware_check.h"
#include "sim/graph/templates.h"
#include "sim/graph/workload_model_template.h"

namespace roofsim {

Flops Workload::total_useful_flops() const {
  Flops total = 0;
  for (const auto& op : ops) total = checked_add(total, op.useful_flops);
  return total;
}

Bytes Workload::total_compulsory_bytes() const {
  Bytes total = 0;
  for (const auto& op : ops) total = checked_add(total, op.compulsory_bytes());
  return total;
}

const Op* Workload::find_op(std::string_view op_name) const {
  for (const auto& op : ops) {
    if (op.name == op_name) return &op;
  }
  return nullptr;
}

const Tensor* Workload::find_tensor(std::string_view tensor_name) const {
  for (const auto& tensor : tensors) {
    if (tensor.name == tensor_name) return &tensor;
  }
  return nullptr;
}

namespace {

// Parameters are resolved on demand, so one may refer to another wherever it is written (and an override of one
// moves every parameter that depends on it); a parameter that depends on itself is an error.
class Parameters {
 public:
  explicit Parameters(const ConfigSection& root) {
    if (const auto params = root.child("params")) section_ = *params;
  }

  std::optional<std::int64_t> value(std::string_view name) {
    const std::string key(name);
    if (const auto found = values_.find(key); found != values_.end()) return found->second;
    if (!section_ || !section_->has(key)) return std::nullopt;
    const toml::node& node = *section_->node(key);
    if (const auto* integer = node.as_integer()) return values_[key] = integer->get();
    if (!in_progress_.insert(key).second) {
      section_->fail(key, "an expression that does not depend on itself (parameter '" + key + "' does)");
    }
    std::int64_t result = 0;
    try {
      result = evaluate_expression(node.as_string()->get(), [this](std::string_view other) { return value(other); });
    } catch (const ExpressionError& error) {
      section_->fail(key,
                     "an integer expression of the parameters (" + std::string(error.what()) + "; " + known() + ")");
    }
    in_progress_.erase(key);
    return values_[key] = result;
  }

  std::string known() const {
    if (!section_ || section_->keys().empty()) return "no parameters are defined in [params]";
    std::string names;
    for (const auto& key : section_->keys()) names += (names.empty() ? "" : ", ") + key;
    return "parameters: " + names;
  }

 private:
  std::optional<ConfigSection> section_;
  std::map<std::string, std::int64_t> values_;
  std::set<std::string> in_progress_;
};

// Reads the shape entries of one [[op]] or [[template]] table; errors name the owner ("op 'qkv'") and the key.
class ShapeReader {
 public:
  ShapeReader(const ConfigSection& section, std::string owner, Parameters& parameters)
      : section_(section), owner_(std::move(owner)), parameters_(parameters) {}

  // The key's value, checked against its range (a value that an expression computes is known only here).
  [[nodiscard]] std::uint64_t value(std::string_view key, std::uint64_t fallback = 0) const {
    const auto* node = section_.node(key);
    if (node == nullptr) return fallback;
    std::int64_t result = 0;
    if (const auto* integer = node->as_integer()) {
      result = integer->get();
    } else {
      try {
        result = evaluate_expression(node->as_string()->get(),
                                     [this](std::string_view name) { return parameters_.value(name); });
      } catch (const ExpressionError& error) {
        fail(key, "an integer expression of the parameters (" + std::string(error.what()) + "; " + parameters_.known() +
                      ")");
      }
      if (result < 0) fail(key, "a value >= 0 (it evaluates to " + std::to_string(result) + ")");
    }
    if (const auto problem = section_.range_problem(key, static_cast<double>(result))) {
      fail(key, *problem + (node->is_integer() ? "" : " (it evaluates to " + std::to_string(result) + ")"));
    }
    return static_cast<std::uint64_t>(result);
  }

  [[nodiscard]] std::uint64_t positive(std::string_view key, const std::string& why, std::uint64_t fallback = 0) const {
    const auto result = value(key, fallback);
    if (result == 0) fail(key, "a value greater than 0 (" + why + ")");
    return result;
  }

  [[noreturn]] void fail(std::string_view key, const std::string& expected) const {
    const auto* node = section_.node(key);
    throw InputError(section_.pos(key), owner_ + ": key '" + std::string(key) +
                                            "' = " + (node != nullptr ? value_text(*node) : "(missing)") +
                                            ": expected " + expected);
  }

  [[nodiscard]] const ConfigSection& section() const { return section_; }
  [[nodiscard]] const std::string& owner() const { return owner_; }

 private:
  const ConfigSection& section_;
  std::string owner_;
  Parameters& parameters_;
};

DataType data_type_of(const ConfigSection& section) {
  return *parse_data_type(section.text("dtype"));
}

// Names of the operands an op gets when its file entry lists none: fresh graph inputs and one output.
std::vector<std::string> default_input_roles(OpKind kind) {
  switch (kind) {
    case OpKind::gemm: return {"a", "b"};
    case OpKind::conv2d: return {"x", "w"};
    case OpKind::attention: return {"q", "k", "v"};
    case OpKind::embedding: return {"table"};
    default: return {"in"};
  }
}

OpDraft read_op(const ConfigSection& section, Parameters& parameters, std::set<std::string>& implicit_inputs) {
  OpDraft draft;
  Op& op = draft.op;
  op.name = section.text("name");
  op.kind = *parse_op_kind(section.text("kind"));
  op.dtype = data_type_of(section);
  op.engine = section.optional_text("engine").value_or("");
  op.pos = section.pos();
  const ShapeReader read(section, "op '" + op.name + "'", parameters);
  auto& s = op.shape;
  const std::string kind_name(to_string(op.kind));
  const std::string need = "a " + kind_name + " needs it";
  s.batch = read.positive("batch", "the batch count", 1);
  switch (op.kind) {
    case OpKind::gemm:
      s.m = read.positive("m", need);
      s.n = read.positive("n", need);
      s.k = read.positive("k", need);
      break;
    case OpKind::conv2d:
      s.channels = read.positive("channels", need);
      s.height = read.positive("height", need);
      s.width = read.positive("width", need);
      s.filters = read.positive("filters", need);
      s.kernel_h = read.positive("kernel_h", need);
      s.kernel_w = read.positive("kernel_w", need, s.kernel_h);
      s.stride = read.positive("stride", "the stride", 1);
      s.padding = read.value("padding", 0);
      if (conv_output_height(s) == 0 || conv_output_width(s) == 0) {
        read.fail("kernel_h", "a kernel no larger than the padded input (" + std::to_string(s.height) + "x" +
                                  std::to_string(s.width) + " + 2x" + std::to_string(s.padding) + " padding)");
      }
      try {
        s.m = checked_mul(checked_mul(s.batch, conv_output_height(s)), conv_output_width(s));
        s.k = checked_mul(checked_mul(s.channels, s.kernel_h), s.kernel_w);
      } catch (const std::overflow_error&) {
        throw InputError(op.pos, "op '" + op.name + "' (conv2d): a count overflows 64 bits (check the shapes)");
      }
      s.n = s.filters;
      break;
    case OpKind::elementwise: s.elements = read.positive("elements", need); break;
    case OpKind::reduction:
    case OpKind::softmax:
    case OpKind::layernorm:
    case OpKind::rmsnorm:
      s.rows = read.positive("rows", need);
      s.cols = read.positive("cols", need);
      break;
    case OpKind::attention:
      s.heads = read.positive("heads", need);
      s.kv_heads = read.positive("kv_heads", need, s.heads);
      if (s.heads % s.kv_heads != 0) read.fail("kv_heads", "a divisor of heads (" + std::to_string(s.heads) + ")");
      s.seq_q = read.positive("seq_q", need);
      s.seq_kv = read.positive("seq_kv", need, s.seq_q);
      s.head_dim = read.positive("head_dim", need);
      s.causal = section.flag("causal");
      s.flash = section.text("attention") == "flash";
      break;
    case OpKind::embedding:
      s.rows = read.positive("rows", need);
      s.cols = read.positive("cols", need);
      s.vocab = read.positive("vocab", need);
      break;
    default:  // collectives
      s.message_bytes = read.value("message_bytes", 0);
      s.group = read.value("group", 0);
      break;
  }
  s.flops_per_element = read.value("flops_per_element", default_flops_per_element(op.kind));
  s.exp2_per_element = read.value("exp2_per_element", 0);
  s.reciprocal_per_element = read.value("reciprocal_per_element", 0);
  op.decomposition = gemm_decomposition_kind(section.text("decomposition"));
  op.schedule = parse_enum<KernelSchedule>(section.text("schedule"));
  if (const auto tile = section.child("tile")) {
    const ShapeReader tile_read(*tile, "op '" + op.name + "'", parameters);
    op.tile = TileShape{tile_read.positive("m", "a tile side"), tile_read.positive("n", "a tile side"),
                        tile_read.positive("k", "a tile side")};
  }

  draft.inputs = section.text_list("inputs");
  draft.outputs = section.text_list("outputs");
  draft.after = section.text_list("after");
  if (!section.has("inputs")) {
    for (const auto& role : default_input_roles(op.kind)) {
      draft.inputs.push_back(op.name + "." + role);
      implicit_inputs.insert(draft.inputs.back());
    }
  }
  if (!section.has("outputs")) draft.outputs.push_back(op.name + ".out");
  if (draft.outputs.empty()) read.fail("outputs", "at least one output tensor");
  return draft;
}

TemplateArgs read_template(const ConfigSection& section, Parameters& parameters) {
  TemplateArgs args;
  args.name = section.text("name");
  args.pos = section.pos();
  const auto kind = section.text("kind");
  args.kind = kind == "mlp"                ? TemplateKind::mlp
              : kind == "dp_training_step" ? TemplateKind::dp_training_step
              : kind == "pipeline_stage"   ? TemplateKind::pipeline_stage
                                           : TemplateKind::transformer_block;
  const ShapeReader read(section, "template '" + args.name + "'", parameters);
  args.decode = section.text("phase") == "decode";
  args.hidden = read.positive("hidden", "the model width");
  args.heads = read.positive("heads", "attention heads", 1);
  args.kv_heads = read.value("kv_heads", args.heads);
  args.ffn = read.value("ffn", 0);
  args.seq = read.positive("seq", "tokens per sequence", 1);
  args.context = read.value("context", 0);
  args.batch = read.positive("batch", "sequences", 1);
  args.layers = read.positive("layers", "blocks", 1);
  args.tensor_parallel = read.positive("tensor_parallel", "tensor-parallel ranks", 1);
  args.micro_batches = read.positive("micro_batches", "micro-batches", 1);
  args.training = section.flag("training");
  args.bucket_bytes = section.bytes("bucket_size");
  args.dtype = data_type_of(section);
  args.engine = section.optional_text("engine").value_or("");
  args.decomposition = gemm_decomposition_kind(section.text("decomposition"));
  args.flash = section.text("attention") == "flash";
  args.causal = section.flag("causal");
  args.schedule = parse_enum<KernelSchedule>(section.text("schedule"));
  args.norm = section.text("norm") == "rmsnorm" ? OpKind::rmsnorm : OpKind::layernorm;
  args.silu = section.text("activation") == "silu";
  args.gated = section.flag("gated");
  args.resident_weights = section.flag("resident_weights");
  args.input = section.optional_text("input").value_or("");
  args.output = section.optional_text("output").value_or("");
  args.after = section.text_list("after");
  if (args.heads > 0 && args.kv_heads > 0 && args.heads % args.kv_heads != 0) {
    read.fail("kv_heads", "a divisor of heads (" + std::to_string(args.heads) + ")");
  }
  return args;
}

std::vector<std::uint64_t> read_tensor_shape(const ConfigSection& section, const std::string& name,
                                             Parameters& parameters) {
  std::vector<std::uint64_t> shape;
  const auto* node = section.node("shape");
  if (node == nullptr) return shape;
  const auto* array = node->as_array();
  const ShapeReader read(section, "tensor '" + name + "'", parameters);
  if (array == nullptr || array->empty()) read.fail("shape", "an array of dimensions ([\"batch*seq\", 4096])");
  for (const auto& element : *array) {
    std::int64_t value = 0;
    if (const auto* integer = element.as_integer()) {
      value = integer->get();
    } else if (const auto* text = element.as_string()) {
      try {
        value = evaluate_expression(text->get(), [&](std::string_view other) { return parameters.value(other); });
      } catch (const ExpressionError& error) {
        read.fail("shape", "dimensions that are integer expressions of the parameters (" + std::string(error.what()) +
                               "; " + parameters.known() + ")");
      }
    } else {
      read.fail("shape", "an array of integers or expressions");
    }
    if (value <= 0) read.fail("shape", "dimensions greater than 0");
    shape.push_back(static_cast<std::uint64_t>(value));
  }
  return shape;
}

// The shape an op implies for one of its operands; empty when the op does not determine it.
std::vector<std::uint64_t> implied_shape(const Op& op, bool output, std::size_t index, std::size_t count) {
  const auto& s = op.shape;
  const auto batched = [&](std::uint64_t rows, std::uint64_t cols) {
    return s.batch > 1 ? std::vector<std::uint64_t>{s.batch, rows, cols} : std::vector<std::uint64_t>{rows, cols};
  };
  switch (op.kind) {
    case OpKind::gemm:
      if (output) return batched(s.m, s.n);
      if (index == 0) return batched(s.m, s.k);
      if (index == 1) return batched(s.k, s.n);
      return {};
    case OpKind::conv2d:
      if (output) return {s.batch, s.filters, conv_output_height(s), conv_output_width(s)};
      if (index == 0) return {s.batch, s.channels, s.height, s.width};
      if (index == 1) return {s.filters, s.channels, s.kernel_h, s.kernel_w};
      return {};
    case OpKind::attention:
      if (output) return {s.batch, s.seq_q, s.heads * s.head_dim};
      if (count == 1) return {s.batch, s.seq_q, (s.heads + 2 * s.kv_heads) * s.head_dim};
      if (index == 0) return {s.batch, s.heads, s.seq_q, s.head_dim};
      return {s.batch, s.kv_heads, s.seq_kv, s.head_dim};
    case OpKind::elementwise: return {s.elements};
    case OpKind::reduction:
      if (output) return {s.rows};
      return {s.rows, s.cols};
    case OpKind::softmax:
    case OpKind::layernorm:
    case OpKind::rmsnorm:
      if (!output && index > 0) return {s.cols};  // scale and shift vectors
      return {s.rows, s.cols};
    case OpKind::embedding:
      if (output) return {s.rows, s.cols};
      if (index == 0) return {s.vocab, s.cols};
      return {s.rows};
    default: {  // collectives: a buffer of message_bytes (allgather gathers it, reducescatter scatters it)
      const Bytes element = element_bytes(op.dtype);
      if (s.message_bytes == 0 || s.message_bytes % element != 0) return {};
      std::uint64_t elements = s.message_bytes / element;
      const bool shrink = (op.kind == OpKind::allgather && !output) || (op.kind == OpKind::reducescatter && output);
      if (shrink && s.group > 1) elements /= s.group;
      return {elements};
    }
  }
}

std::uint64_t elements_of(const std::vector<std::uint64_t>& shape) {
  std::uint64_t total = 1;
  for (const auto dimension : shape) total = checked_mul(total, dimension);
  return total;
}

std::string shape_text(const std::vector<std::uint64_t>& shape) {
  std::string text;
  for (const auto dimension : shape) text += (text.empty() ? "" : "x") + std::to_string(dimension);
  return text;
}

[[noreturn]] void fail_op(const Op& op, const std::string& message) {
  throw InputError(op.pos, "op '" + op.name + "' (" + std::string(to_string(op.kind)) + "): " + message);
}

// GEMM and conv operands have one legal size; a declared tensor of another size is a mistake in the file.
void check_operand_sizes(const Op& op, const std::vector<Tensor>& tensors) {
  if (op.kind != OpKind::gemm && op.kind != OpKind::conv2d) return;
  if (op.inputs.size() < 2) fail_op(op, "needs two inputs (A and B)");
  const auto check = [&](std::size_t index, std::vector<std::uint64_t> expected, const char* role, bool output) {
    const Tensor& tensor = tensors[index];
    const auto actual = elements_of(tensor.shape);
    const auto want = elements_of(expected);
    // A GEMM's B may be shared by every batch (weights): k x n without the batch dimension.
    const bool shared_weights =
        op.kind == OpKind::gemm && !output && std::string(role) == "B" && actual == checked_mul(op.shape.k, op.shape.n);
    if (actual != want && !shared_weights) {
      fail_op(op, std::string(role) + " tensor '" + tensor.name + "' has shape " + shape_text(tensor.shape) + " (" +
                      std::to_string(actual) + " elements) but the op needs " + shape_text(expected) + " (" +
                      std::to_string(want) + ")");
    }
  };
  check(op.inputs[0], implied_shape(op, false, 0, 2), "A", false);
  check(op.inputs[1], implied_shape(op, false, 1, 2), "B", false);
  check(op.outputs[0], implied_shape(op, true, 0, 1), "C", true);
}

std::string cycle_text(const std::vector<std::size_t>& cycle, const std::vector<OpDraft>& drafts) {
  std::string text;
  for (const auto index : cycle) text += "'" + drafts[index].op.name + "' -> ";
  return text + "'" + drafts[cycle.front()].op.name + "'";
}

Bytes align_up(Bytes value, Bytes alignment) {
  return checked_mul((checked_add(value, alignment - 1)) / alignment, alignment);
}

// Where each name of the graph points: ops by name, declared tensors, and the op that writes each tensor. Names
// are unique, so each map has one entry per name; building them finds the duplicates.
struct GraphNames {
  std::map<std::string, std::size_t> op_index;
  std::map<std::string, const TensorDraft*> declared;
  std::map<std::string, std::size_t> producer;
};

GraphNames index_names(const std::vector<OpDraft>& drafts, const std::vector<TensorDraft>& declared_list) {
  GraphNames names;
  for (std::size_t i = 0; i < drafts.size(); ++i) {
    const auto& op = drafts[i].op;
    const auto [it, fresh] = names.op_index.emplace(op.name, i);
    if (!fresh) {
      throw InputError(op.pos, "op '" + op.name + "': the name is already used by the op at " +
                                   drafts[it->second].op.pos.to_string() + " (op names must be unique)");
    }
  }
  for (const auto& tensor : declared_list) {
    const auto [it, fresh] = names.declared.emplace(tensor.name, &tensor);
    if (!fresh) {
      throw InputError(tensor.pos,
                       "tensor '" + tensor.name + "': declared twice (also at " + it->second->pos.to_string() + ")");
    }
  }
  for (std::size_t i = 0; i < drafts.size(); ++i) {
    for (const auto& output : drafts[i].outputs) {
      const auto [it, fresh] = names.producer.emplace(output, i);
      if (!fresh) {
        fail_op(drafts[i].op, "output tensor '" + output + "' is already written by op '" + drafts[it->second].op.name +
                                  "' (a tensor has one producer; name the new value)");
      }
    }
  }
  return names;
}

// The ops in a stable topological order of their data and `after` dependencies; a dangling input or `after`, or a
// cycle, is an error naming the ops.
std::vector<std::size_t> dependency_order(const std::vector<OpDraft>& drafts, const GraphNames& names,
                                          const std::set<std::string>& implicit_inputs) {
  std::vector<DependencyEdge> edges;
  for (std::size_t i = 0; i < drafts.size(); ++i) {
    for (const auto& input : drafts[i].inputs) {
      if (const auto found = names.producer.find(input); found != names.producer.end()) {
        edges.emplace_back(found->second, i);
      } else if (names.declared.count(input) == 0 && implicit_inputs.count(input) == 0) {
        fail_op(drafts[i].op,
                "input tensor '" + input + "' is unknown: no op produces it and no [[tensor]] declares it");
      }
    }
    for (const auto& before : drafts[i].after) {
      const auto found = names.op_index.find(before);
      if (found == names.op_index.end()) fail_op(drafts[i].op, "after = '" + before + "': no op has that name");
      edges.emplace_back(found->second, i);
    }
  }
  if (const auto cycle = find_cycle(drafts.size(), edges)) {
    const auto& first = drafts[cycle->front()].op;
    throw InputError(first.pos, "the workload graph has a cycle: " + cycle_text(*cycle, drafts) +
                                    " (each op waits for the one before it)");
  }
  return stable_topological_order(drafts.size(), edges);
}

// Creates the workload's tensors as ops first use them. A tensor's shape and type come from its declaration, else
// from what its producer implies, else from its first consumer.
class TensorTable {
 public:
  TensorTable(Workload& workload, const std::vector<OpDraft>& drafts, const GraphNames& names)
      : workload_(workload), drafts_(drafts), names_(names) {}

  // The index of the tensor `name` that op `user` reads (or writes, `output`) in operand `slot` of `count`.
  std::size_t index(const std::string& name, const Op& user, bool output, std::size_t slot, std::size_t count) {
    if (const auto found = index_.find(name); found != index_.end()) return found->second;
    Tensor tensor;
    tensor.name = name;
    std::optional<DataType> dtype;
    if (const auto found = names_.declared.find(name); found != names_.declared.end()) {
      tensor.shape = found->second->shape;
      dtype = found->second->dtype;
      tensor.resident = found->second->resident;
    }
    if (const auto from_producer = names_.producer.find(name); from_producer != names_.producer.end()) {
      const auto& draft = drafts_[from_producer->second];
      if (!dtype) dtype = draft.op.dtype;
      if (tensor.shape.empty()) {
        const auto it = std::find(draft.outputs.begin(), draft.outputs.end(), name);
        tensor.shape =
            implied_shape(draft.op, true, static_cast<std::size_t>(it - draft.outputs.begin()), draft.outputs.size());
      }
    }
    if (!dtype) dtype = user.dtype;
    if (tensor.shape.empty()) tensor.shape = implied_shape(user, output, slot, count);
    if (tensor.shape.empty()) {
      fail_op(user, "the shape of tensor '" + name +
                        "' cannot be inferred: declare it in a [[tensor]] with a shape (or give message_bytes)");
    }
    tensor.dtype = *dtype;
    tensor.bytes = checked_mul(elements_of(tensor.shape), element_bytes(tensor.dtype));
    return add(std::move(tensor));
  }

  // The scores matrix a non-flash attention writes and reads back: a tensor of its own, named after the op.
  std::size_t add_scores(const Op& op) {
    Tensor scores;
    scores.name = op.name + ".scores";
    scores.shape = {op.shape.batch, op.shape.heads, op.shape.seq_q, op.shape.seq_kv};
    scores.dtype = op.dtype;
    scores.bytes = checked_mul(elements_of(scores.shape), element_bytes(op.dtype));
    if (index_.count(scores.name) != 0) fail_op(op, "tensor '" + scores.name + "' is reserved for its scores");
    return add(std::move(scores));
  }

 private:
  std::size_t add(Tensor tensor) {
    const std::string name = tensor.name;
    workload_.tensors.push_back(std::move(tensor));
    index_.emplace(name, workload_.tensors.size() - 1);
    return workload_.tensors.size() - 1;
  }

  Workload& workload_;
  const std::vector<OpDraft>& drafts_;
  const GraphNames& names_;
  std::map<std::string, std::size_t> index_;
};

// One op of the workload: its operands resolved to tensors, its dependencies as positions in `order`, its sizes
// checked and its FLOPs and bytes counted.
Op resolve_op(const OpDraft& draft, const GraphNames& names, const std::vector<std::size_t>& position,
              TensorTable& tensors, const Workload& workload) {
  Op op = draft.op;  // a copy: later consumers still read the producer's shape from its draft
  try {
    for (std::size_t slot = 0; slot < draft.inputs.size(); ++slot) {
      op.inputs.push_back(tensors.index(draft.inputs[slot], op, false, slot, draft.inputs.size()));
    }
    for (std::size_t slot = 0; slot < draft.outputs.size(); ++slot) {
      op.outputs.push_back(tensors.index(draft.outputs[slot], op, true, slot, draft.outputs.size()));
    }
    if (op.kind == OpKind::attention && !op.shape.flash) op.scratch.push_back(tensors.add_scores(op));
    for (const auto& input : draft.inputs) {
      if (const auto found = names.producer.find(input); found != names.producer.end())
        op.after.push_back(position[found->second]);
    }
    for (const auto& before : draft.after) op.after.push_back(position[names.op_index.at(before)]);
    std::sort(op.after.begin(), op.after.end());
    op.after.erase(std::unique(op.after.begin(), op.after.end()), op.after.end());

    check_operand_sizes(op, workload.tensors);
    if (is_collective(op.kind) && op.shape.message_bytes == 0) {
      const auto& buffer =
          op.kind == OpKind::allgather ? workload.tensors[op.outputs.front()] : workload.tensors[op.inputs.front()];
      op.shape.message_bytes = buffer.bytes;
    }
    count_op(op, workload.tensors);
  } catch (const std::overflow_error&) {
    fail_op(op, "a count overflows 64 bits (check the shapes)");
  }
  return op;
}

// One aligned range per tensor in order of first use, from 0 upward, so that they never overlap and the same file
// always gives the same addresses.
void assign_addresses(Workload& workload, Bytes alignment_bytes) {
  Bytes next = 0;
  try {
    for (auto& tensor : workload.tensors) {
      tensor.address = next;
      next = align_up(checked_add(next, std::max<Bytes>(tensor.bytes, 1)), alignment_bytes);
    }
  } catch (const std::overflow_error&) {
    throw InputError(SourcePos{workload.file}, "the tensors of the workload do not fit a 64-bit address space");
  }
  workload.footprint_bytes = next;
}

Workload assemble(std::string name, std::string file, std::uint64_t devices, std::vector<OpDraft> drafts,
                  const std::vector<TensorDraft>& declared_list, const std::set<std::string>& implicit_inputs,
                  Bytes alignment_bytes) {
  const GraphNames names = index_names(drafts, declared_list);
  const auto order = dependency_order(drafts, names, implicit_inputs);
  std::vector<std::size_t> position(drafts.size());
  for (std::size_t i = 0; i < order.size(); ++i) position[order[i]] = i;

  Workload workload;
  workload.name = std::move(name);
  workload.file = std::move(file);
  workload.devices = devices;

  // A collective without a group spans every device; resolved first, since its buffers' shapes depend on it.
  for (auto& draft : drafts) {
    if (is_collective(draft.op.kind) && draft.op.shape.group == 0) draft.op.shape.group = devices;
  }
  TensorTable tensors(workload, drafts, names);
  for (const auto original : order)
    workload.ops.push_back(resolve_op(drafts[original], names, position, tensors, workload));
  assign_addresses(workload, alignment_bytes);
  return workload;
}

struct Entry {
  const ConfigSection* section;
  bool is_template;
};

}  // namespace

Workload build_workload(const std::filesystem::path& file, const std::vector<Override>& overrides,
                        Bytes alignment_bytes, const WorkLimits& limits) {
  if (is_model_template(file)) return build_model_template(file, overrides, alignment_bytes, limits).workload;
  ConfigDocument document(file, workload_registry());
  for (const auto& entry : overrides) document.apply_override(entry.key, entry.value);
  document.check();
  const auto root = document.root();
  Parameters parameters(root);
  const auto header = *root.child("workload");
  const ShapeReader header_read(header, "workload", parameters);
  const auto devices = header_read.positive("devices", "devices", 1);

  // [[op]] and [[template]] entries interleaved as written, so that ties in the topological order follow the file.
  const auto op_sections = root.elements("op");
  const auto template_sections = root.elements("template");
  std::vector<Entry> entries;
  for (const auto& section : op_sections) entries.push_back({&section, false});
  for (const auto& section : template_sections) entries.push_back({&section, true});
  std::stable_sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
    const auto pa = a.section->pos(), pb = b.section->pos();
    return pa.line != pb.line ? pa.line < pb.line : pa.column < pb.column;
  });

  std::vector<TensorDraft> declared;
  for (const auto& section : root.elements("tensor")) {
    TensorDraft tensor;
    tensor.name = section.text("name");
    tensor.shape = read_tensor_shape(section, tensor.name, parameters);
    if (const auto dtype = section.optional_text("dtype")) tensor.dtype = parse_data_type(*dtype);
    tensor.resident = section.flag("resident");
    tensor.pos = section.pos();
    declared.push_back(std::move(tensor));
  }

  std::vector<OpDraft> drafts;
  std::set<std::string> implicit_inputs;
  for (const auto& entry : entries) {
    if (!entry.is_template) {
      drafts.push_back(read_op(*entry.section, parameters, implicit_inputs));
      continue;
    }
    const auto args = read_template(*entry.section, parameters);
    TemplateArgs with_devices = args;
    with_devices.devices = devices;
    check_work_limit(args.pos, "the workload with template '" + args.name + "' expanded",
                     saturating_add(drafts.size(), template_op_count(with_devices)), limits.ops, "ops");
    Expansion expansion;
    try {
      expansion = expand_template(with_devices);
    } catch (const std::overflow_error&) {
      throw InputError(args.pos, "template '" + args.name + "': a shape overflows 64 bits");
    }
    for (auto& op : expansion.ops) drafts.push_back(std::move(op));
    for (auto& tensor : expansion.tensors) declared.push_back(std::move(tensor));
  }
  if (drafts.empty()) root.fail_message("a workload needs at least one [[op]] or [[template]]");
  check_work_limit(SourcePos{file.string()}, "the workload", drafts.size(), limits.ops, "ops");
  Workload workload = assemble(header.text("name"), file.string(), devices, std::move(drafts), declared,
                               implicit_inputs, alignment_bytes);
  workload.oversubscribe = header.optional_text("oversubscribe").value_or("");
  return workload;
}

Workload assemble_workload(std::string name, std::string file, std::uint64_t devices, std::vector<OpDraft> drafts,
                           const std::vector<TensorDraft>& tensors, Bytes alignment_bytes) {
  return assemble(std::move(name), std::move(file), devices, std::move(drafts), tensors, {}, alignment_bytes);
}

Workload load_workload(const std::filesystem::path& file, const std::vector<Override>& overrides,
                       const HardwareParams& hardware, const WorkLimits& limits) {
  Bytes alignment = kTensorAlignmentBytes;
  while (alignment < hardware.compute.request_bytes) alignment *= 2;
  Workload workload = build_workload(file, overrides, alignment, limits);
  check_workload_against_hardware(workload, hardware);
  return workload;
}

}  // namespace roofsim
