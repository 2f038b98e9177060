#include "sim/graph/templates.h"

#include <utility>

#include "sim/config/work_limits.h"
#include "sim/graph/counting.h"

namespace roofsim {

// GELU, tanh form 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) (Hendrycks and Gimpel 2016): x^3 2, scale 1,
// add 1, scale 1, tanh 1, add 1, two multiplies 2 = 9 FLOPs. SiLU x / (1 + exp(-x)): exp 1, add 1, divide 1 = 3;
// the SwiGLU gate multiplies by the up projection, one more (Shazeer 2020, "GLU variants improve transformer").
std::uint64_t activation_flops_per_element(bool silu, bool gated) {
  const std::uint64_t base = silu ? 3 : 9;
  return gated ? base + 1 : base;
}

void set_activation_special_ops(OpShape& shape, bool silu) {
  shape.exp2_per_element = 1;
  shape.reciprocal_per_element = silu ? 1 : 0;
}

namespace {

class Builder {
 public:
  explicit Builder(const TemplateArgs& args) : args_(args) {}

  [[noreturn]] void fail(const std::string& message) const {
    throw InputError(args_.pos, "template '" + args_.name + "': " + message);
  }

  OpDraft& add_op(const std::string& name, OpKind kind, std::vector<std::string> inputs,
                  std::vector<std::string> outputs) {
    OpDraft draft;
    draft.op.name = name;
    draft.op.kind = kind;
    draft.op.dtype = args_.dtype;
    draft.op.engine = args_.engine;
    draft.op.decomposition = args_.decomposition;
    draft.op.schedule = args_.schedule;
    draft.op.pos = args_.pos;
    draft.op.shape.flops_per_element = default_flops_per_element(kind);
    draft.inputs = std::move(inputs);
    draft.outputs = std::move(outputs);
    if (expansion_.ops.empty()) draft.after = args_.after;
    expansion_.ops.push_back(std::move(draft));
    return expansion_.ops.back();
  }

  void declare(const std::string& name, std::vector<std::uint64_t> shape) {
    TensorDraft tensor;
    tensor.name = name;
    tensor.shape = std::move(shape);
    tensor.dtype = args_.dtype;
    tensor.pos = args_.pos;
    expansion_.tensors.push_back(std::move(tensor));
  }

  // A weight: resident on chip when the template asks for it (SRAM-centric designs keep weights in place).
  void weight(const std::string& name, std::vector<std::uint64_t> shape) {
    declare(name, std::move(shape));
    expansion_.tensors.back().resident = args_.resident_weights;
  }

  OpDraft& gemm(const std::string& name, std::uint64_t m, std::uint64_t n, std::uint64_t k, const std::string& a,
                const std::string& b, const std::string& c) {
    auto& draft = add_op(name, OpKind::gemm, {a, b}, {c});
    draft.op.shape.m = m;
    draft.op.shape.n = n;
    draft.op.shape.k = k;
    return draft;
  }

  OpDraft& elementwise(const std::string& name, std::uint64_t elements, std::uint64_t flops_per_element,
                       std::vector<std::string> inputs, const std::string& out) {
    auto& draft = add_op(name, OpKind::elementwise, std::move(inputs), {out});
    draft.op.shape.elements = elements;
    draft.op.shape.flops_per_element = flops_per_element;
    return draft;
  }

  OpDraft& rowwise(const std::string& name, OpKind kind, std::uint64_t rows, std::uint64_t cols, const std::string& in,
                   const std::string& out) {
    auto& draft = add_op(name, kind, {in}, {out});
    draft.op.shape.rows = rows;
    draft.op.shape.cols = cols;
    return draft;
  }

  // The MLP of a block: up (and gate) projection, activation, down projection. Returns the output tensor.
  std::string mlp(const std::string& prefix, std::uint64_t tokens, const std::string& in, const std::string& out) {
    const std::uint64_t h = args_.hidden;
    const std::uint64_t f = args_.ffn;
    const std::uint64_t up_width = args_.gated ? 2 * f : f;
    weight(prefix + "w_up", {h, up_width});
    weight(prefix + "w_down", {f, h});
    declare(prefix + "up.out", {tokens, up_width});
    declare(prefix + "act.out", {tokens, f});
    gemm(prefix + "up", tokens, up_width, h, in, prefix + "w_up", prefix + "up.out");
    auto& act =
        elementwise(prefix + "act", checked_mul(tokens, f), activation_flops_per_element(args_.silu, args_.gated),
                    {prefix + "up.out"}, prefix + "act.out");
    set_activation_special_ops(act.op.shape, args_.silu);
    gemm(prefix + "down", tokens, h, f, prefix + "act.out", prefix + "w_down", out);
    return out;
  }

