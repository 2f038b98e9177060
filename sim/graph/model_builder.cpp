#include "sim/graph/model_builder.h"

#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include "sim/core/input_error.h"
#include "sim/graph/counting.h"
#include "sim/graph/model_counts.h"
#include "sim/graph/moe_routing.h"
#include "sim/graph/templates.h"

namespace roofsim {

namespace {

using Shape = std::vector<std::uint64_t>;

[[noreturn]] void fail_key(const std::string& key, std::uint64_t value, const std::string& expected) {
  throw InputError(SourcePos{"--set"}, "workload." + key, std::to_string(value), expected);
}

std::uint64_t product(const Shape& shape) {
  std::uint64_t total = 1;
  for (const auto d : shape) total = checked_mul(total, d);
  return total;
}

// The ops of the graph in the order they are made, and what the backward pass needs of each forward op.
class GraphBuilder {
 public:
  GraphBuilder(const ModelConfig& config, const ModelWorkloadArgs& args, SourcePos pos)
      : c_(config), a_(args), pos_(std::move(pos)) {}

  // A tensor declared with its shape (and data type when not the compute type).
  std::string tensor(const std::string& name, Shape shape, std::optional<DataType> dtype = std::nullopt) {
    TensorDraft draft;
    draft.name = name;
    draft.shape = shape;
    draft.dtype = dtype.value_or(a_.dtype);
    draft.pos = pos_;
    shapes_[name] = std::move(shape);
    tensors_.push_back(std::move(draft));
    return name;
  }

  // A weight, shared by every micro-batch: "mb3.l0.w_qkv" is "l0.w_qkv".
  std::string weight(const std::string& op_name, Shape shape) {
    const std::string name = op_name.rfind("mb", 0) == 0 ? op_name.substr(op_name.find('.') + 1) : op_name;
    if (weights_.insert(name).second) tensor(name, std::move(shape));
    layer_weights_.push_back(name);
    return name;
  }
  [[nodiscard]] bool is_weight(const std::string& t) const { return weights_.count(t) != 0; }
  [[nodiscard]] std::optional<std::string> grad_of(const std::string& t) const {
    const auto it = grads_.find(t);
    if (it == grads_.end()) return std::nullopt;
    return it->second;
  }

  OpDraft& op(const std::string& name, OpKind kind, std::vector<std::string> inputs, std::vector<std::string> outputs) {
    OpDraft draft;
    draft.op.name = name;
    draft.op.kind = kind;
    draft.op.dtype = a_.dtype;
    draft.op.pos = pos_;
    draft.op.shape.flops_per_element = default_flops_per_element(kind);
    draft.inputs = std::move(inputs);
    draft.outputs = std::move(outputs);
    if (!chain_after_.empty()) {
      draft.after = chain_after_;
      chain_after_.clear();
    }
    ops_.push_back(std::move(draft));
    if (recording_) records_.push_back(ops_.size() - 1);
    return ops_.back();
  }

  std::string gemm(const std::string& name, std::uint64_t m, std::uint64_t n, std::uint64_t k, const std::string& a,
                   const std::string& b) {
    const auto out = tensor(name + ".out", {m, n});
    auto& draft = op(name, OpKind::gemm, {a, b}, {out});
    draft.op.shape.m = m;
    draft.op.shape.n = n;
    draft.op.shape.k = k;
    return out;
  }

  std::string eltwise(const std::string& name, std::uint64_t elements, std::uint64_t flops,
                      std::vector<std::string> inputs, Shape out_shape) {
    const auto out = tensor(name + ".out", std::move(out_shape));
    auto& draft = op(name, OpKind::elementwise, std::move(inputs), {out});
    draft.op.shape.elements = elements;
    draft.op.shape.flops_per_element = flops;
    return out;
  }

  std::string rowwise(const std::string& name, OpKind kind, std::uint64_t rows, std::uint64_t cols,
                      const std::string& in) {
    const auto out = tensor(name + ".out", {rows, cols});
    auto& draft = op(name, kind, {in}, {out});
    draft.op.shape.rows = rows;
    draft.op.shape.cols = cols;
    return out;
  }

  // A residual add: its backward passes the gradient to both inputs unchanged.
  std::string residual(const std::string& name, std::uint64_t rows, const std::string& x, const std::string& y) {
    const auto out = eltwise(name, checked_mul(rows, c_.hidden), 1, {x, y}, {rows, c_.hidden});
    residuals_.insert(ops_.size() - 1);
    return out;
  }

  std::string collective(const std::string& name, OpKind kind, std::vector<std::string> inputs,
                         std::vector<std::string> outputs, Bytes message_bytes, std::uint64_t group,
                         std::uint64_t stride) {
    auto& draft = op(name, kind, std::move(inputs), std::move(outputs));
    draft.op.shape.message_bytes = message_bytes;
    draft.op.shape.group = group;
    draft.op.shape.group_stride = stride;
    ++collectives_[kind];
    return draft.outputs.front();
  }

  [[nodiscard]] Bytes bytes_of(std::uint64_t elements) const { return checked_mul(elements, element_bytes(a_.dtype)); }

  // The next op made waits for `ops` (names).
  void then(std::vector<std::string> ops) { chain_after_ = std::move(ops); }
  [[nodiscard]] std::string last_op() const { return ops_.back().op.name; }
  void mark_last_optimizer_step() { ops_.back().optimizer_step = true; }
  [[nodiscard]] std::string op_name(std::size_t index) const { return ops_[index].op.name; }
  [[nodiscard]] std::size_t op_count() const { return ops_.size(); }

  // Forward ops made between start and stop are recorded for the backward pass.
  void start_recording() {
    recording_ = true;
    records_.clear();
    layer_weights_.clear();
  }
  std::vector<std::size_t> stop_recording() {
    recording_ = false;
    return records_;
  }

