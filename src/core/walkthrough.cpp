#include "walkthrough.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "attention.hpp"
#include "bonus.hpp"
#include "kv_cache.hpp"
#include "nn.hpp"
#include "parallel.hpp"
#include "reduce.hpp"
#include "sleef.hpp"
#include "stage_code.hpp"
#include "stages.hpp"
#include "text.hpp"

namespace ca {
namespace {

// The index of a stage in the table. Calls come mostly in table order, so the search starts
// after the last one found (find_stage's scan from the top, a strlen per entry, was 9% of a
// WASM walkthrough).
class Index {
 public:
  std::size_t operator()(std::string_view id) {
    const std::vector<StageInfo>& table = stage_table();
    for (std::size_t k = 0; k < table.size(); ++k) {
      const std::size_t i = (next_ + k) % table.size();
      if (id == table[i].id) {
        next_ = i + 1;
        return i;
      }
    }
    throw std::logic_error("stage missing from the table: " + std::string(id));
  }

 private:
  std::size_t next_ = 0;
};

// What a run computes: the stages asked for (every stage when none is named) and, transitively,
// the stages they read, as the table's operands say (always earlier in the table, so one pass
// from the end finds them all).
class Plan {
 public:
  explicit Plan(const std::vector<std::string>& wanted)
      : keep_(stage_table().size(), wanted.empty()), need_(keep_) {
    const std::vector<StageInfo>& table = stage_table();
    for (const std::string& id : wanted) keep_[index_(id)] = need_[index_(id)] = true;
    for (std::size_t i = table.size(); i-- > 0;) {
      if (!need_[i]) continue;
      // The ids of "queries[i] keys[j] b_key": each word up to its '['.
      for (const char* p = table[i].operands; *p;) {
        const char* end = p;
        while (*end != '\0' && *end != ' ' && *end != '[') ++end;
        need_[index_(std::string_view(p, static_cast<std::size_t>(end - p)))] = true;
        while (*end != '\0' && *end != ' ') ++end;
        p = *end == ' ' ? end + 1 : end;
      }
    }
  }
  bool keeps(std::string_view id) const { return keep_[index_(id)]; }
  bool needs(std::string_view id) const { return need_[index_(id)]; }
  // Whether any stage of the part is needed.
  bool any(Part part) const {
    const std::vector<StageInfo>& table = stage_table();
    for (std::size_t i = 0; i < table.size(); ++i)
      if (need_[i] && table[i].part == part) return true;
    return false;
  }

 private:
  std::vector<unsigned char> keep_, need_;  // by table index
  mutable Index index_;
};

Tensor stack_twice(const Tensor& x);

// Appends the stages a run computes; the references it returns stay valid (capacity is
// reserved up front).
class Builder {
 public:
  Builder(Walkthrough& w, const Config& c, const Plan& plan) : w_(w), code_(c), plan_(plan) {
    w_.stages.reserve(stage_table().size());
  }
  const Tensor& add(const char* id, Tensor t) {
    const StageInfo* info = &stage_table()[index_(id)];
    w_.stages.push_back(Stage{info, code_.expand(info->code), std::move(t)});
    return w_.stages.back().tensor;
  }
  // A stage added in its place now, its tensor given later (moved in once computed).
  Tensor& slot(const char* id) {
    add(id, Tensor());
    return w_.stages.back().tensor;
  }
  // A stage added before.
  const Tensor& get(std::string_view id) const {
    for (auto s = w_.stages.rbegin(); s != w_.stages.rend(); ++s)
      if (s->id() == id) return s->tensor;
    throw std::logic_error("stage not computed: " + std::string(id));
  }
  // torch.stack((inputs, inputs)), added when first read (in its place when kept: sa_part); a
  // shard of one batch element reads the inputs in place instead (mha_part: 6 MB at GPT-2's).
  const Tensor& batch() {
    if (!batch_) batch_ = &add("batch", stack_twice(get("inputs")));
    return *batch_;
  }
  bool has_batch() const { return batch_ != nullptr; }
  bool needs(std::string_view id) const { return plan_.needs(id); }
  bool keeps(std::string_view id) const { return plan_.keeps(id); }
  bool needs_any(std::initializer_list<std::string_view> ids) const {
    return std::any_of(ids.begin(), ids.end(), [this](std::string_view id) { return needs(id); });
  }

 private:
  Walkthrough& w_;
  StageCode code_;
  const Plan& plan_;
  Index index_;
  const Tensor* batch_ = nullptr;
};

}  // namespace

const std::vector<std::string>& all_stage_ids() {
  static const std::vector<std::string> ids = [] {
    std::vector<std::string> v;
    for (const StageInfo& s : stage_table()) v.push_back(s.id);
    return v;
  }();
  return ids;
}

bool is_bias_stage(const std::string& id) {
  const StageInfo* info = find_stage(id);
  return info != nullptr && info->bias;
}

namespace {

// The part of a known stage, from the table.
Part part_of(const std::string& id) { return find_stage(id)->part; }

// A (1, n) view of a vector, for the matrix kernels.
Tensor as_row(const Tensor& v) { return Tensor({1, static_cast<int>(v.numel())}, v.data); }

Tensor row_of(const Tensor& m, int r) {
  return Tensor({m.cols()},
                std::vector<float>(m.data.begin() + static_cast<std::size_t>(r) * m.cols(),
                                   m.data.begin() + static_cast<std::size_t>(r + 1) * m.cols()));
}

// tensor.sum() of a vector, in ATen's order.
float torch_sum(const Tensor& t) {
  return reduce::cascade_sum(t.data.data(), static_cast<int>(t.numel()));
}

// torch.stack((x, x), dim=0): (T, d) -> (2, T, d)
Tensor stack_twice(const Tensor& x) {
  Tensor y({2, x.rows(), x.cols()});
  std::copy(x.data.begin(), x.data.end(), y.data.begin());
  std::copy(x.data.begin(), x.data.end(), y.data.begin() + x.numel());
  return y;
}

// A module's parameters as the stages asked for, in their place, moved in when the Parameters
// go (declared after the module: its passes are done with them, and read the module's own).
// A copy was 9 MB more fresh memory per shard at GPT-2's size in a Worker (web/page/pool.js).
// ids: the stages of the three projections' weights, then of their biases (when they have
// them), then of out_proj's weight and bias (when given).
class Parameters {
 public:
  Parameters(Builder& out, std::initializer_list<const char*> ids, Linear* const (&qkv)[3],
             Linear* out_proj = nullptr) {
    Tensor* params[8] = {};
    for (int k = 0; k < 3; ++k) params[k] = &qkv[k]->weight, params[3 + k] = bias(*qkv[k]);
    if (out_proj) params[6] = &out_proj->weight, params[7] = bias(*out_proj);
    int k = 0;
    for (const char* id : ids) {
      if (params[k] && out.keeps(id)) stage_[k] = &out.slot(id), param_[k] = params[k];
      ++k;
    }
  }
  ~Parameters() {
    for (int k = 0; k < 8; ++k)
      if (stage_[k]) *stage_[k] = std::move(*param_[k]);
  }
  Parameters(const Parameters&) = delete;
  Parameters& operator=(const Parameters&) = delete;