  std::string input_name() {
    if (!args_.input.empty()) return args_.input;
    return args_.name + ".in";
  }
  std::string output_name() const { return args_.output.empty() ? args_.name + ".out" : args_.output; }
  std::string layer_prefix(std::uint64_t layer) const {
    return args_.layers == 1 ? args_.name + "." : args_.name + ".l" + std::to_string(layer) + ".";
  }

  Expansion take() { return std::move(expansion_); }

  const TemplateArgs& args_;
  Expansion expansion_;
};

void require(const Builder& b, bool condition, const std::string& what) {
  if (!condition) b.fail(what);
}

// A pre-norm decoder block (GPT-2/3 and Llama layout): norm, fused QKV projection, attention, output projection,
// residual add, norm, MLP, residual add. With tensor parallelism t (Shoeybi et al., "Megatron-LM", 2019, section 3):
// the QKV and up projections split by columns, attention by heads, the output and down projections by rows, so each
// rank holds 1/t of every weight and its partial outputs are summed by an AllReduce of tokens x h activations after
// the output projection and after the MLP; norms and residuals run replicated.
Expansion transformer_block(const TemplateArgs& original) {
  const std::uint64_t tp = original.tensor_parallel;
  TemplateArgs args = original;
  {
    const Builder check(original);
    const std::uint64_t kv = original.kv_heads == 0 ? original.heads : original.kv_heads;
    require(check, tp >= 1 && original.heads % tp == 0 && kv % tp == 0 && original.ffn % tp == 0,
            "tensor_parallel must divide heads, kv_heads and ffn");
    args.heads = original.heads / tp;
    args.kv_heads = kv / tp;
    args.ffn = original.ffn / tp;
    args.hidden = original.hidden;
  }
  Builder b(args);
  require(b, args.heads > 0 && args.hidden % original.heads == 0, "hidden must be a multiple of heads");
  const std::uint64_t kv_heads = args.kv_heads == 0 ? args.heads : args.kv_heads;
  require(b, args.heads % kv_heads == 0, "heads must be a multiple of kv_heads");
  const std::uint64_t h = args.hidden;
  const std::uint64_t d = h / original.heads;
  const std::uint64_t h_local = args.heads * d;  // this rank's share of the attention width
  const std::uint64_t seq_q = args.decode ? 1 : args.seq;
  const std::uint64_t seq_kv = args.decode ? (args.context == 0 ? args.seq : args.context) : args.seq;
  require(b, seq_q > 0 && seq_kv > 0 && args.batch > 0, "batch, seq and context must be greater than 0");
  const std::uint64_t tokens = checked_mul(args.batch, seq_q);
  const std::uint64_t qkv_width = h_local + 2 * kv_heads * d;
  // Sums the rank's partial `partial` into `sum` over the tensor-parallel group.
  const auto allreduce = [&](const std::string& name, const std::string& partial, const std::string& sum) {
    b.declare(sum, {tokens, h});
    auto& reduce = b.add_op(name, OpKind::allreduce, {partial}, {sum});
    reduce.op.shape.message_bytes = checked_mul(checked_mul(tokens, h), element_bytes(args.dtype));
    reduce.op.shape.group = tp;
  };

  std::string x = b.input_name();
  if (args.input.empty()) b.declare(x, {tokens, h});
  for (std::uint64_t layer = 0; layer < args.layers; ++layer) {
    const auto p = b.layer_prefix(layer);
    const bool last = layer + 1 == args.layers;
    const std::string y = last ? b.output_name() : p + "out";
    b.declare(p + "norm1.out", {tokens, h});
    b.weight(p + "w_qkv", {h, qkv_width});
    b.declare(p + "qkv.out", {tokens, qkv_width});
    b.declare(p + "attn.out", {tokens, h_local});
    b.weight(p + "w_o", {h_local, h});
    b.declare(tp > 1 ? p + "proj.partial" : p + "proj.out", {tokens, h});
    b.declare(p + "h1", {tokens, h});
    b.declare(p + "norm2.out", {tokens, h});
    b.declare(tp > 1 ? p + "mlp.partial" : p + "mlp.out", {tokens, h});
    if (!last || args.output.empty()) b.declare(y, {tokens, h});

    b.rowwise(p + "norm1", args.norm, tokens, h, x, p + "norm1.out");
    b.gemm(p + "qkv", tokens, qkv_width, h, p + "norm1.out", p + "w_qkv", p + "qkv.out");
    std::vector<std::string> attention_inputs = {p + "qkv.out"};
    if (args.decode) {
      // The KV cache of the earlier positions; the new token's K and V come with qkv.out (their append is a
      // write of 2 kv_heads d elements per sequence, not modelled as an op).
      b.declare(p + "k_cache", {args.batch, kv_heads, seq_kv, d});
      b.declare(p + "v_cache", {args.batch, kv_heads, seq_kv, d});
      attention_inputs.push_back(p + "k_cache");
      attention_inputs.push_back(p + "v_cache");
    }
    auto& attention = b.add_op(p + "attn", OpKind::attention, attention_inputs, {p + "attn.out"});
    attention.op.shape.batch = args.batch;
    attention.op.shape.heads = args.heads;
    attention.op.shape.kv_heads = kv_heads;
    attention.op.shape.seq_q = seq_q;
    attention.op.shape.seq_kv = seq_kv;
    attention.op.shape.head_dim = d;
    attention.op.shape.causal = args.causal;
    attention.op.shape.flash = args.flash;
    const std::string proj = tp > 1 ? p + "proj.partial" : p + "proj.out";
    const std::string mlp = tp > 1 ? p + "mlp.partial" : p + "mlp.out";
    b.gemm(p + "proj", tokens, h, h_local, p + "attn.out", p + "w_o", proj);
    if (tp > 1) allreduce(p + "proj.allreduce", proj, p + "proj.sum");
    b.elementwise(p + "residual1", checked_mul(tokens, h), 1, {x, tp > 1 ? p + "proj.sum" : proj}, p + "h1");
    b.rowwise(p + "norm2", args.norm, tokens, h, p + "h1", p + "norm2.out");
    b.mlp(p + "mlp.", tokens, p + "norm2.out", mlp);
    if (tp > 1) allreduce(p + "mlp.allreduce", mlp, p + "mlp.sum");
    b.elementwise(p + "residual2", checked_mul(tokens, h), 1, {p + "h1", tp > 1 ? p + "mlp.sum" : mlp}, y);
    x = y;
  }
  return b.take();
}

Expansion mlp_stack(const TemplateArgs& args) {
  Builder b(args);
  const std::uint64_t tokens = checked_mul(args.batch, args.seq);
  require(b, tokens > 0, "batch and seq must be greater than 0");
  std::string x = b.input_name();
  if (args.input.empty()) b.declare(x, {tokens, args.hidden});
  for (std::uint64_t layer = 0; layer < args.layers; ++layer) {
    const auto p = b.layer_prefix(layer);
    const bool last = layer + 1 == args.layers;
    const std::string y = last ? b.output_name() : p + "out";
    if (!last || args.output.empty()) b.declare(y, {tokens, args.hidden});
    x = b.mlp(p, tokens, x, y);
  }
  return b.take();
}

// One step of data-parallel training of an MLP stack: forward, a loss gradient, backward (input and weight
// gradients of every GEMM, activation gradient), gradient AllReduces in buckets, and an SGD update per weight.
// Buckets as PyTorch DDP forms them (Li et al., "PyTorch Distributed", VLDB 2020, section 3.2.3; bucket_cap_mb,
// default 25 MiB): weight gradients in the order backward produces them fill a bucket until it holds at least
// `bucket_bytes`; a bucket's AllReduce starts when its last gradient exists, so communication overlaps the rest of
// the backward pass. (DDP's smaller first bucket, first_bucket_bytes_cap, is not modelled.)
Expansion dp_training_step(const TemplateArgs& args) {
  Builder b(args);
  const std::uint64_t tokens = checked_mul(args.batch, args.seq);
  require(b, tokens > 0 && args.layers > 0, "batch, seq and layers must be greater than 0");
  require(b, args.bucket_bytes > 0, "bucket_size must be greater than 0");
  const std::uint64_t h = args.hidden;
  const std::uint64_t f = args.ffn;
  const std::uint64_t act_flops = activation_flops_per_element(args.silu, false);
  const Bytes element = element_bytes(args.dtype);

  std::vector<std::string> acts;  // input of each layer, then the model output
  acts.push_back(b.input_name());
  if (args.input.empty()) b.declare(acts.back(), {tokens, h});
  for (std::uint64_t layer = 0; layer < args.layers; ++layer) {
    const auto p = b.layer_prefix(layer) + "fwd.";
    const auto w = b.layer_prefix(layer);
    b.weight(w + "w_up", {h, f});
    b.weight(w + "w_down", {f, h});
    b.declare(p + "up.out", {tokens, f});
    b.declare(p + "act.out", {tokens, f});
    b.declare(p + "out", {tokens, h});
    b.gemm(p + "up", tokens, f, h, acts.back(), w + "w_up", p + "up.out");
    set_activation_special_ops(
        b.elementwise(p + "act", checked_mul(tokens, f), act_flops, {p + "up.out"}, p + "act.out").op.shape, args.silu);
    b.gemm(p + "down", tokens, h, f, p + "act.out", w + "w_down", p + "out");
    acts.push_back(p + "out");
  }
  // Gradient of the loss with respect to the output (mean-squared error against a target: subtract, scale).
  const std::string target = args.name + ".target";
  b.declare(target, {tokens, h});
  std::string grad = args.name + ".loss.grad";
  b.declare(grad, {tokens, h});
  b.elementwise(args.name + ".loss", checked_mul(tokens, h), 2, {acts.back(), target}, grad);

  const Bytes weight_bytes = checked_mul(checked_mul(h, f), element);
  struct Gradient {
    std::string weight;    // the weight tensor, w_up: h x f, w_down: f x h
    std::string gradient;  // its gradient on this rank
    bool down = false;
  };
  std::vector<Gradient> bucket;
  std::uint64_t buckets = 0;
  const auto reduce_bucket = [&] {
    const std::string name = args.name + ".bucket" + std::to_string(buckets++);
    std::vector<std::string> inputs, outputs;
    for (const auto& g : bucket) {
      inputs.push_back(g.gradient);
      outputs.push_back(g.gradient + ".sum");
      b.declare(outputs.back(), g.down ? std::vector<std::uint64_t>{f, h} : std::vector<std::uint64_t>{h, f});
    }
    auto& reduce = b.add_op(name + ".allreduce", OpKind::allreduce, inputs, outputs);
    reduce.op.shape.message_bytes = checked_mul(weight_bytes, bucket.size());
    reduce.op.shape.group = args.devices;
    for (const auto& g : bucket) {
      // SGD: w - lr * g, a multiply and a subtract per element.
      const std::string updated = g.weight + ".next";
      b.declare(updated, g.down ? std::vector<std::uint64_t>{f, h} : std::vector<std::uint64_t>{h, f});
      b.elementwise(g.gradient + ".sgd", checked_mul(h, f), 2, {g.weight, g.gradient + ".sum"}, updated);
    }
    bucket.clear();
  };
  for (std::uint64_t step = 0; step < args.layers; ++step) {
    const std::uint64_t layer = args.layers - 1 - step;
    const auto w = b.layer_prefix(layer);
    const auto fwd = w + "fwd.";
    const auto p = w + "bwd.";
    b.declare(p + "d_act", {tokens, f});
    b.declare(p + "d_up", {tokens, f});
    b.declare(p + "dw_down", {f, h});
    b.declare(p + "dw_up", {h, f});
    // down: out = act.out * w_down  ->  d_act = grad * w_down^T, dw_down = act.out^T * grad
    b.gemm(p + "down.dgrad", tokens, f, h, grad, w + "w_down", p + "d_act");
    b.gemm(p + "down.wgrad", f, h, tokens, fwd + "act.out", grad, p + "dw_down");
    bucket.push_back({w + "w_down", p + "dw_down", true});
    if (checked_mul(weight_bytes, bucket.size()) >= args.bucket_bytes) reduce_bucket();
    // Activation gradient: f'(up.out) times the incoming gradient, one more multiply than the forward function.
    set_activation_special_ops(
        b.elementwise(p + "act", checked_mul(tokens, f), act_flops + 1, {p + "d_act", fwd + "up.out"}, p + "d_up")
            .op.shape,
        args.silu);
    if (layer > 0) {
      b.declare(p + "d_in", {tokens, h});
      b.gemm(p + "up.dgrad", tokens, h, f, p + "d_up", w + "w_up", p + "d_in");
    }
    b.gemm(p + "up.wgrad", h, f, tokens, acts[layer], p + "d_up", p + "dw_up");
    bucket.push_back({w + "w_up", p + "dw_up", false});
    if (checked_mul(weight_bytes, bucket.size()) >= args.bucket_bytes) reduce_bucket();
    if (layer > 0) grad = p + "d_in";
  }
  if (!bucket.empty()) reduce_bucket();
  return b.take();
}

// One pipeline stage of a GPipe step (Huang et al., "GPipe", NeurIPS 2019): the model is split into as many stages
// as ranks of the group (`devices`), each stage `layers` MLP layers; every rank runs this graph and the cluster run
// gives each its position. Per micro-batch: receive the activations from the previous stage (the first stage's
// receive is empty), run the stage's layers after the previous micro-batch's (one device runs them in order), send
// the result to the next stage (the last stage's send is empty). A training step then runs every micro-batch's
// backward, last micro-batch first: receive the output gradient from the next stage (empty on the last stage, where
// the loss is), the layers' input and weight gradients in reverse, and send the input gradient to the previous
// stage. With m micro-batches and S stages a stage is busy m of the m + S - 1 micro-batch slots of each pass: the
// bubble is (S - 1) / (m + S - 1).
Expansion pipeline_stage(const TemplateArgs& args) {
  Builder b(args);
  const std::uint64_t tokens = checked_mul(args.batch, args.seq);
  require(b, tokens > 0, "batch and seq must be greater than 0");
  const std::uint64_t h = args.hidden;
  const std::uint64_t f = args.ffn;
  const std::uint64_t up_width = args.gated ? 2 * f : f;
  const Bytes activation_bytes = checked_mul(checked_mul(tokens, h), element_bytes(args.dtype));
  std::vector<std::string> previous;  // the last compute ops of the previous micro-batch
  const auto p2p = [&](const std::string& name, const std::string& in, const std::string& out, std::int32_t peer,
                       bool receive) {
    auto& op = b.add_op(name, OpKind::sendrecv, {in}, {out});
    op.op.shape.message_bytes = activation_bytes;
    op.op.shape.group = args.devices;
    op.op.shape.peer = peer;
    op.op.shape.receive = receive;
    // A receive is posted when the stage is ready for it (its previous compute done), so that its wait for the
    // message is the stage's time waiting on communication.
    if (receive) op.after.insert(op.after.end(), previous.begin(), previous.end());
  };
  const auto layer_prefix = [&](std::uint64_t j, std::uint64_t layer) {
    return args.name + ".mb" + std::to_string(j) + ".l" + std::to_string(layer) + ".";
  };
  const auto chain = [&](std::size_t first_op) {
    auto& after = b.expansion_.ops[first_op].after;
    after.insert(after.end(), previous.begin(), previous.end());
  };
  for (std::uint64_t j = 0; j < args.micro_batches; ++j) {
    const std::string p = args.name + ".mb" + std::to_string(j) + ".";
    b.declare(p + "recv.buf", {tokens, h});
    b.declare(p + "in", {tokens, h});
    p2p(p + "recv", p + "recv.buf", p + "in", -1, true);
    std::string x = p + "in";
    for (std::uint64_t layer = 0; layer < args.layers; ++layer) {
      const std::string lp = layer_prefix(j, layer);
      b.declare(lp + "out", {tokens, h});
      const std::size_t first = b.expansion_.ops.size();
      x = b.mlp(lp, tokens, x, lp + "out");
      if (layer == 0) chain(first);
      previous = {lp + "down"};
    }
    b.declare(p + "sent", {tokens, h});
    p2p(p + "send", x, p + "sent", 1, false);
  }
  if (!args.training) return b.take();
  const std::uint64_t act_flops = activation_flops_per_element(args.silu, args.gated) + 1;
  for (std::uint64_t jj = args.micro_batches; jj-- > 0;) {
    const std::string p = args.name + ".mb" + std::to_string(jj) + ".bwd.";
    b.declare(p + "recv.buf", {tokens, h});
    b.declare(p + "grad", {tokens, h});
    p2p(p + "recv", p + "recv.buf", p + "grad", 1, true);
    std::string grad = p + "grad";
    for (std::uint64_t layer = args.layers; layer-- > 0;) {
      const std::string lp = layer_prefix(jj, layer);
      const std::string bp = lp + "bwd.";
      const std::string in =
          layer == 0 ? args.name + ".mb" + std::to_string(jj) + ".in" : layer_prefix(jj, layer - 1) + "out";
      b.declare(bp + "d_act", {tokens, f});
      b.declare(bp + "d_up", {tokens, up_width});
      b.declare(bp + "dw_down", {f, h});
      b.declare(bp + "dw_up", {h, up_width});
      b.declare(bp + "d_in", {tokens, h});
      const std::size_t first = b.expansion_.ops.size();
      // down: out = act.out * w_down  ->  d_act = grad * w_down^T, dw_down = act.out^T * grad
      b.gemm(bp + "down.dgrad", tokens, f, h, grad, lp + "w_down", bp + "d_act");
      if (layer + 1 == args.layers) chain(first);
      b.gemm(bp + "down.wgrad", f, h, tokens, lp + "act.out", grad, bp + "dw_down");
      set_activation_special_ops(b.elementwise(bp + "act", checked_mul(tokens, up_width), act_flops,
                                               {bp + "d_act", lp + "up.out"}, bp + "d_up")
                                     .op.shape,
                                 args.silu);
      b.gemm(bp + "up.dgrad", tokens, h, up_width, bp + "d_up", lp + "w_up", bp + "d_in");
      b.gemm(bp + "up.wgrad", h, up_width, tokens, in, bp + "d_up", bp + "dw_up");
      previous = {bp + "up.dgrad", bp + "up.wgrad"};
      grad = bp + "d_in";
    }
    b.declare(p + "sent", {tokens, h});
    p2p(p + "send", grad, p + "sent", -1, false);
  }
  return b.take();
}

}  // namespace

std::uint64_t template_op_count(const TemplateArgs& args) {
  const std::uint64_t layers = args.layers;
  switch (args.kind) {
    case TemplateKind::transformer_block:
      // norm1, qkv, attn, proj, residual1, norm2, the MLP's three, residual2; and two AllReduces with tensor
      // parallelism.
      return saturating_mul(layers, args.tensor_parallel > 1 ? 12 : 10);
    case TemplateKind::mlp: return saturating_mul(layers, 3);
    case TemplateKind::dp_training_step:
      // Forward 3 per layer, the loss, backward 5 per layer but the first layer's input gradient, an SGD update per
      // weight and at least one bucket's AllReduce.
      return saturating_add(saturating_mul(layers, 10), 1);
    case TemplateKind::pipeline_stage: {
      // Per micro-batch a receive, three MLP ops per layer and a send; training adds as many with five per layer.
      const std::uint64_t per_layer = args.training ? 8 : 3;
      const std::uint64_t per_micro_batch = saturating_add(saturating_mul(layers, per_layer), args.training ? 4 : 2);
      return saturating_mul(args.micro_batches, per_micro_batch);
    }
  }
  return 0;
}

Expansion expand_template(const TemplateArgs& args) {
  TemplateArgs resolved = args;
  if (resolved.ffn == 0) resolved.ffn = checked_mul(4, resolved.hidden);
  Builder check(resolved);
  require(check, resolved.hidden > 0, "hidden must be greater than 0");
  require(check, resolved.layers > 0, "layers must be greater than 0");
  switch (resolved.kind) {
    case TemplateKind::transformer_block: return transformer_block(resolved);
    case TemplateKind::mlp: return mlp_stack(resolved);
    case TemplateKind::dp_training_step: return dp_training_step(resolved);
    case TemplateKind::pipeline_stage: return pipeline_stage(resolved);
  }
  return {};
}

}  // namespace roofsim