  // The backward of the recorded forward ops, last first. `weight_source` maps a weight to the tensor the backward
  // reads it from (ZeRO-3's second all-gather). Returns the weight gradients made.
  std::vector<std::string> backward(const std::vector<std::size_t>& records, const std::string& suffix,
                                    const std::map<std::string, std::string>& weight_source) {
    std::vector<std::string> weight_grads;
    for (auto it = records.rbegin(); it != records.rend(); ++it) {
      const OpDraft fwd = ops_[*it];  // a copy: ops_ grows below
      std::vector<std::string> out_grads;
      for (const auto& output : fwd.outputs) {
        if (const auto g = grads_.find(output); g != grads_.end()) out_grads.push_back(g->second);
      }
      if (out_grads.empty()) continue;  // nothing downstream needs this op's gradient
      const std::string name = fwd.op.name + ".bwd" + suffix;
      const std::string& g = out_grads.front();
      const auto& s = fwd.op.shape;
      if (residuals_.count(*it) != 0) {
        for (const auto& input : fwd.inputs) add_grad(input, g, name);
        continue;
      }
      switch (fwd.op.kind) {
        case OpKind::gemm: {
          const std::string& x = fwd.inputs[0];
          const std::string& w = fwd.inputs[1];
          const bool is_weight = weights_.count(w) != 0;
          const auto source = weight_source.find(w);
          const std::string w_read = source == weight_source.end() ? w : source->second;
          if (!is_input(x)) add_grad(x, gemm(name + ".dgrad", s.m, s.k, s.n, g, w_read), name);
          if (is_weight) {
            const auto dw = tensor(w + ".grad" + suffix, {s.k, s.n});
            auto& wgrad = op(name + ".wgrad", OpKind::gemm, {x, g}, {dw});
            wgrad.op.shape.m = s.k;
            wgrad.op.shape.n = s.n;
            wgrad.op.shape.k = s.m;
            weight_grads.push_back(dw);
          }
          break;
        }
        case OpKind::attention: {
          // FlashAttention's backward: dV, dP (and dS), dQ, dK; two passes of the forward's size.
          const std::string& qkv = fwd.inputs[0];
          const auto partial = tensor(name + "1.out", shapes_.at(fwd.outputs[0]));
          auto& first = op(name + "1", OpKind::attention, {g, qkv, qkv}, {partial});
          first.op.shape = s;
          const auto dqkv = tensor(name + "2.out", shapes_.at(qkv));
          auto& second = op(name + "2", OpKind::attention, {partial, qkv, qkv}, {dqkv});
          second.op.shape = s;
          add_grad(qkv, dqkv, name);
          break;
        }
        case OpKind::embedding: {
          // The scatter-add of the gradient rows into the table's gradient.
          const auto dw = eltwise(name, checked_mul(s.rows, s.cols), 1, {g}, {s.rows, s.cols});
          weight_grads.push_back(dw);
          break;
        }
        case OpKind::allreduce:
        case OpKind::allgather:
        case OpKind::reducescatter:
        case OpKind::alltoall: {
          const OpKind conjugate = fwd.op.kind == OpKind::allgather       ? OpKind::reducescatter
                                   : fwd.op.kind == OpKind::reducescatter ? OpKind::allgather
                                                                          : fwd.op.kind;
          std::vector<std::string> graded, outs;
          for (const auto& input : fwd.inputs) {
            if (!carries_grad(fwd.op.name, input)) continue;
            graded.push_back(input);
            outs.push_back(tensor(input + ".grad" + suffix + "." + name, shapes_.at(input)));
          }
          if (outs.empty()) break;
          collective(name, conjugate, out_grads, outs, s.message_bytes, s.group, s.group_stride);
          for (std::size_t i = 0; i < graded.size(); ++i) add_grad(graded[i], outs[i], name);
          break;
        }
        default: {
          // Norms, softmax, reductions and element-wise ops: the same kind of op over the gradient, one more
          // multiply per element for element-wise ops (the chain rule's product).
          std::vector<std::string> inputs = out_grads;
          std::vector<std::string> outs;
          for (const auto& input : fwd.inputs) {
            inputs.push_back(input);
            if (!carries_grad(fwd.op.name, input)) continue;
            outs.push_back(tensor(input + ".grad" + suffix + "." + name, shapes_.at(input)));
          }
          if (outs.empty()) break;
          auto& draft = op(name, fwd.op.kind, inputs, outs);
          draft.op.shape = s;
          if (fwd.op.kind == OpKind::elementwise) draft.op.shape.flops_per_element = s.flops_per_element + 1;
          std::size_t i = 0;
          for (const auto& input : fwd.inputs) {
            if (carries_grad(fwd.op.name, input)) add_grad(input, outs[i++], name);
          }
          break;
        }
      }
    }
    return weight_grads;
  }

  // Repeats the recorded forward ops (full recomputation) under new names; returns the last op's name.
  std::string recompute(const std::vector<std::size_t>& records, const std::string& suffix) {
    std::map<std::string, std::string> renamed;
    for (const auto index : records) {
      OpDraft copy = ops_[index];
      copy.op.name += ".recompute" + suffix;
      copy.after.clear();
      for (auto& input : copy.inputs) {
        if (const auto it = renamed.find(input); it != renamed.end()) input = it->second;
      }
      for (auto& output : copy.outputs) {
        const auto fresh = output + ".recompute" + suffix;
        tensor(fresh, shapes_.at(output));
        renamed[output] = fresh;
        output = fresh;
      }
      if (!chain_after_.empty()) {
        copy.after = chain_after_;
        chain_after_.clear();
      }
      ops_.push_back(std::move(copy));
    }
    return ops_.back().op.name;
  }

  // Seeds the backward pass: the gradient of `tensor` is `grad`.
  void seed_grad(const std::string& t, const std::string& grad) { grads_[t] = grad; }

  void mark_input(const std::string& t) { inputs_.insert(t); }
  // `op` reads `t` as indices (the routing that decides where each token row goes): no gradient flows to `t`
  // through it, although other ops may read `t` as values (the gate weights of the weighted sum).
  void mark_indices(const std::string& op, const std::string& t) { indices_.insert({op, t}); }
  [[nodiscard]] bool carries_grad(const std::string& op, const std::string& t) const {
    return !is_input(t) && weights_.count(t) == 0 && indices_.count({op, t}) == 0;
  }
  [[nodiscard]] bool is_input(const std::string& t) const { return inputs_.count(t) != 0; }
  [[nodiscard]] const std::vector<std::string>& layer_weights() const { return layer_weights_; }
  [[nodiscard]] const Shape& shape(const std::string& t) const { return shapes_.at(t); }
  [[nodiscard]] std::uint64_t collectives(OpKind kind) const {
    const auto it = collectives_.find(kind);
    return it == collectives_.end() ? 0 : it->second;
  }

  std::vector<OpDraft> take_ops() { return std::move(ops_); }
  std::vector<TensorDraft> take_tensors() { return std::move(tensors_); }