 private:
  static Tensor* bias(Linear& l) { return l.bias ? &*l.bias : nullptr; }
  Tensor* stage_[8] = {};
  Tensor* param_[8] = {};
};

// The parts below compute the stages the plan needs, each after the stages it reads: a stage's
// block runs only when it is needed, and then its operands were computed before it.

// §3.3: attention without trainable weights, the inputs attending to themselves.
void simple_part(Builder& out, const Tensor& inputs, int q) {
  const int T = inputs.rows(), d_in = inputs.cols();
  if (out.needs("simple.attn_scores_q")) {
    const Tensor query = row_of(inputs, q);
    Tensor scores_q({T});  // one torch.dot per token, in order
    for (int i = 0; i < T; ++i) {
      float dot = 0.0f;
      for (int k = 0; k < d_in; ++k) dot += inputs.at(i, k) * query.data[k];
      scores_q.data[i] = dot;
    }
    const Tensor& attn_scores_q = out.add("simple.attn_scores_q", std::move(scores_q));
    if (out.needs("simple.attn_weights_q_tmp")) {
      Tensor tmp = attn_scores_q;
      const float total = torch_sum(attn_scores_q);
      for (float& v : tmp.data) v /= total;
      out.add("simple.attn_weights_q_tmp", std::move(tmp));
    }
    if (out.needs("simple.attn_weights_q_naive")) {
      Tensor naive = attn_scores_q;  // exp / sum(exp), no max subtracted, as the book writes it
      for (float& v : naive.data) v = sleef::expf_u10(v);  // torch.exp: SLEEF's, as softmax's
      const float exp_total = torch_sum(naive);
      for (float& v : naive.data) v /= exp_total;
      out.add("simple.attn_weights_q_naive", std::move(naive));
    }
    if (out.needs("simple.attn_weights_q")) {
      Tensor weights_q({1, T});
      softmax_forward(weights_q.matrix(), as_row(attn_scores_q).matrix(), 1.0f);
      weights_q.shape = {T};
      const Tensor& attn_weights_q = out.add("simple.attn_weights_q", std::move(weights_q));
      if (out.needs("simple.context_vec_q")) {
        Tensor context_q({d_in});  // context_vec_q += attn_weights_q[i] * x_i, token by token
        for (int i = 0; i < T; ++i)
          for (int k = 0; k < d_in; ++k)
            context_q.data[k] += attn_weights_q.data[i] * inputs.at(i, k);
        out.add("simple.context_vec_q", std::move(context_q));
      }
    }
  }
  if (!out.needs("simple.attn_scores")) return;
  Tensor scores({T, T});
  scores_forward(scores.matrix(), inputs.matrix(), inputs.matrix());  // inputs @ inputs.T
  const Tensor& attn_scores = out.add("simple.attn_scores", std::move(scores));
  if (!out.needs("simple.attn_weights")) return;
  Tensor weights({T, T});
  softmax_forward(weights.matrix(), attn_scores.matrix(), 1.0f);
  const Tensor& attn_weights = out.add("simple.attn_weights", std::move(weights));
  if (!out.needs("simple.all_context_vecs")) return;
  Tensor context({T, d_in});
  context_forward(context.matrix(), attn_weights.matrix(), inputs.matrix());
  out.add("simple.all_context_vecs", std::move(context));
}

// §3.4.1 and §3.4.2: torch.rand weights used as x @ W, then SelfAttention_v1, then exercise 3.1.
void v1_part(Builder& out, const Config& c, const Tensor& inputs, Generator& gen) {
  const int T = inputs.rows(), d_in = inputs.cols(), d_out = c.d_out, q = c.query_token;
  if (out.needs("v1.W_query") || out.needs("v1.W_key") || out.needs("v1.W_value")) {
    gen.manual_seed(c.seed_v1);
    const SelfAttentionV1 w(d_in, d_out, gen);  // the three Parameters, query first
    if (out.needs("v1.W_query")) out.add("v1.W_query", w.W_query);
    if (out.needs("v1.W_key")) out.add("v1.W_key", w.W_key);
    if (out.needs("v1.W_value")) out.add("v1.W_value", w.W_value);
    const Tensor* query_q = nullptr;
    if (out.needs("v1.query_q"))
      query_q = &out.add("v1.query_q", matmul(row_of(inputs, q), w.W_query));
    const Tensor* keys =
        out.needs("v1.keys") ? &out.add("v1.keys", matmul(inputs, w.W_key)) : nullptr;
    const Tensor* values =
        out.needs("v1.values") ? &out.add("v1.values", matmul(inputs, w.W_value)) : nullptr;
    if (out.needs("v1.attn_score_qq")) {
      float dot = 0.0f;
      for (int k = 0; k < d_out; ++k) dot += query_q->data[k] * keys->at(q, k);
      out.add("v1.attn_score_qq", Tensor(std::vector<int>{}, std::vector<float>{dot}));
    }
    if (out.needs("v1.attn_scores_q")) {
      Tensor scores_q({1, T});
      scores_forward(scores_q.matrix(), as_row(*query_q).matrix(), keys->matrix());
      scores_q.shape = {T};
      const Tensor& attn_scores_q = out.add("v1.attn_scores_q", std::move(scores_q));
      if (out.needs("v1.attn_weights_q")) {
        Tensor weights_q({1, T});
        softmax_forward(weights_q.matrix(), as_row(attn_scores_q).matrix(),
                        score_divisor(d_out, c.scale));
        weights_q.shape = {T};
        const Tensor& attn_weights_q = out.add("v1.attn_weights_q", std::move(weights_q));
        if (out.needs("v1.context_vec_q")) {
          Tensor context_q({1, d_out});
          context_forward(context_q.matrix(), as_row(attn_weights_q).matrix(), values->matrix());
          context_q.shape = {d_out};
          out.add("v1.context_vec_q", std::move(context_q));
        }
      }
    }
  }
  if (out.needs("v1.context_vecs")) {
    gen.manual_seed(c.seed_v1);
    const SelfAttentionV1 sa_v1(d_in, d_out, gen);
    out.add("v1.context_vecs", sa_v1.forward(inputs, c.scale));
  }
  if (out.needs("v1_from_v2.context_vecs")) {
    gen.manual_seed(c.seed_weights);
    const SelfAttentionV2 sa_v2(d_in, d_out, c.qkv_bias, gen);
    const auto transposed = [](const Linear& l) {
      Tensor t({l.weight.shape[1], l.weight.shape[0]});
      t.matrix() = l.weight.matrix().transpose();
      return t;
    };
    const SelfAttentionV1 from_v2(transposed(sa_v2.W_query), transposed(sa_v2.W_key),
                                  transposed(sa_v2.W_value));
    out.add("v1_from_v2.context_vecs", from_v2.forward(inputs, c.scale));
  }
}

// §3.5, the program of today: SelfAttention_v2, the two masks, dropout, CausalAttention.
void sa_part(Builder& out, const Config& c, const Tensor& inputs, Generator& gen) {
  const int T = inputs.rows(), d_in = inputs.cols(), d_out = c.d_out;
  const float divisor = score_divisor(d_out, c.scale);
  if (out.needs_any({"W_query", "W_key", "W_value", "b_query", "b_key", "b_value"})) {
    gen.manual_seed(c.seed_weights);
    SelfAttentionV2 sa_v2(d_in, d_out, c.qkv_bias, gen);
    const Parameters parameters(out, {"W_query", "W_key", "W_value", "b_query", "b_key", "b_value"},
                                {&sa_v2.W_query, &sa_v2.W_key, &sa_v2.W_value});
    if (out.needs("queries")) out.add("queries", sa_v2.W_query(inputs));
    if (out.needs("keys")) out.add("keys", sa_v2.W_key(inputs));
    if (out.needs("values")) out.add("values", sa_v2.W_value(inputs));
  }

  if (out.needs("attn_scores")) {  // pass 2
    Tensor scores({T, T});
    scores_forward(scores.matrix(), out.get("queries").matrix(), out.get("keys").matrix());
    out.add("attn_scores", std::move(scores));
  }
  if (out.needs("attn_weights")) {  // pass 4, nothing masked
    Tensor weights({T, T});
    softmax_forward(weights.matrix(), out.get("attn_scores").matrix(), divisor);
    out.add("attn_weights", std::move(weights));
  }
  if (out.needs("context_vec")) {  // pass 5
    Tensor context({T, d_out});
    context_forward(context.matrix(), out.get("attn_weights").matrix(), out.get("values").matrix());
    out.add("context_vec", std::move(context));
  }

  // The simple mask: zero the weights above the diagonal, then renormalise each row.
  if (out.needs("mask_simple")) out.add("mask_simple", lower_triangle(T));
  if (out.needs("masked_simple")) {
    Tensor product({T, T});
    multiply(product.matrix(), out.get("attn_weights").matrix(), out.get("mask_simple").matrix());
    out.add("masked_simple", std::move(product));
  }
  if (out.needs("row_sums")) {
    Tensor sums({T, 1});
    row_sums(sums.matrix(), out.get("masked_simple").matrix());
    out.add("row_sums", std::move(sums));
  }
  if (out.needs("masked_simple_norm")) {
    Tensor norm({T, T});
    divide_rows(norm.matrix(), out.get("masked_simple").matrix(), out.get("row_sums").matrix());
    out.add("masked_simple_norm", std::move(norm));
  }

  // The efficient mask: -inf above the diagonal before the softmax (pass 3, then 4).
  if (out.needs("mask")) out.add("mask", causal_mask(T));
  if (out.needs("masked")) {
    Tensor filled = out.get("attn_scores");
    masked_fill(filled.matrix(), out.get("mask").matrix());
    out.add("masked", std::move(filled));
  }
  if (out.needs("attn_weights_causal")) {
    Tensor causal({T, T});
    softmax_forward(causal.matrix(), out.get("masked").matrix(), divisor);
    out.add("attn_weights_causal", std::move(causal));
  }

  // Dropout, re-seeded before each use as in the book.
  if (out.needs("dropout_example")) {
    gen.manual_seed(c.seed_dropout);
    out.add("dropout_example", dropout(Tensor({T, T}, 1.0f), c.dropout, c.train, gen, c.rng));
  }
  if (out.needs("attn_weights_dropped")) {
    gen.manual_seed(c.seed_dropout);
    out.add("attn_weights_dropped",
            dropout(out.get("attn_weights_causal"), c.dropout, c.train, gen, c.rng));
  }

  // The compact class on a batch of two.
  if (out.keeps("batch")) out.batch();
  if (!out.needs_any(
          {"ca.W_query", "ca.W_key", "ca.W_value", "ca.b_query", "ca.b_key", "ca.b_value"}))
    return;
  gen.manual_seed(c.seed_class);
  CausalAttention ca(d_in, d_out, c.context_length, c.class_dropout, c.qkv_bias, gen);
  ca.training = c.train;
  ca.scale = c.scale;
  ca.rng = c.rng;
  const Parameters parameters(
      out, {"ca.W_query", "ca.W_key", "ca.W_value", "ca.b_query", "ca.b_key", "ca.b_value"},
      {&ca.W_query, &ca.W_key, &ca.W_value});
  if (out.needs("context_vecs")) out.add("context_vecs", ca.forward(out.batch(), gen));
}

// §3.6.1: H CausalAttention heads, their outputs concatenated.
void wrapper_part(Builder& out, const Config& c, const Tensor& inputs, Generator& gen) {
  const int d_in = inputs.cols(), d_out = c.d_out, H = c.num_heads;
  gen.manual_seed(c.seed_class);
  MultiHeadAttentionWrapper mhaw(d_in, d_out, c.context_length, c.class_dropout, H, c.qkv_bias,
                                 gen);
  for (CausalAttention& head : mhaw.heads) {
    head.training = c.train;
    head.scale = c.scale;
    head.rng = c.rng;
  }
  static const char* const kIds[2][3] = {{"mhaw.W_query", "mhaw.W_key", "mhaw.W_value"},
                                         {"mhaw.b_query", "mhaw.b_key", "mhaw.b_value"}};
  for (int bias = 0; bias < (c.qkv_bias ? 2 : 1); ++bias) {
    for (int k = 0; k < 3; ++k) {
      if (!out.needs(kIds[bias][k])) continue;
      std::vector<float> data;  // torch.stack over the heads
      data.reserve(static_cast<std::size_t>(H) * d_out * (bias ? 1 : d_in));
      std::vector<int> shape = {H};
      for (const CausalAttention& head : mhaw.heads) {
        const Linear* l[] = {&head.W_query, &head.W_key, &head.W_value};
        const Tensor& t = bias ? *l[k]->bias : l[k]->weight;
        data.insert(data.end(), t.data.begin(), t.data.end());
        if (shape.size() == 1) shape.insert(shape.end(), t.shape.begin(), t.shape.end());
      }
      out.add(kIds[bias][k], Tensor(shape, std::move(data)));
    }
  }
  if (out.needs("mhaw.context_vecs")) out.add("mhaw.context_vecs", mhaw.forward(out.batch(), gen));
}

// §3.6.2: one module; queries, keys and values split into heads by view + transpose.
MultiHeadAttention make_mha(const Config& c, Generator& gen, int d_in) {
  gen.manual_seed(c.seed_class);
  MultiHeadAttention mha(d_in, c.d_out, c.context_length, c.class_dropout, c.num_heads, c.qkv_bias,
                         gen);
  mha.training = c.train;
  mha.scale = c.scale;
  mha.rng = c.rng;
  return mha;
}

void mha_part(Builder& out, const Config& c, Generator& gen, int d_in, Shard shard) {
  MultiHeadAttention mha = make_mha(c, gen, d_in);
  const Parameters parameters(
      out,
      {"mha.W_query", "mha.W_key", "mha.W_value", "mha.b_query", "mha.b_key", "mha.b_value",
       "mha.out_proj.weight", "mha.out_proj.bias"},
      {&mha.W_query, &mha.W_key, &mha.W_value}, &mha.out_proj);
  static const char* const kHeads[] = {"mha.queries", "mha.keys", "mha.values"};
  const bool whole = shard.b0 == 0 && shard.b1 < 0 && shard.h0 == 0 && shard.h1 < 0;
  if (!out.needs("mha.attn_scores") && whole) {  // heads split, read by nothing else asked for
    const Linear* linears[] = {&mha.W_query, &mha.W_key, &mha.W_value};
    for (int k = 0; k < 3; ++k)
      if (out.needs(kHeads[k]))
        out.add(kHeads[k], split_heads((*linears[k])(out.batch()), c.num_heads));
    return;
  }
  // The rest is one fused pass (MultiHeadAttention::trace): it holds the intermediates asked
  // for only; at GPT-2's size the scores and weights are 100 MB each.
  TraceKeep keep;
  keep.heads = out.keeps("mha.queries") || out.keeps("mha.keys") || out.keeps("mha.values");
  keep.scores = out.keeps("mha.attn_scores");
  keep.weights = out.keeps("mha.attn_weights");
  keep.context = out.needs("mha.context_vec");
  MultiHeadAttention::Trace t =
      shard.b1 - shard.b0 == 1 && !out.has_batch()
          ? mha.trace_copies(out.get("inputs"), 2, gen, keep, shard)  // a batch of two copies
          : mha.trace(out.batch(), gen, keep, shard);
  Tensor* heads[] = {&t.queries, &t.keys, &t.values};
  for (int k = 0; k < 3; ++k)
    if (out.keeps(kHeads[k])) out.add(kHeads[k], std::move(*heads[k]));
  if (keep.scores) out.add("mha.attn_scores", std::move(t.attn_scores));
  if (keep.weights) out.add("mha.attn_weights", std::move(t.attn_weights));
  if (keep.context) out.add("mha.context_vec", std::move(t.context_vec));
  if (out.needs("mha.context_vecs") && !t.context_vecs.shape.empty())
    out.add("mha.context_vecs", std::move(t.context_vecs));
}

// The bonus notebook's implementations (bonus.hpp), each re-seeded as its notebook cell is;
// a forward's dropout draws follow its module's init, as in the stage's code.

// §3.6.2's module from its seed, for the stages that copy its weights.
MultiHeadAttention chapter_mha(const Config& c, int d_in) {
  Generator g;
  g.manual_seed(c.seed_class);
  return MultiHeadAttention(d_in, c.d_out, c.context_length, c.class_dropout, c.num_heads,
                            c.qkv_bias, g);
}

void qkv_part(Builder& out, const Config& c, Generator& gen, int d_in) {
  gen.manual_seed(c.seed_class);
  const CombinedQKV m(d_in, c.d_out, c.qkv_bias, gen);
  if (out.needs("qkv.weight")) out.add("qkv.weight", m.qkv.weight);
  if (m.qkv.bias && out.needs("qkv.bias")) out.add("qkv.bias", *m.qkv.bias);
  if (out.needs("qkv.proj.weight")) out.add("qkv.proj.weight", m.proj.weight);
  if (out.needs("qkv.proj.bias")) out.add("qkv.proj.bias", *m.proj.bias);
  if (out.needs("qkv.qkv")) out.add("qkv.qkv", m.qkv(out.batch()));
  if (out.needs("qkv.context_vecs"))
    out.add("qkv.context_vecs", m.as_mha(c).forward(out.batch(), gen));
}

void einsum_part(Builder& out, const Config& c, Generator& gen, int d_in) {
  const auto batch = [&]() -> const Tensor& { return out.batch(); };  // when needed
  gen.manual_seed(c.seed_class);
  const MHAEinsum m(d_in, c.d_out, c.qkv_bias, gen);
  const Tensor* w[] = {&m.W_query, &m.W_key, &m.W_value};
  const std::optional<Tensor>* b[] = {&m.bias_q, &m.bias_k, &m.bias_v};
  static const char* const kIds[] = {"einsum.W_query", "einsum.W_key",  "einsum.W_value",
                                     "einsum.bias_q",  "einsum.bias_k", "einsum.bias_v"};
  for (int k = 0; k < 3; ++k)
    if (out.needs(kIds[k])) out.add(kIds[k], *w[k]);
  for (int k = 0; c.qkv_bias && k < 3; ++k)
    if (out.needs(kIds[3 + k])) out.add(kIds[3 + k], **b[k]);
  if (out.needs("einsum.out_proj.weight")) out.add("einsum.out_proj.weight", m.out_proj.weight);
  if (out.needs("einsum.out_proj.bias")) out.add("einsum.out_proj.bias", *m.out_proj.bias);
  if (out.needs("einsum.scores")) {  // the chapter's masked scores, divided: -inf stays -inf
    TraceKeep keep;
    keep.heads = keep.weights = keep.context = false;  // no softmax: no dropout draw
    Tensor scores = m.as_mha(c).trace(batch(), gen, keep).attn_scores;
    const float divisor = score_divisor(c.d_out / c.num_heads, c.scale);
    if (c.scale)
      for (float& v : scores.data) v /= divisor;
    out.add("einsum.scores", std::move(scores));
  }
  if (out.needs("einsum.context_vecs"))
    out.add("einsum.context_vecs", m.as_mha(c).forward(batch(), gen));
  if (out.needs("einsum.copied.context_vecs")) {
    gen.manual_seed(c.seed_class);
    const MHAEinsum fresh(d_in, c.d_out, c.qkv_bias, gen);  // its draws, then the copy
    MultiHeadAttention copied = chapter_mha(c, d_in);
    copied.training = c.train;
    copied.scale = c.scale;
    copied.rng = c.rng;
    out.add("einsum.copied.context_vecs", copied.forward(batch(), gen));
  }
}

void flash_part(Builder& out, const Config& c) {
  const int T = c.num_tokens();
  FlashTrace f = flash_attention(out.get("qkv.qkv"), c.num_heads, flash_block(T), c.scale);
  if (out.needs("flash.running_max")) out.add("flash.running_max", std::move(f.running_max));
  if (out.needs("flash.running_sum")) out.add("flash.running_sum", std::move(f.running_sum));
  if (!out.needs("flash.context_vec")) return;
  const Tensor& context_vec = out.add("flash.context_vec", std::move(f.context_vec));
  if (!out.needs("flash.context_vecs")) return;
  const Linear proj(out.get("qkv.proj.weight"), out.get("qkv.proj.bias"));
  const Tensor& flash = out.add("flash.context_vecs", proj(context_vec));
  if (!out.needs("flash.difference")) return;
  Tensor difference = flash;
  const Tensor& plain = out.get("qkv.context_vecs");
  for (std::size_t k = 0; k < difference.numel(); ++k) difference.data[k] -= plain.data[k];
  out.add("flash.difference", std::move(difference));
}

void torchmha_part(Builder& out, const Config& c, Generator& gen, int d_in) {
  const auto batch = [&]() -> const Tensor& { return out.batch(); };  // when needed
  gen.manual_seed(c.seed_class);
  const TorchMHA m(c.d_out, gen);
  if (out.needs("torchmha.in_proj_weight")) out.add("torchmha.in_proj_weight", m.in_proj_weight);
  if (out.needs("torchmha.out_proj.weight")) out.add("torchmha.out_proj.weight", m.out_proj.weight);
  if (out.needs("torchmha.proj.weight")) out.add("torchmha.proj.weight", m.proj.weight);
  if (out.needs("torchmha.proj.bias")) out.add("torchmha.proj.bias", *m.proj.bias);
  if (out.needs("torchmha.context_vecs"))
    out.add("torchmha.context_vecs", m.proj(m.as_mha(c).forward(batch(), gen)));
  if (out.needs("torchmha.attn_weights")) {
    gen.manual_seed(c.seed_class);
    const TorchMHA fresh(c.d_out, gen);
    TraceKeep keep;
    keep.heads = keep.scores = keep.context = false;
    out.add("torchmha.attn_weights",
            average_heads(fresh.as_mha(c).trace(batch(), gen, keep).attn_weights));
  }
  if (out.needs("torchmha.copied.context_vecs")) {
    gen.manual_seed(c.seed_class);
    const TorchMHA fresh(c.d_out, gen);  // its draws, then the copy
    const TorchMHA copied(chapter_mha(c, d_in));
    out.add("torchmha.copied.context_vecs", copied.proj(copied.as_mha(c).forward(batch(), gen)));
  }
}

// Whether a run needs the cached generation itself (kv.mask alone does not).
template <typename Plan>
bool kv_generates(const Plan& p) {
  for (const char* id : {"kv.queries", "kv.cache_k", "kv.cache_v", "kv.attn_scores",
                         "kv.attn_weights", "kv.context_vec", "kv.context_vecs"})
    if (p.needs(id)) return true;
  return false;
}

// Beyond the chapter: the same module (same seed, eval mode) generating one token per step with
// a KV cache; one pass (generate_with_cache) that holds the stacked tensors asked for only.
void kv_part(Builder& out, const Config& c, Generator& gen, int d_in) {
  static const char* const kIds[] = {"kv.queries",     "kv.cache_k",     "kv.cache_v",
                                     "kv.mask",        "kv.attn_scores", "kv.attn_weights",
                                     "kv.context_vec", "kv.context_vecs"};
  KvKeep keep;
  keep.queries = out.keeps(kIds[0]);
  keep.cache = out.keeps(kIds[1]) || out.keeps(kIds[2]);
  keep.scores = out.keeps(kIds[4]);
  keep.weights = out.keeps(kIds[5]);
  keep.context_vec = out.keeps(kIds[6]);
  KvTrace t;
  if (kv_generates(out)) {
    gen.manual_seed(c.seed_class);
    MultiHeadAttention kv(d_in, c.d_out, c.context_length, 0.0, c.num_heads, c.qkv_bias, gen);
    kv.training = false;
    kv.scale = c.scale;
    t = generate_with_cache(kv, out.batch(), keep);
  }
  // In the table's order, those kept (the mask: needed, it is cheap); the plan's final filter
  // drops what was only needed.
  Tensor mask;
  if (out.needs(kIds[3])) mask = kv_mask_rows(c.num_tokens());
  Tensor* tensors[] = {&t.queries,     &t.cache_k,      &t.cache_v,     &mask,
                       &t.attn_scores, &t.attn_weights, &t.context_vec, &t.context_vecs};
  for (int k = 0; k < 8; ++k)
    if (k == 3 ? out.needs(kIds[k]) : out.keeps(kIds[k])) out.add(kIds[k], std::move(*tensors[k]));
}

// The mha intermediates MultiHeadAttention::trace computes inside its fused pass: held only
// when kept (a kept split head holds all three).
bool fused(std::string_view id) {
  return id == "mha.queries" || id == "mha.keys" || id == "mha.values" || id == "mha.attn_scores" ||
         id == "mha.attn_weights";
}

// stage_shape for a resolved configuration.
std::vector<int> shape_of(const Config& c, const StageInfo& s) {
  const std::string_view id = s.id;
  const int T = c.num_tokens(), H = c.num_heads;
  const auto size = [&](std::string_view axis) {  // the table's axes (stages.hpp)
    if (axis == "tok" || axis == "step") return T;
    if (axis == "in") return c.d_in();
    if (axis == "out") return c.d_out;
    if (axis == "hd") return c.d_out / H;
    if (axis == "hout") return H * c.d_out;
    if (axis == "head") return H;
    if (axis == "qkv") return 3 * c.d_out;
    if (axis == "block") return flash_blocks(T);
    return 1;  // "sum", "bias", "": one row or column
  };
  std::vector<int> shape;  // leading dimensions: the batch of two, heads
  const bool bonus = s.part > Part::Mha && s.part < Part::Kv;
  const bool kv = s.part == Part::Kv && id != "kv.mask",  // (2, ...), 4-D but the context
      kv_heads = kv && id != "kv.context_vec" && id != "kv.context_vecs";
  if (bonus) {
    const int lead = bonus_leading(id);
    if (lead >= 1) shape.push_back(2);
    if (lead == 2) shape.push_back(H);
  } else {
    if (id == "batch" || id == "context_vecs" || id == "mhaw.context_vecs" ||
        id == "mha.context_vec" || id == "mha.context_vecs" || fused(id) || kv)
      shape.push_back(2);
    if (fused(id) || kv_heads || id == "mhaw.W_query" || id == "mhaw.W_key" || id == "mhaw.W_value")
      shape.push_back(H);
  }
  if (*s.rows != '\0' && std::string_view(s.rows) != "bias") shape.push_back(size(s.rows));
  if (*s.cols != '\0') shape.push_back(size(s.cols));
  return shape;
}

}  // namespace

std::vector<int> stage_shape(const Config& config, std::string_view id) {
  const StageInfo* info = find_stage(id);
  if (info == nullptr) throw std::invalid_argument("unknown stage \"" + std::string(id) + "\"");
  return shape_of(resolve(config), *info);
}

// Floats: every stage a run computes stays to the end (the final filter runs last), a step's
// buffers only while it runs, so the peak is the stages computed plus the largest step's
// buffers. Shapes as the parts above make them: B = 2 (the batch), heads split over
// parallel_workers, each worker with its own (T, T) scores and weights.
namespace {

// run_bytes in a double: 32-bit WebAssembly's size_t ends at 4 GiB, and a configuration
// within every limit can ask for more (T = 1024 with 128 heads: 4.3 GiB).
double bytes_needed(const Config& config, const std::vector<std::string>& wanted) {
  const Config c = resolve(config);
  const Plan plan(wanted);
  const bool mha_ok = mha_error(c).empty();
  const double T = c.num_tokens(), D = c.d_in(), d = c.d_out, H = c.num_heads, B = 2, TT = T * T,
               Dd = D * d, Td = T * d;
  double kept = 5 * T * D, buffers = 0;  // the inputs' PyTorch line: ~16 bytes a number
  for (const StageInfo& s : stage_table()) {
    const bool one_pass =
        fused(s.id) || (s.part == Part::Kv && std::string_view(s.id) != "kv.mask");
    if (!(one_pass ? plan.keeps(s.id) : plan.needs(s.id))) continue;
    if ((s.bias && !c.qkv_bias) || !part_error(s.part, c).empty()) continue;
    kept += static_cast<double>(Tensor::numel_of(shape_of(c, s)));
  }
  const auto step = [&](bool runs, double floats) {
    if (runs) buffers = std::max(buffers, floats);
  };
  // A causal forward over `heads` (batch, head) pairs of head size hd, as causal_split splits
  // it (one thread when nested): the projections, and a (T, T) of weights per worker, or the
  // whole batch's weights and noise when dropout draws.
  const bool class_drop = c.train && c.class_dropout != 0.0;
  const auto causal = [&](double heads, double hd, bool nested, bool keep_weights, bool softmax) {
    const bool drop = softmax && class_drop, whole = drop || keep_weights;
    const double buffers = nested ? 1 : causal_split(heads, T, hd).pairs;
    return 3 * B * Td +
           (keep_weights || !softmax ? 0
            : whole                  ? heads * TT
                                     : buffers * TT) +
           (drop ? heads * TT : 0);
  };
  const auto workers = [](double n) { return parallel_workers(static_cast<std::size_t>(n)); };
  step(plan.any(Part::Simple), 2 * T);
  step(plan.any(Part::V1), plan.needs("v1.context_vecs") || plan.needs("v1_from_v2.context_vecs")
                               ? 8 * Dd + 3 * d + 4 * Td + 2 * TT
                               : 4 * Dd + T);
  step(plan.any(Part::Sa), 3 * Dd + 3 * d);
  step(plan.needs("dropout_example") || plan.needs("attn_weights_dropped"), 2 * TT);
  const bool ca = plan.needs("ca.W_query") || plan.needs("ca.W_key") || plan.needs("ca.W_value") ||
                  plan.needs("ca.b_query") || plan.needs("ca.b_key") || plan.needs("ca.b_value");
  step(ca, 3 * Dd + 3 * d + (plan.needs("context_vecs") ? causal(B, d, false, false, true) : 0));
  if (plan.any(Part::Wrapper)) {
    // Heads without draws run side by side, one per worker, each on one thread.
    const double side = class_drop ? 1 : workers(H);
    step(true, H * (3 * Dd + 3 * d) + (plan.needs("mhaw.context_vecs")
                                           ? H * B * Td + side * causal(B, d, side > 1, false, true)
                                           : 0));
  }
  if (plan.any(Part::Mha) && mha_ok) {
    double trace = 0;
    if (plan.needs("mha.attn_scores")) {
      const bool heads =
          plan.keeps("mha.queries") || plan.keeps("mha.keys") || plan.keeps("mha.values");
      trace = causal(B * H, d / H, false, plan.keeps("mha.attn_weights"),
                     plan.needs("mha.context_vec") || plan.keeps("mha.attn_weights")) +
              (heads ? 3 * B * Td : 0) + (plan.needs("mha.context_vec") ? 2 * B * Td : 0);
    } else if (plan.needs("mha.queries") || plan.needs("mha.keys") || plan.needs("mha.values")) {
      trace = B * Td;  // one projection before its split
    }
    step(true, 3 * Dd + d * d + 4 * d + trace);
  }
  // The bonus modules (bonus.hpp): their weights and as_mha's copy (and §3.6.2's module and a
  // fresh one for the copied stages); for a forward its projections and per-worker scores and
  // weights (the whole weights when averaged over the heads); the blocked pass's trace.
  const auto bonus = [&](Part p, double module, std::initializer_list<const char*> forwards,
                         const char* copied, bool whole) {
    if (!plan.any(p) || !part_error(p, c).empty()) return;
    bool forward = false;
    for (const char* id : forwards) forward = forward || plan.needs(id);
    const bool copy = *copied != 0 && plan.needs(copied);
    // einsum.scores alone: kept whole (a stage), no softmax.
    const bool scores = !copy && p == Part::Einsum && !plan.needs("einsum.context_vecs");
    step(true,
         2 * module + (copy ? 2 * module + 3 * Dd + d * d + 4 * d : 0) +
             (forward || copy ? 4 * B * Td + causal(B * H, d / H, false, whole, !scores) : 0));
  };
  bonus(Part::Qkv, 3 * Dd + 3 * d + d * d + d, {"qkv.context_vecs"}, "", false);
  bonus(Part::Einsum, 3 * Dd + 3 * d + d * d + d, {"einsum.scores", "einsum.context_vecs"},
        "einsum.copied.context_vecs", false);
  bonus(Part::TorchMha, 3 * d * d + 2 * d * d + d,
        {"torchmha.context_vecs", "torchmha.attn_weights"}, "torchmha.copied.context_vecs",
        plan.needs("torchmha.attn_weights"));
  const double blocks = flash_blocks(static_cast<int>(T)), block = flash_block(static_cast<int>(T));
  step(plan.any(Part::Flash) && part_error(Part::Flash, c).empty(),
       2 * B * H * T * blocks + B * Td + block * block + 3 * block * (d / H) + 3 * block);
  // The cached generation: the module; its cache of keys and values and the queries before
  // their split, (B, T, d) each; the context before and after out_proj; a step's rows.
  if (kv_generates(plan) && mha_ok) step(true, 3 * Dd + d * d + 4 * d + 5 * B * Td + 8 * d + 2 * T);
  return 4 * (kept + buffers);
}

}  // namespace

std::size_t run_bytes(const Config& config, const std::vector<std::string>& wanted) {
  const double bytes = bytes_needed(config, wanted);  // saturated where size_t is 32 bits
  return bytes >= static_cast<double>(SIZE_MAX) ? SIZE_MAX : static_cast<std::size_t>(bytes);
}

// Work: api.run's time in units of ~5.2 ns, summed over the parts the plan computes, so that a
// run of a few stages costs what it computes. The coefficients are the whole walkthrough's
// least-squares fit (walkthrough.hpp), split over the parts by what each computes: 2.25·T² per
// (T, T) attention map (scores, mask, softmax; the extra 0.75·T² is §3.5's masks and dropout),
// products with d_out (0.015·T²·d per map, the wrapper's heads 0.0225), projections
// (T·d_in·d_out: the wrapper's 0.05 per head and batch element, the others share 0.4 by their
// count, 2:3:6:6), the wrapper's causal masks (0.18·context_length² per head). The fit counts
// fewer than two heads as two (Hs). A whole run's work is the fit's
// T²·(30 + 0.18·d) + T·d_in·d + (Hs − 2)·(9·T² + 0.045·T²·d + 0.3·T·d_in·d) + 0.18·H·C².
RunCost run_cost(const Config& config, const std::vector<std::string>& wanted) {
  const Config c = resolve(config);
  const Plan plan(wanted);
  const double T = c.num_tokens(), D = c.d_in(), d = c.d_out, H = c.num_heads, C = c.context_length,
               TT = T * T, TDd = T * D * d, Hs = std::max(H, 2.0), B = 2;
  const double shared = 0.4 / 17;  // per projection of v1, SelfAttention_v2, ca and mha
  double work = 0;
  // A part's (T, T) maps, the maps' products with d_out and its projections.
  const auto part = [&](bool runs, double maps, double products, double projections) {
    if (runs) work += 2.25 * TT * maps + 0.015 * TT * d * products + shared * TDd * projections;
  };
  part(plan.any(Part::Simple), 1, 0, 0);
  part(plan.any(Part::V1), 1, 1, 2);
  if (plan.any(Part::Sa)) {  // (`batch` alone, which MultiHeadAttention reads, is a copy)
    const bool attention = plan.needs("attn_scores"), ca = plan.needs("context_vecs");
    part(plan.needs("queries") || plan.needs("keys") || plan.needs("values"), 0, 0, 3);
    part(attention, 1, 1, 0);
    if (attention) work += 0.75 * TT;  // the masks, row sums, dropout
    part(ca, B, B, B * 3);
  }
  if (plan.any(Part::Wrapper)) {
    const bool heads = plan.needs("mhaw.context_vecs");
    work += 0.18 * H * C * C;  // each head's CausalAttention registers its mask
    if (heads) work += Hs * (2.25 * TT * B + 0.0225 * TT * d * B + 0.05 * TDd * B * 3);
  }
  if (plan.any(Part::Mha) && mha_error(c).empty()) {
    part(true, 0, 0, B * 3);
    part(plan.needs("mha.attn_scores"), B * Hs, B, 0);
  }
  // The bonus notebook's modules: about one MultiHeadAttention forward each (einsum two: its
  // own and the copy; nn.MultiheadAttention three: its own, the averaged weights, the copy),
  // costed as §3.6.2's part above; not fitted. The cached generation computes one forward's
  // projections and a row of each map per step: costed as one forward too.
  double forwards = 0;
  for (const auto& [p, n] :
       {std::pair{Part::Qkv, 1}, {Part::Einsum, 2}, {Part::Flash, 1}, {Part::TorchMha, 3}})
    if (plan.any(p) && part_error(p, c).empty()) forwards += n;
  if (kv_generates(plan) && mha_error(c).empty()) forwards += 1;
  work += forwards * (2.25 * TT * B * Hs + 0.015 * TT * d * B + shared * TDd * B * 3);
  return {run_bytes(config, wanted), work, 4 * T * (T + D) * d * (1 + forwards)};
}

std::string stages_error(const Config& config, const std::vector<std::string>& wanted) {
  for (const std::string& id : wanted) {
    if (find_stage(id) == nullptr) return "unknown stage \"" + id + "\"";
  }
  for (const std::string& id : wanted) {
    if (std::string e = part_error(part_of(id), config); !e.empty()) return e;
  }
  if (const double bytes = bytes_needed(config, wanted); bytes > kMaxRunBytes) {
    const auto mib = [](double b) {
      return decimal(static_cast<long long>(std::ceil(std::floor(b) / (1 << 20)))) + " MiB";
    };
    return cat({"this configuration needs about ", mib(bytes), " for ",
                wanted.empty() ? "every stage" : "these stages", "; at most ", mib(kMaxRunBytes),
                " are supported (T = ", decimal(config.num_tokens()), ", ",
                decimal(config.num_heads), " heads, d_out ", decimal(config.d_out),
                "): ask for fewer stages, tokens or heads"});
  }
  return "";
}

std::string shard_error(const Config& c, Shard s) {
  if (s.b0 == 0 && s.b1 < 0 && s.h0 == 0 && s.h1 < 0 && s.weight_heads < 0) return "";
  if (std::string e = mha_error(c); !e.empty()) return e;
  const int b1 = s.b1 < 0 ? 2 : s.b1, h1 = s.h1 < 0 ? c.num_heads : s.h1;  // the batch: 2
  if (s.b0 < 0 || s.b0 >= b1 || b1 > 2 || s.h0 < 0 || s.h0 >= h1 || h1 > c.num_heads)
    return cat({"the shard must be batch elements [b0, b1) of [0, 2) and heads [h0, h1) of [0, ",
                decimal(c.num_heads), ")"});
  if (s.weight_heads != -1 && (s.weight_heads < 1 || s.weight_heads > h1 - s.h0))
    return cat({"the weights' heads must be 1 to ", decimal(h1 - s.h0), ", the shard's heads"});
  if (c.train && c.class_dropout != 0.0 &&
      (b1 - s.b0 != 2 || h1 - s.h0 != c.num_heads || s.weight_heads >= 0))
    return "a shard cannot draw dropout: its draws run over every head, in order";
  return "";
}

Walkthrough run_walkthrough(const Config& config, const std::vector<std::string>& wanted,
                            Shard shard) {
  if (const std::string error = validate(config); !error.empty())
    throw std::invalid_argument(error);
  if (const std::string error = stages_error(config, wanted); !error.empty())
    throw std::invalid_argument(error);
  if (const std::string error = shard_error(config, shard); !error.empty())
    throw std::invalid_argument(error);
  const Plan plan(wanted);
  Walkthrough w{resolve(config), {}};
  const Config& c = w.config;
  Builder out(w, c, plan);
  Generator gen;

  Tensor x = c.inputs;
  if (c.randn) {
    gen.manual_seed(c.randn->seed);
    x = randn({c.num_tokens(), c.d_in()}, gen);
  }
  const Tensor& inputs = out.add("inputs", std::move(x));
  if (plan.any(Part::Simple)) simple_part(out, inputs, c.query_token);
  if (plan.any(Part::V1)) v1_part(out, c, inputs, gen);
  if (plan.any(Part::Sa)) sa_part(out, c, inputs, gen);
  if (plan.any(Part::Wrapper)) wrapper_part(out, c, inputs, gen);
  // Skipped, like the bias stages without qkv_bias, when the heads do not divide d_out.
  if (plan.any(Part::Mha) && mha_error(c).empty()) mha_part(out, c, gen, inputs.cols(), shard);
  // The bonus notebook's, skipped (as above) when the configuration rules them out.
  const auto runs = [&](Part p) { return plan.any(p) && part_error(p, c).empty(); };
  if (runs(Part::Qkv)) qkv_part(out, c, gen, inputs.cols());
  if (runs(Part::Einsum)) einsum_part(out, c, gen, inputs.cols());
  if (runs(Part::Flash)) flash_part(out, c);
  if (runs(Part::TorchMha)) torchmha_part(out, c, gen, inputs.cols());
  if (plan.any(Part::Kv) && mha_error(c).empty()) kv_part(out, c, gen, inputs.cols());

  if (!wanted.empty()) {  // only what was asked for, still in walkthrough order
    std::vector<Stage> kept;
    for (Stage& s : w.stages) {
      if (plan.keeps(s.id())) kept.push_back(std::move(s));
    }
    w.stages = std::move(kept);
  }
  return w;
}

Stage mha_out_proj(const Config& config, const Tensor& context_rows, const Linear& out_proj) {
  if (const std::string error = validate(config); !error.empty())
    throw std::invalid_argument(error);
  if (const std::string error = mha_error(config); !error.empty())
    throw std::invalid_argument(error);
  const StageInfo* info = find_stage("mha.context_vecs");
  return Stage{info, StageCode(resolve(config)).expand(info->code), out_proj(context_rows)};
}

}  // namespace ca