 private:
  // Accumulates a gradient contribution: the first is taken as is, later ones are added by an element-wise op.
  void add_grad(const std::string& t, const std::string& grad, const std::string& by) {
    const auto it = grads_.find(t);
    if (it == grads_.end()) {
      grads_[t] = grad;
      return;
    }
    const auto elements = product(shapes_.at(t));
    const bool was_recording = recording_;
    recording_ = false;
    grads_[t] = eltwise(by + ".accumulate." + t, elements, 1, {it->second, grad}, shapes_.at(t));
    recording_ = was_recording;
  }

  const ModelConfig& c_;
  const ModelWorkloadArgs& a_;
  SourcePos pos_;
  std::vector<OpDraft> ops_;
  std::vector<TensorDraft> tensors_;
  std::map<std::string, Shape> shapes_;
  std::set<std::string> weights_;
  std::set<std::string> inputs_;
  std::set<std::pair<std::string, std::string>> indices_;  // (op, tensor it reads as indices)
  std::set<std::size_t> residuals_;
  std::map<std::string, std::string> grads_;
  std::vector<std::string> layer_weights_;
  std::vector<std::string> chain_after_;
  std::map<OpKind, std::uint64_t> collectives_;
  bool recording_ = false;
  std::vector<std::size_t> records_;
};

// The per-rank sizes of the layout.
struct Layout {
  std::uint64_t heads = 0, kv_heads = 0, head_dim = 0, ffn = 0, moe_ffn = 0, shared_ffn = 0, vocab = 0;
  std::uint64_t sequences = 1;  // per micro-batch
  std::uint64_t seq_q = 1, seq_kv = 1;
  std::uint64_t tokens = 1;      // per micro-batch
  std::uint64_t seq_tokens = 1;  // tokens a sequence-parallel region holds (tokens / tp)
  std::uint64_t stage_layers = 1;
  std::uint64_t first_layer = 0;  // model index of the stage's first block
};

class ModelGraph {
 public:
  ModelGraph(const ModelConfig& config, const ModelWorkloadArgs& args)
      : c_(config), a_(args), g_(config, args, SourcePos{config.file}) {
    check_layout();
  }

  ModelWorkload build() {
    ModelWorkload result;
    result.config = c_;
    result.args = a_;
    const bool train = a_.phase == ModelPhase::train;
    for (std::uint64_t j = 0; j < a_.micro_batches; ++j) {
      const std::string mb = a_.micro_batches > 1 || a_.pp > 1 ? "mb" + std::to_string(j) + "." : "";
      const std::size_t first = g_.op_count();
      micro_batch_forward(mb);
      passes_.push_back(Pass{true, j, first, g_.op_count()});
      if (train && a_.pp == 1) micro_batch_backward(mb, j + 1 == a_.micro_batches);
    }
    if (train && a_.pp > 1) {
      // The backward passes in the order the schedule runs them (the same on every stage), the gradients
      // synchronised after the last.
      std::vector<std::uint64_t> backward;
      for (const auto& pass : pipeline_order(schedule_kind(), a_.pp, 0, a_.micro_batches, 1)) {
        if (!pass.forward) backward.push_back(pass.micro_batch);
      }
      for (std::size_t k = 0; k < backward.size(); ++k) {
        const std::size_t first = g_.op_count();
        micro_batch_backward("mb" + std::to_string(backward[k]) + ".", k + 1 == backward.size());
        passes_.push_back(Pass{false, backward[k], first, g_.op_count()});
      }
    }
    result.expert_rank = expert_rank_;
    result.expert_rank_share = expert_share_;
    result.dropped_per_layer = dropped_;
    ops_ = g_.take_ops();
    if (train && a_.pp == 1) defer_optimizer(ops_, 0);
    tensors_ = g_.take_tensors();
    return result;
  }

  // Each stage's graph: the same ops with the passes in the stage's order of the schedule, each pass's receive after
  // the previous pass's last op before its send, as the stage's one compute stream runs them (pp > 1, training).
  std::vector<std::vector<OpDraft>> stage_drafts() const {
    std::vector<std::vector<OpDraft>> stages;
    if (a_.pp == 1 || a_.phase != ModelPhase::train) return stages;
    std::map<std::pair<bool, std::uint64_t>, const Pass*> by_key;
    for (const auto& pass : passes_) by_key[{pass.forward, pass.micro_batch}] = &pass;
    for (std::uint64_t s = 0; s < a_.pp; ++s) {
      auto& drafts = stages.emplace_back();
      drafts.reserve(ops_.size());
      std::string previous;
      for (const auto& step : pipeline_order(schedule_kind(), a_.pp, s, a_.micro_batches, 1)) {
        const Pass& pass = *by_key.at({step.forward, step.micro_batch});
        // The optimizer step (Adam and ZeRO's all-gather of the updated shard) runs after the pass's send, as after
        // a pipeline's flush, rather than between its layers where it would hold back the stages waiting for them.
        const std::size_t start = drafts.size();
        for (std::size_t i = pass.first; i < pass.end; ++i) drafts.push_back(ops_[i]);
        auto& receive = drafts[start];
        receive.after.clear();
        if (!previous.empty()) receive.after.push_back(previous);
        // The send at the pass's end is asynchronous (an isend): the next pass waits for the op before it.
        const std::size_t optimizer = defer_optimizer(drafts, start);
        const bool sends = drafts[optimizer - 1].op.kind == OpKind::sendrecv && optimizer - start > 1;
        previous = drafts[optimizer - (sends ? 2 : 1)].op.name;
      }
    }
    return stages;
  }

  std::vector<OpDraft> ops_;
  std::vector<TensorDraft> tensors_;

 private:
  // The optimizer step (Adam, and ZeRO's all-gather of the updated shard) of ops [first, end) moved behind the
  // others, each Adam after the last compute op of the backward pass: a framework calls optimizer.step() once the
  // backward pass has returned (and, with DDP, its gradient reductions have finished), so the step never runs
  // between backward ops, where its long memory-bound kernels would hold back the small backward ops queued behind
  // their tiles. Returns the index of the first optimizer op (drafts.size() without any).
  static std::size_t defer_optimizer(std::vector<OpDraft>& drafts, std::size_t first) {
    const auto begin = drafts.begin() + static_cast<std::ptrdiff_t>(first);
    const auto split = std::stable_partition(begin, drafts.end(), [](const OpDraft& op) { return !op.optimizer_step; });
    const auto at = static_cast<std::size_t>(split - drafts.begin());
    std::string last_compute;
    for (std::size_t i = at; i-- > first;) {
      if (!is_collective(drafts[i].op.kind)) {
        last_compute = drafts[i].op.name;
        break;
      }
    }
    if (last_compute.empty()) return at;
    for (std::size_t i = at; i < drafts.size(); ++i) {
      if (!is_collective(drafts[i].op.kind)) drafts[i].after.push_back(last_compute);
    }
    return at;
  }

  // A micro-batch's forward or backward pass on this stage: ops [first, end) of the graph, beginning with its receive.
  struct Pass {
    bool forward = true;
    std::uint64_t micro_batch = 0;
    std::size_t first = 0, end = 0;
  };

  // The schedule the stages run; interleaved runs as 1F1B here (one model chunk per stage), its bubble comes from
  // its timeline (pipeline_schedule.h).
  PipelineScheduleKind schedule_kind() const {
    return a_.pipeline_schedule == PipelineScheduleKind::gpipe ? PipelineScheduleKind::gpipe
                                                               : PipelineScheduleKind::one_f_one_b;
  }

  void check_layout() {
    if (c_.heads % a_.tp != 0 || c_.kv_heads % a_.tp != 0) {
      fail_key("tp", a_.tp,
               "a divisor of the heads (" + std::to_string(c_.heads) + ") and KV heads (" +
                   std::to_string(c_.kv_heads) + ")");
    }
    if (c_.ffn % a_.tp != 0 || (c_.moe() && a_.ep == 1 && c_.moe_ffn % a_.tp != 0)) {
      fail_key("tp", a_.tp, "a divisor of intermediate_size (and moe_intermediate_size)");
    }
    const std::uint64_t layers = a_.layers == 0 ? c_.layers : a_.layers;
    if (layers % a_.pp != 0) fail_key("pp", a_.pp, "a divisor of the layers built (" + std::to_string(layers) + ")");
    if (a_.ep > 1) {
      if (!c_.moe()) fail_key("ep", a_.ep, "1: the model has no experts");
      if (c_.experts % a_.ep != 0)
        fail_key("ep", a_.ep, "a divisor of the experts (" + std::to_string(c_.experts) + ")");
      if (a_.dp % a_.ep != 0) fail_key("ep", a_.ep, "a divisor of dp (" + std::to_string(a_.dp) + ")");
      if (a_.tp > 1) fail_key("ep", a_.ep, "1 when tp > 1 (experts are split by tp or by ep, not both)");
    }
    if (a_.batch % a_.micro_batches != 0) {
      fail_key("micro_batches", a_.micro_batches, "a divisor of batch (" + std::to_string(a_.batch) + ")");
    }
    if (a_.phase != ModelPhase::train && (a_.zero > 0 || a_.recompute != Recompute::none)) {
      fail_key("zero", a_.zero, "0 and recompute none outside training");
    }
    if (a_.phase != ModelPhase::train && a_.micro_batches > 1 && a_.pp == 1) {
      fail_key("micro_batches", a_.micro_batches, "1 for inference without pipeline parallelism");
    }
    l_.heads = c_.heads / a_.tp;
    l_.kv_heads = c_.kv_heads / a_.tp;
    l_.head_dim = attention_flop_head_dim(c_);
    l_.ffn = c_.ffn / a_.tp;
    l_.moe_ffn = a_.ep > 1 ? c_.moe_ffn : c_.moe_ffn / std::max<std::uint64_t>(1, a_.tp);
    l_.shared_ffn = c_.shared_experts * c_.moe_ffn / a_.tp;
    l_.vocab = (c_.vocab + a_.tp - 1) / a_.tp;
    l_.sequences = a_.batch / a_.micro_batches;
    const bool decode = a_.phase == ModelPhase::decode;
    l_.seq_q = decode ? 1 : a_.seq;
    l_.seq_kv = decode ? (a_.context == 0 ? a_.seq : a_.context) + 1 : a_.seq;
    l_.tokens = checked_mul(l_.sequences, l_.seq_q);
    if (a_.sequence_parallel && (a_.tp == 1 || l_.tokens % a_.tp != 0)) {
      fail_key("tp", a_.tp, "above 1 and a divisor of the tokens per micro-batch with sequence_parallel");
    }
    l_.seq_tokens = a_.sequence_parallel ? l_.tokens / a_.tp : l_.tokens;
    l_.stage_layers = layers / a_.pp;
    // The built layers are the model's first `layers`; the stage built is the last of them.
    l_.first_layer = (a_.pp - 1) * l_.stage_layers;
  }

  std::string p(const std::string& mb, std::uint64_t layer) const {
    return mb + "l" + std::to_string(l_.first_layer + layer) + ".";
  }

  void micro_batch_forward(const std::string& mb) {
    const std::uint64_t t = l_.tokens, h = c_.hidden;
    std::string x;
    if (a_.pp > 1) {
      const auto buf = g_.tensor(mb + "recv.buf", {l_.seq_tokens, h});
      g_.mark_input(buf);
      x = g_.tensor(mb + "in", {l_.seq_tokens, h});
      auto& recv = g_.op(mb + "recv", OpKind::sendrecv, {buf}, {x});
      recv.op.shape.message_bytes = g_.bytes_of(l_.seq_tokens * h);
      recv.op.shape.group = a_.pp;
      recv.op.shape.group_stride = a_.tp;
      recv.op.shape.peer = -1;
      recv.op.shape.receive = true;
      if (!previous_.empty()) recv.after = previous_;
      stage_inputs_.push_back(x);
    } else {
      const auto table = g_.weight(mb + "embed.table", {c_.vocab, h});
      g_.start_recording();
      x = g_.tensor(mb + "embed.out", {t, h});
      auto& embed = g_.op(mb + "embed", OpKind::embedding, {table}, {x});
      embed.op.shape.rows = t;
      embed.op.shape.cols = h;
      embed.op.shape.vocab = c_.vocab;
      if (!previous_.empty()) embed.after = previous_;
      if (c_.learned_positions) {
        const auto positions = g_.weight(mb + "embed.positions", {l_.seq_q, h});
        x = g_.eltwise(mb + "embed.add_positions", checked_mul(t, h), 1, {x, positions}, {t, h});
      }
      if (a_.sequence_parallel) x = g_.eltwise(mb + "embed.scatter", l_.seq_tokens * h, 0, {x}, {l_.seq_tokens, h});
      head_records_[mb] = g_.stop_recording();
    }
    std::vector<std::string> previous_layer_first;
    for (std::uint64_t layer = 0; layer < l_.stage_layers; ++layer) {
      g_.start_recording();
      x = block(p(mb, layer), l_.first_layer + layer, x);
      const auto records = g_.stop_recording();
      layer_records_[mb].push_back(records);
      layer_weight_names_[mb].push_back(g_.layer_weights());
      // ZeRO-3's gather of this layer's weights may start once the previous layer has started (prefetch of one).
      (void)zero3_gather(mb, layer, false, g_.layer_weights(), previous_layer_first, nullptr);
      previous_layer_first = {g_.op_name(records.front())};
    }
    if (a_.pp > 1) {
      const auto sent = g_.tensor(mb + "sent", {l_.seq_tokens, h});
      auto& send = g_.op(mb + "send", OpKind::sendrecv, {x}, {sent});
      send.op.shape.message_bytes = g_.bytes_of(l_.seq_tokens * h);
      send.op.shape.group = a_.pp;
      send.op.shape.group_stride = a_.tp;
      send.op.shape.peer = 1;
      stage_outputs_.push_back(x);
      previous_ = {g_.last_op()};
      return;
    }
    // Final norm and the LM head (inference: the next-token logits of each sequence only).
    g_.start_recording();
    const bool train = a_.phase == ModelPhase::train;
    if (a_.sequence_parallel) x = gather(mb + "final", x);
    x = g_.rowwise(mb + "final_norm", c_.rmsnorm ? OpKind::rmsnorm : OpKind::layernorm, t, h, x);
    const std::uint64_t rows = train ? t : l_.sequences;
    if (!train && rows != t) x = g_.eltwise(mb + "last_token", rows * h, 0, {x}, {rows, h});
    const auto head = g_.weight(mb + "lm_head", {h, l_.vocab});
    auto logits = g_.gemm(mb + "lm_head", rows, l_.vocab, h, x, head);
    if (train) {
      // Vocabulary-parallel cross-entropy (Megatron-LM) over this rank's slice of the logits, streamed in chunks as
      // fused kernels do (a row of 128k logits is larger than an SM's shared memory): per logit the max, the
      // exponent's argument, the exp2, the sum and the gradient's scale, 5 FLOPs and one exp2.
      const auto loss = g_.tensor(mb + "loss.out", {rows, l_.vocab});
      auto& cross_entropy = g_.op(mb + "loss", OpKind::elementwise, {logits}, {loss});
      cross_entropy.op.shape.elements = checked_mul(rows, l_.vocab);
      cross_entropy.op.shape.flops_per_element = 5;
      cross_entropy.op.shape.exp2_per_element = 1;
      const auto seed = g_.tensor(mb + "loss.grad", {rows, l_.vocab});
      g_.mark_input(seed);
      g_.seed_grad(loss, seed);
    }
    auto records = g_.stop_recording();
    tail_records_[mb] = records;
    previous_ = {g_.last_op()};
  }

  // Tensor-parallel regions: with sequence parallelism an all-gather of the sequence shards in and a reduce-scatter
  // out; otherwise the input is replicated and the output all-reduced.
  std::string gather(const std::string& name, const std::string& x) {
    if (!a_.sequence_parallel) return x;
    const auto out = g_.tensor(name + ".allgather.out", {l_.tokens, c_.hidden});
    return g_.collective(name + ".allgather", OpKind::allgather, {x}, {out}, g_.bytes_of(l_.tokens * c_.hidden), a_.tp,
                         1);
  }
  std::string reduce(const std::string& name, const std::string& partial) {
    if (a_.tp == 1) return partial;
    const Bytes message = g_.bytes_of(l_.tokens * c_.hidden);
    if (a_.sequence_parallel) {
      const auto out = g_.tensor(name + ".reducescatter.out", {l_.seq_tokens, c_.hidden});
      return g_.collective(name + ".reducescatter", OpKind::reducescatter, {partial}, {out}, message, a_.tp, 1);
    }
    const auto out = g_.tensor(name + ".allreduce.out", {l_.tokens, c_.hidden});
    return g_.collective(name + ".allreduce", OpKind::allreduce, {partial}, {out}, message, a_.tp, 1);
  }

  std::string norm(const std::string& name, const std::string& x) {
    return g_.rowwise(name, c_.rmsnorm ? OpKind::rmsnorm : OpKind::layernorm, l_.seq_tokens, c_.hidden, x);
  }

  std::string block(const std::string& pre, std::uint64_t layer, const std::string& x) {
    const std::uint64_t t = l_.tokens, h = c_.hidden;
    const auto n1 = gather(pre + "attn", norm(pre + "norm1", x));
    const auto attn = attention(pre, n1);
    const auto h1 = g_.residual(pre + "residual1", l_.seq_tokens, x, reduce(pre + "attn", attn));
    const auto n2 = gather(pre + "mlp", norm(pre + "norm2", h1));
    const auto mlp_out = c_.moe_layer(layer) ? moe(pre, n2) : mlp(pre + "mlp.", t, l_.ffn, n2);
    (void)h;
    return g_.residual(pre + "residual2", l_.seq_tokens, h1, reduce(pre + "mlp", mlp_out));
  }

  std::string mlp(const std::string& pre, std::uint64_t rows, std::uint64_t ffn, const std::string& x) {
    const std::uint64_t h = c_.hidden;
    const std::uint64_t up_width = c_.gated ? 2 * ffn : ffn;
    const auto w_up = g_.weight(pre + "w_up", {h, up_width});
    const auto w_down = g_.weight(pre + "w_down", {ffn, h});
    auto up = g_.gemm(pre + "up", rows, up_width, h, x, w_up);
    if (c_.biases) up = g_.eltwise(pre + "up.bias", rows * up_width, 1, {up}, {rows, up_width});
    const auto act_out = g_.tensor(pre + "act.out", {rows, ffn});
    auto& act = g_.op(pre + "act", OpKind::elementwise, {up}, {act_out});
    act.op.shape.elements = checked_mul(rows, ffn);
    act.op.shape.flops_per_element = activation_flops_per_element(c_.gated, c_.gated);
    set_activation_special_ops(act.op.shape, c_.gated);
    auto down = g_.gemm(pre + "down", rows, h, ffn, act_out, w_down);
    if (c_.biases) down = g_.eltwise(pre + "down.bias", rows * h, 1, {down}, {rows, h});
    return down;
  }

  std::string attention(const std::string& pre, const std::string& x) {
    const std::uint64_t t = l_.tokens, h = c_.hidden, d = l_.head_dim;
    const std::uint64_t qkv_width = roofsim::qkv_width(c_, a_.tp);
    std::string qkv;
    if (c_.mla()) {
      // Multi-head latent attention (DeepSeek-V2 report, sec. 2.1): low-rank query and key-value projections with
      // their norms, the decoupled rotary part of the keys shared by the heads. The rotary op writes Q, K and V at
      // their own widths (Q and K nope + rope, V v per head); the attention computes at their mean width, whose FLOPs
      // equal QK^T's plus PV's.
      const std::uint64_t qk = c_.qk_nope_head_dim + c_.qk_rope_head_dim;
      std::string q_latent = x;
      std::uint64_t q_in = h;
      if (c_.q_lora_rank > 0) {
        const auto w_qa = g_.weight(pre + "w_q_a", {h, c_.q_lora_rank});
        q_latent = g_.rowwise(pre + "q_a_norm", OpKind::rmsnorm, t, c_.q_lora_rank,
                              g_.gemm(pre + "q_a", t, c_.q_lora_rank, h, x, w_qa));
        q_in = c_.q_lora_rank;
      }
      const auto w_qb = g_.weight(pre + "w_q_b", {q_in, l_.heads * qk});
      const auto q = g_.gemm(pre + "q_b", t, l_.heads * qk, q_in, q_latent, w_qb);
      const std::uint64_t kv_a_width = c_.kv_lora_rank + c_.qk_rope_head_dim;
      const auto w_kva = g_.weight(pre + "w_kv_a", {h, kv_a_width});
      const auto kv_a = g_.gemm(pre + "kv_a", t, kv_a_width, h, x, w_kva);
      // The norm covers the latent columns; the rotary key columns bypass it and kv_b.
      const auto kv_latent = g_.rowwise(pre + "kv_a_norm", OpKind::rmsnorm, t, c_.kv_lora_rank, kv_a);
      const std::uint64_t kv_b_width = l_.heads * (c_.qk_nope_head_dim + c_.v_head_dim);
      const auto w_kvb = g_.weight(pre + "w_kv_b", {c_.kv_lora_rank, kv_b_width});
      const auto kv_b = g_.gemm(pre + "kv_b", t, kv_b_width, c_.kv_lora_rank, kv_latent, w_kvb);
      qkv = g_.tensor(pre + "rope.out", {t, qkv_width});
      auto& rope = g_.op(pre + "rope", OpKind::elementwise, {q, kv_b, kv_a}, {qkv});
      // Rotary embedding x cos + rotate(x) sin on the rotary parts of Q and of the shared key: 3 FLOPs each.
      rope.op.shape.elements = checked_mul(t, (l_.heads + 1) * c_.qk_rope_head_dim);
      rope.op.shape.flops_per_element = 3;
    } else {
      const auto w_qkv = g_.weight(pre + "w_qkv", {h, qkv_width});
      qkv = g_.gemm(pre + "qkv", t, qkv_width, h, x, w_qkv);
      if (c_.biases || c_.qkv_bias) qkv = g_.eltwise(pre + "qkv.bias", t * qkv_width, 1, {qkv}, {t, qkv_width});
      if (c_.rope) {
        qkv = g_.eltwise(pre + "rope", checked_mul(t, (l_.heads + l_.kv_heads) * d), 3, {qkv}, {t, qkv_width});
      }
    }
    std::vector<std::string> inputs = {qkv};
    if (a_.phase == ModelPhase::decode) {
      const auto k_cache = g_.tensor(pre + "k_cache", {l_.sequences, l_.kv_heads, l_.seq_kv, d});
      const auto v_cache = g_.tensor(pre + "v_cache", {l_.sequences, l_.kv_heads, l_.seq_kv, d});
      g_.mark_input(k_cache);
      g_.mark_input(v_cache);
      inputs.push_back(k_cache);
      inputs.push_back(v_cache);
    }
    const std::uint64_t v_width = c_.mla() ? c_.v_head_dim : d;
    const auto out = g_.tensor(pre + "attn.out", {t, l_.heads * d});
    auto& attention = g_.op(pre + "attn", OpKind::attention, inputs, {out});
    auto& s = attention.op.shape;
    s.batch = l_.sequences;
    s.heads = l_.heads;
    s.kv_heads = l_.kv_heads;
    s.seq_q = l_.seq_q;
    s.seq_kv = l_.seq_kv;
    s.head_dim = d;
    s.causal = true;
    s.flash = true;
    const auto w_o = g_.weight(pre + "w_o", {l_.heads * v_width, h});
    std::string attn_in = out;
    if (v_width != d)
      attn_in = g_.eltwise(pre + "attn.v_slice", t * l_.heads * v_width, 0, {out}, {t, l_.heads * v_width});
    auto proj = g_.gemm(pre + "o", t, h, l_.heads * v_width, attn_in, w_o);
    if (c_.biases) proj = g_.eltwise(pre + "o.bias", t * h, 1, {proj}, {t, h});
    return proj;
  }

  // Router, top-k, dispatch, the experts of the most loaded rank as one GEMM chain each (a grouped GEMM's members,
  // independent of one another), combine, and the shared experts beside them.
  std::string moe(const std::string& pre, const std::string& x) {
    const std::uint64_t t = l_.tokens, h = c_.hidden, k = c_.experts_per_token, e_count = c_.experts;
    const auto w_router = g_.weight(pre + "router.w", {h, e_count});
    const auto logits = g_.gemm(pre + "router", t, e_count, h, x, w_router);
    const auto probs = g_.rowwise(pre + "router.softmax", OpKind::softmax, t, e_count, logits);
    // Top-k selection: k passes of compare-and-keep over each row of scores.
    const auto topk_out = g_.tensor(pre + "router.topk.out", {t, k});
    auto& topk = g_.op(pre + "router.topk", OpKind::reduction, {probs}, {topk_out});
    topk.op.shape.rows = t;
    topk.op.shape.cols = e_count;
    topk.op.shape.flops_per_element = k;

    // Every rank of the expert-parallel group routes as many tokens: the group's assignments.
    const ExpertLoad load = route_tokens(checked_mul(checked_mul(t, a_.ep), k), e_count, a_.routing);
    const std::uint64_t rank = most_loaded_rank(load, a_.ep);
    const std::uint64_t first = rank * e_count / a_.ep, last = (rank + 1) * e_count / a_.ep;
    expert_rank_ = rank;
    const std::uint64_t assignments = checked_mul(checked_mul(t, a_.ep), k);
    expert_share_ = static_cast<double>(rank_tokens(load, a_.ep, rank)) / static_cast<double>(assignments);
    dropped_ = load.dropped;
    std::vector<std::string> expert_inputs;
    for (std::uint64_t e = first; e < last; ++e) {
      if (load.tokens[e] == 0) continue;
      expert_inputs.push_back(g_.tensor(pre + "expert" + std::to_string(e) + ".in", {load.tokens[e], h}));
    }
    const Bytes routed_bytes = g_.bytes_of(checked_mul(checked_mul(t, k), h));
    // The dispatch reads the top-k choices as indices (which expert each row goes to): its backward sends the
    // rows' gradients back, and the gates' gradient comes from the weighted sum alone.
    if (a_.ep > 1) {
      g_.collective(pre + "dispatch", OpKind::alltoall, {x, topk_out}, expert_inputs, routed_bytes, a_.ep,
                    a_.tp * a_.pp);
      g_.mark_indices(pre + "dispatch", topk_out);
    } else {
      // The permutation of token rows into each expert's contiguous block.
      auto& permute = g_.op(pre + "permute", OpKind::elementwise, {x, topk_out}, expert_inputs);
      permute.op.shape.elements = checked_mul(checked_mul(t, k), h);
      permute.op.shape.flops_per_element = 0;
      g_.mark_indices(pre + "permute", topk_out);
    }
    std::vector<std::string> expert_outputs;
    std::size_t index = 0;
    for (std::uint64_t e = first; e < last; ++e) {
      if (load.tokens[e] == 0) continue;
      expert_outputs.push_back(
          mlp(pre + "expert" + std::to_string(e) + ".", load.tokens[e], l_.moe_ffn, expert_inputs[index++]));
    }
    const auto routed = g_.tensor(pre + "combine.in", {checked_mul(t, k), h});
    if (a_.ep > 1) {
      g_.collective(pre + "combine", OpKind::alltoall, expert_outputs, {routed}, routed_bytes, a_.ep, a_.tp * a_.pp);
    } else {
      auto& unpermute = g_.op(pre + "unpermute", OpKind::elementwise, expert_outputs, {routed});
      unpermute.op.shape.elements = checked_mul(checked_mul(t, k), h);
      unpermute.op.shape.flops_per_element = 0;
    }
    // The gate-weighted sum of each token's k expert outputs: a multiply and an add per element.
    auto combined = g_.eltwise(pre + "weighted_sum", checked_mul(checked_mul(t, k), h), 2, {routed, topk_out}, {t, h});
    if (c_.shared_experts > 0) {
      const auto shared = mlp(pre + "shared.", t, l_.shared_ffn, x);
      combined = g_.eltwise(pre + "shared.add", t * h, 1, {combined, shared}, {t, h});
    }
    return combined;
  }

  // ZeRO-3: the all-gather of a layer's parameters, one layer ahead of its use (forward), or of its backward.
  // Forward: in the first micro-batch only (the gathered weights are then the weights every micro-batch reads), after
  // the previous layer's first op. Returns the op's name ("" without ZeRO-3).
  std::string zero3_gather(const std::string& mb, std::uint64_t layer, bool backward,
                           const std::vector<std::string>& weights, const std::vector<std::string>& after,
                           std::map<std::string, std::string>* sources) {
    if (a_.zero < 3 || a_.phase != ModelPhase::train) return "";
    if (!backward && !mb.empty() && mb != "mb0.") return "";
    const std::string name =
        mb + "l" + std::to_string(l_.first_layer + layer) + (backward ? ".bwd" : "") + ".zero3.allgather";
    std::uint64_t dense = 0, experts = 0;
    std::vector<std::string> outputs;
    for (const auto& w : weights) {
      (w.find(".expert") != std::string::npos ? experts : dense) += product(g_.shape(w));
      if (backward) {
        outputs.push_back(g_.tensor(mb + w + ".bwd", g_.shape(w)));
        (*sources)[w] = outputs.back();
      } else {
        outputs.push_back(w);
      }
    }
    // One all-gather of the layer's flat parameter shard (FSDP's flat parameter); expert parameters gather over
    // their own dp / ep ranks, modelled within the same op when both exist by the larger group's message.
    const std::uint64_t group = dense > 0 ? a_.dp : a_.dp / a_.ep;
    const std::uint64_t stride = dense > 0 ? a_.tp * a_.pp : a_.tp * a_.pp * a_.ep;
    const std::uint64_t total = dense + experts;
    if (group <= 1) return "";
    const auto shard = g_.tensor(name + ".shard", {(total + group - 1) / group});
    g_.mark_input(shard);
    g_.then(after);
    g_.collective(name, OpKind::allgather, {shard}, outputs, g_.bytes_of(total), group, stride);
    return name;
  }

  void micro_batch_backward(const std::string& mb, bool sync) {
    const bool full = a_.recompute == Recompute::full;
    const std::string suffix = mb.empty() ? "" : "@" + mb.substr(0, mb.size() - 1);
    if (a_.pp > 1) {
      const std::string pre = mb + "bwd.";
      const auto buf = g_.tensor(pre + "recv.buf", {l_.seq_tokens, c_.hidden});
      g_.mark_input(buf);
      const auto grad = g_.tensor(pre + "grad", {l_.seq_tokens, c_.hidden});
      auto& recv = g_.op(pre + "recv", OpKind::sendrecv, {buf}, {grad});
      recv.op.shape.message_bytes = g_.bytes_of(l_.seq_tokens * c_.hidden);
      recv.op.shape.group = a_.pp;
      recv.op.shape.group_stride = a_.tp;
      recv.op.shape.peer = 1;
      recv.op.shape.receive = true;
      recv.after = previous_;
      g_.seed_grad(stage_outputs_.at(stage_index(mb)), grad);
    }
    std::string head_end;  // the head's last backward op (the optimizer steps after the pass, defer_optimizer)
    if (a_.pp == 1) {
      g_.then(previous_);
      const auto grads = g_.backward(tail_records_[mb], suffix, {});
      head_end = g_.last_op();
      if (sync) sync_layer(mb + "head", grads);
    }
    auto& records = layer_records_[mb];
    // The pass's last backward op so far: what follows in the pass waits for it, never for an optimizer op.
    std::string backward_end = a_.pp == 1 ? head_end : g_.last_op();
    std::vector<std::string> after = {backward_end};
    for (std::size_t i = records.size(); i-- > 0;) {
      std::map<std::string, std::string> sources;
      const auto gather = zero3_gather(mb, i, true, layer_weight_names_[mb][i], after, &sources);
      const std::size_t first = g_.op_count();
      if (full) {
        g_.then({gather.empty() ? backward_end : gather});
        g_.recompute(records[i], suffix);
        g_.then({g_.last_op()});
      }
      const auto grads = g_.backward(records[i], suffix, sources);
      if (g_.op_count() > first) {
        after = {g_.op_name(first)};
        backward_end = g_.last_op();
      }
      if (sync) sync_layer(mb + "l" + std::to_string(l_.first_layer + i), grads);
    }
    if (a_.pp > 1) {
      const std::string pre = mb + "bwd.";
      const auto& input = stage_inputs_.at(stage_index(mb));
      const auto grad = g_.grad_of(input);
      if (grad) {
        const auto sent = g_.tensor(pre + "sent", {l_.seq_tokens, c_.hidden});
        auto& send = g_.op(pre + "send", OpKind::sendrecv, {*grad}, {sent});
        send.op.shape.message_bytes = g_.bytes_of(l_.seq_tokens * c_.hidden);
        send.op.shape.group = a_.pp;
        send.op.shape.group_stride = a_.tp;
        send.op.shape.peer = -1;
      }
      previous_ = {g_.last_op()};
      return;
    }
    const auto grads = g_.backward(head_records_[mb], suffix, {});
    previous_ = {g_.last_op()};
    if (sync) sync_layer(mb + "embed", grads);
  }

  std::size_t stage_index(const std::string& mb) const { return static_cast<std::size_t>(std::stoull(mb.substr(2))); }

  // Gradient synchronisation of one layer's weight gradients over the data-parallel ranks (expert gradients over
  // dp / ep), Adam on this rank's shard, and with ZeRO-1 and -2 the all-gather of the updated shard.
  void sync_layer(const std::string& name, const std::vector<std::string>& grads) {
    std::vector<std::string> dense, experts;
    for (const auto& grad : grads) (grad.find(".expert") != std::string::npos ? experts : dense).push_back(grad);
    sync_group(name, dense, a_.dp, a_.tp * a_.pp);
    sync_group(name + ".experts", experts, a_.dp / a_.ep, a_.tp * a_.pp * a_.ep);
  }

  void sync_group(const std::string& name, const std::vector<std::string>& grads, std::uint64_t group,
                  std::uint64_t stride) {
    if (grads.empty()) return;
    std::uint64_t params = 0;
    for (const auto& grad : grads) params = checked_add(params, product(g_.shape(grad)));
    const bool shard = a_.zero >= 1 && group > 1;
    const std::uint64_t local = shard ? (params + group - 1) / group : params;
    std::vector<std::string> synced = grads;
    if (group > 1) {
      if (shard) {
        synced = {g_.tensor(name + ".grads.shard", {local})};
        g_.collective(name + ".grads.reducescatter", OpKind::reducescatter, grads, synced, g_.bytes_of(params), group,
                      stride);
      } else {
        synced.clear();
        for (const auto& grad : grads) synced.push_back(g_.tensor(grad + ".sum", g_.shape(grad)));
        g_.collective(name + ".grads.allreduce", OpKind::allreduce, grads, synced, g_.bytes_of(params), group, stride);
      }
    }
    // Adam with fp32 master weights and moments: read master, m, v and the gradient; write master, m, v and the
    // compute-type copy of the weights.
    std::vector<std::string> inputs;
    for (const char* state : {".master", ".adam_m", ".adam_v"}) {
      inputs.push_back(g_.tensor(name + state, {local}, DataType::fp32));
      g_.mark_input(inputs.back());
    }
    inputs.insert(inputs.end(), synced.begin(), synced.end());
    std::vector<std::string> outputs;
    for (const char* state : {".master.next", ".adam_m.next", ".adam_v.next"}) {
      outputs.push_back(g_.tensor(name + state, {local}, DataType::fp32));
    }
    outputs.push_back(g_.tensor(name + ".params.next", {local}));
    auto& adam = g_.op(name + ".adam", OpKind::elementwise, inputs, outputs);
    adam.op.shape.elements = local;
    adam.op.shape.flops_per_element = 12;
    adam.op.shape.reciprocal_per_element = 1;
    adam.optimizer_step = true;
    if (shard && a_.zero < 3) {
      const auto gathered = g_.tensor(name + ".params.gathered", {params});
      g_.collective(name + ".params.allgather", OpKind::allgather, {outputs.back()}, {gathered}, g_.bytes_of(params),
                    group, stride);
      g_.mark_last_optimizer_step();
    }
  }

  const ModelConfig& c_;
  const ModelWorkloadArgs& a_;
  GraphBuilder g_;
  Layout l_;
  std::vector<std::string> previous_;
  std::vector<std::string> stage_inputs_, stage_outputs_;
  std::map<std::string, std::vector<std::vector<std::size_t>>> layer_records_;
  std::map<std::string, std::vector<std::vector<std::string>>> layer_weight_names_;
  std::map<std::string, std::vector<std::size_t>> tail_records_;
  std::map<std::string, std::vector<std::size_t>> head_records_;
  std::uint64_t expert_rank_ = 0;
  double expert_share_ = 0;
  std::uint64_t dropped_ = 0;
  std::vector<Pass> passes_;
};

}  // namespace

ModelWorkload build_model_workload(const ModelConfig& config, const ModelWorkloadArgs& args, Bytes alignment_bytes,
                                   const WorkLimits& limits) {
  ModelGraph graph(config, args);
  ModelWorkload result = graph.build();
  check_work_limit(SourcePos{config.file}, "the model's graph", graph.ops_.size(), limits.ops, "ops");
  const std::string name = config.name + "." + std::string(to_string(args.phase));
  for (auto& drafts : graph.stage_drafts()) {
    result.stage_workloads.push_back(
        assemble_workload(name, config.file, args.devices(), std::move(drafts), graph.tensors_, alignment_bytes));
  }
  result.workload =
      assemble_workload(name, config.file, args.devices(), std::move(graph.ops_), graph.tensors_, alignment_bytes);
  result.memory = model_memory_footprint(config, args);
  if (args.pp > 1 &&
      (args.pipeline_schedule != PipelineScheduleKind::interleaved || args.micro_batches % args.pp == 0)) {
    result.pipeline =
        simulate_pipeline(args.pipeline_schedule, args.pp, args.micro_batches, args.virtual_stages, 1.0, 2.0);
  }
  return result;
}

}  // namespace roofsim
