#include "walkthrough.hpp"

#include <algorithm>
#include <iterator>
#include <stdexcept>
#include <string_view>

#include "attention.hpp"
#include "nn.hpp"
#include "reduce.hpp"
#include "sleef.hpp"
#include "stage_code.hpp"
#include "stages.hpp"
#include "text.hpp"

namespace ca {
namespace {

// Appends stages; the references it returns stay valid (capacity is reserved up front).
class Builder {
 public:
  Builder(Walkthrough& w, const Config& c, const std::vector<std::string>& wanted)
      : w_(w), code_(c), wanted_(wanted) {
    w_.stages.reserve(stage_table().size());
  }
  const Tensor& add(const char* id, Tensor t) {
    const StageInfo* info = info_of(id);
    if (info == nullptr) throw std::logic_error(std::string("stage missing from the table: ") + id);
    w_.stages.push_back(Stage{info, code_.expand(info->code), std::move(t)});
    return w_.stages.back().tensor;
  }
  // Whether the stage is asked for (every stage is, when none is named).
  bool wants(std::string_view id) const {
    return wanted_.empty() || std::find(wanted_.begin(), wanted_.end(), id) != wanted_.end();
  }
  // A module's three projections, then their biases: ids {W_query, W_key, W_value, b_query,
  // b_key, b_value}, each with the module's prefix.
  void weights(const char* const (&ids)[6], const Linear* const (&linears)[3]) {
    for (int i = 0; i < 3; ++i) add(ids[i], linears[i]->weight);
    for (int i = 0; linears[0]->bias && i < 3; ++i) add(ids[3 + i], *linears[i]->bias);
  }

 private:
  // The table's entry: stages come in the table's order, so the search starts after the last
  // one found (find_stage's scan from the top, a strlen per entry, was 9% of a WASM walkthrough).
  const StageInfo* info_of(std::string_view id) {
    const std::vector<StageInfo>& table = stage_table();
    for (std::size_t k = 0; k < table.size(); ++k) {
      const std::size_t i = (next_ + k) % table.size();
      if (id == table[i].id) {
        next_ = i + 1;
        return &table[i];
      }
    }
    return nullptr;
  }

  Walkthrough& w_;
  StageCode code_;
  const std::vector<std::string>& wanted_;
  std::size_t next_ = 0;
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

// §3.3: attention without trainable weights, the inputs attending to themselves.
void simple_part(Builder& out, const Tensor& inputs, int q) {
  const int T = inputs.rows(), d_in = inputs.cols();
  const Tensor query = row_of(inputs, q);
  Tensor scores_q({T});  // one torch.dot per token, in order
  for (int i = 0; i < T; ++i) {
    float dot = 0.0f;
    for (int k = 0; k < d_in; ++k) dot += inputs.at(i, k) * query.data[k];
    scores_q.data[i] = dot;
  }
  const Tensor& attn_scores_q = out.add("simple.attn_scores_q", std::move(scores_q));
  Tensor tmp = attn_scores_q;
  const float total = torch_sum(attn_scores_q);
  for (float& v : tmp.data) v /= total;
  out.add("simple.attn_weights_q_tmp", std::move(tmp));
  Tensor naive = attn_scores_q;  // exp / sum(exp), no max subtracted, as the book writes it
  for (float& v : naive.data) v = sleef::expf_u10(v);  // torch.exp: SLEEF's, as softmax's
  const float exp_total = torch_sum(naive);
  for (float& v : naive.data) v /= exp_total;
  out.add("simple.attn_weights_q_naive", std::move(naive));
  Tensor weights_q({1, T});
  softmax_forward(weights_q.matrix(), as_row(attn_scores_q).matrix(), 1.0f);
  weights_q.shape = {T};
  const Tensor& attn_weights_q = out.add("simple.attn_weights_q", std::move(weights_q));
  Tensor context_q({d_in});  // context_vec_q += attn_weights_q[i] * x_i, token by token
  for (int i = 0; i < T; ++i)
    for (int k = 0; k < d_in; ++k) context_q.data[k] += attn_weights_q.data[i] * inputs.at(i, k);
  out.add("simple.context_vec_q", std::move(context_q));

  Tensor scores({T, T});
  scores_forward(scores.matrix(), inputs.matrix(), inputs.matrix());  // inputs @ inputs.T
  const Tensor& attn_scores = out.add("simple.attn_scores", std::move(scores));
  Tensor weights({T, T});
  softmax_forward(weights.matrix(), attn_scores.matrix(), 1.0f);
  const Tensor& attn_weights = out.add("simple.attn_weights", std::move(weights));
  Tensor context({T, d_in});
  context_forward(context.matrix(), attn_weights.matrix(), inputs.matrix());
  out.add("simple.all_context_vecs", std::move(context));
}

// §3.4.1 and §3.4.2: torch.rand weights used as x @ W, then SelfAttention_v1, then exercise 3.1.
void v1_part(Builder& out, const Config& c, const Tensor& inputs, Generator& gen) {
  const int T = inputs.rows(), d_in = inputs.cols(), d_out = c.d_out, q = c.query_token;
  gen.manual_seed(c.seed_v1);
  const SelfAttentionV1 w(d_in, d_out, gen);  // the three Parameters, query first
  out.add("v1.W_query", w.W_query);
  out.add("v1.W_key", w.W_key);
  out.add("v1.W_value", w.W_value);
  const Tensor& query_q = out.add("v1.query_q", matmul(row_of(inputs, q), w.W_query));
  const Tensor& keys = out.add("v1.keys", matmul(inputs, w.W_key));
  const Tensor& values = out.add("v1.values", matmul(inputs, w.W_value));
  float dot = 0.0f;
  for (int k = 0; k < d_out; ++k) dot += query_q.data[k] * keys.at(q, k);
  out.add("v1.attn_score_qq", Tensor(std::vector<int>{}, std::vector<float>{dot}));
  Tensor scores_q({1, T});
  scores_forward(scores_q.matrix(), as_row(query_q).matrix(), keys.matrix());
  scores_q.shape = {T};
  const Tensor& attn_scores_q = out.add("v1.attn_scores_q", std::move(scores_q));
  Tensor weights_q({1, T});
  softmax_forward(weights_q.matrix(), as_row(attn_scores_q).matrix(),
                  score_divisor(d_out, c.scale));
  weights_q.shape = {T};
  const Tensor& attn_weights_q = out.add("v1.attn_weights_q", std::move(weights_q));
  Tensor context_q({1, d_out});
  context_forward(context_q.matrix(), as_row(attn_weights_q).matrix(), values.matrix());
  context_q.shape = {d_out};
  out.add("v1.context_vec_q", std::move(context_q));

  gen.manual_seed(c.seed_v1);
  const SelfAttentionV1 sa_v1(d_in, d_out, gen);
  out.add("v1.context_vecs", sa_v1.forward(inputs, c.scale));
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

// §3.5, the program of today: SelfAttention_v2, the two masks, dropout, CausalAttention.
void sa_part(Builder& out, const Config& c, const Tensor& inputs, Generator& gen) {
  const int T = inputs.rows(), d_in = inputs.cols(), d_out = c.d_out;
  const float divisor = score_divisor(d_out, c.scale);
  gen.manual_seed(c.seed_weights);
  const SelfAttentionV2 sa_v2(d_in, d_out, c.qkv_bias, gen);
  out.weights({"W_query", "W_key", "W_value", "b_query", "b_key", "b_value"},
              {&sa_v2.W_query, &sa_v2.W_key, &sa_v2.W_value});
  const Tensor& queries = out.add("queries", sa_v2.W_query(inputs));
  const Tensor& keys = out.add("keys", sa_v2.W_key(inputs));
  const Tensor& values = out.add("values", sa_v2.W_value(inputs));

  Tensor scores({T, T});  // pass 2
  scores_forward(scores.matrix(), queries.matrix(), keys.matrix());
  const Tensor& attn_scores = out.add("attn_scores", std::move(scores));
  Tensor weights({T, T});  // pass 4, nothing masked
  softmax_forward(weights.matrix(), attn_scores.matrix(), divisor);
  const Tensor& attn_weights = out.add("attn_weights", std::move(weights));
  Tensor context({T, d_out});  // pass 5
  context_forward(context.matrix(), attn_weights.matrix(), values.matrix());
  out.add("context_vec", std::move(context));

  // The simple mask: zero the weights above the diagonal, then renormalise each row.
  const Tensor& mask_simple = out.add("mask_simple", lower_triangle(T));
  Tensor product({T, T});
  multiply(product.matrix(), attn_weights.matrix(), mask_simple.matrix());
  const Tensor& masked_simple = out.add("masked_simple", std::move(product));
  Tensor sums({T, 1});
  row_sums(sums.matrix(), masked_simple.matrix());
  const Tensor& row_sum = out.add("row_sums", std::move(sums));
  Tensor norm({T, T});
  divide_rows(norm.matrix(), masked_simple.matrix(), row_sum.matrix());
  out.add("masked_simple_norm", std::move(norm));

  // The efficient mask: -inf above the diagonal before the softmax (pass 3, then 4).
  const Tensor& mask = out.add("mask", causal_mask(T));
  Tensor filled = attn_scores;
  masked_fill(filled.matrix(), mask.matrix());
  const Tensor& masked = out.add("masked", std::move(filled));
  Tensor causal({T, T});
  softmax_forward(causal.matrix(), masked.matrix(), divisor);
  const Tensor& attn_weights_causal = out.add("attn_weights_causal", std::move(causal));

  // Dropout, re-seeded before each use as in the book.
  gen.manual_seed(c.seed_dropout);
  out.add("dropout_example", dropout(Tensor({T, T}, 1.0f), c.dropout, c.train, gen, c.rng));
  gen.manual_seed(c.seed_dropout);
  out.add("attn_weights_dropped", dropout(attn_weights_causal, c.dropout, c.train, gen, c.rng));

  // The compact class on a batch of two.
  const Tensor& batch = out.add("batch", stack_twice(inputs));
  gen.manual_seed(c.seed_class);
  CausalAttention ca(d_in, d_out, c.context_length, c.class_dropout, c.qkv_bias, gen);
  ca.training = c.train;
  ca.scale = c.scale;
  ca.rng = c.rng;
  out.weights({"ca.W_query", "ca.W_key", "ca.W_value", "ca.b_query", "ca.b_key", "ca.b_value"},
              {&ca.W_query, &ca.W_key, &ca.W_value});
  out.add("context_vecs", ca.forward(batch, gen));
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
      std::vector<float> data;  // torch.stack over the heads
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
  out.add("mhaw.context_vecs", mhaw.forward(stack_twice(inputs), gen));
}

// §3.6.2: one module; queries, keys and values split into heads by view + transpose.
void mha_part(Builder& out, const Config& c, const Tensor& inputs, Generator& gen) {
  gen.manual_seed(c.seed_class);
  MultiHeadAttention mha(inputs.cols(), c.d_out, c.context_length, c.class_dropout, c.num_heads,
                         c.qkv_bias, gen);
  mha.training = c.train;
  mha.scale = c.scale;
  mha.rng = c.rng;
  out.weights(
      {"mha.W_query", "mha.W_key", "mha.W_value", "mha.b_query", "mha.b_key", "mha.b_value"},
      {&mha.W_query, &mha.W_key, &mha.W_value});
  out.add("mha.out_proj.weight", mha.out_proj.weight);
  out.add("mha.out_proj.bias", *mha.out_proj.bias);
  // Only the intermediates asked for: at GPT-2's size the scores and weights are 100 MB each.
  TraceKeep keep;
  keep.heads = out.wants("mha.queries") || out.wants("mha.keys") || out.wants("mha.values");
  keep.scores = out.wants("mha.attn_scores");
  keep.weights = out.wants("mha.attn_weights");
  MultiHeadAttention::Trace t = mha.trace(stack_twice(inputs), gen, keep);
  if (keep.heads) {
    out.add("mha.queries", std::move(t.queries));
    out.add("mha.keys", std::move(t.keys));
    out.add("mha.values", std::move(t.values));
  }
  if (keep.scores) out.add("mha.attn_scores", std::move(t.attn_scores));
  if (keep.weights) out.add("mha.attn_weights", std::move(t.attn_weights));
  out.add("mha.context_vec", std::move(t.context_vec));
  out.add("mha.context_vecs", std::move(t.context_vecs));
}

// Which parts run for the wanted stages (every part when none is named).
struct Parts {
  bool on[kParts];
  explicit Parts(const std::vector<std::string>& wanted) {
    std::fill(std::begin(on), std::end(on), wanted.empty());
    for (const std::string& id : wanted) on[static_cast<int>(part_of(id))] = true;
  }
  bool operator[](Part p) const { return on[static_cast<int>(p)]; }
};

bool wanted_or_all(const std::vector<std::string>& wanted, std::string_view id) {
  return wanted.empty() || std::find(wanted.begin(), wanted.end(), id) != wanted.end();
}

}  // namespace

// Floats: each part's tensors stay to the end (the final filter runs last), its buffers only
// while it runs, so the peak is every part's kept tensors plus the largest part's buffers.
// Shapes as the parts above make them: B = 2 (the batch), C = context_length.
std::size_t run_bytes(const Config& config, const std::vector<std::string>& wanted) {
  const Config c = resolve(config);
  const Parts parts(wanted);
  const double T = c.num_tokens(), D = c.d_in(), d = c.d_out, H = c.num_heads, B = 2,
               C = c.context_length, TT = T * T, Dd = D * d, Td = T * d;
  const bool class_drop = c.train && c.class_dropout != 0.0;
  // One CausalAttention forward: its mask buffer, queries, keys, values, scores and weights
  // (the whole batch's when dropout draws, with the noise).
  const double causal = C * C + 3 * B * Td + TT + (class_drop ? 2 * B * TT : TT);
  double kept = 5 * T * D, buffers = 0;  // the inputs, and their PyTorch line (~16 bytes a number)
  const auto part = [&](Part p, double k, double b) {
    if (!parts[p]) return;
    kept += k;
    buffers = std::max(buffers, b);
  };
  part(Part::Simple, 2 * TT + T * D + 4 * T + D, 0);
  part(Part::V1, 3 * Dd + 4 * Td + 2 * T + 2 * d, 9 * Dd + 4 * Td + 2 * TT);
  part(Part::Sa, 11 * TT + 6 * Dd + 6 * Td + 2 * T * D + 6 * d + T, causal + 2 * TT);
  // Every head keeps its mask buffer, and its output until torch.cat.
  part(Part::Wrapper, H * (3 * Dd + 3 * d) + B * T * H * d,
       H * C * C + B * T * H * d + causal + B * T * D);
  if (parts[Part::Mha] && mha_error(c).empty()) {
    const bool scores = wanted_or_all(wanted, "mha.attn_scores"),
               weights = wanted_or_all(wanted, "mha.attn_weights"),
               heads = wanted_or_all(wanted, "mha.queries") || wanted_or_all(wanted, "mha.keys") ||
                       wanted_or_all(wanted, "mha.values");
    const double BHTT = B * H * TT;
    part(Part::Mha,
         3 * Dd + d * d + 5 * d + (heads ? 3 * B * Td : 0) + (scores ? BHTT : 0) +
             (weights ? BHTT : 0) + 2 * B * Td,
         C * C + 3 * B * Td + B * T * D + (scores ? 0 : TT) +
             (weights      ? 0
              : class_drop ? BHTT
                           : TT) +
             (class_drop ? BHTT : 0));
  }
  return static_cast<std::size_t>(4 * (kept + buffers));
}

RunCost run_cost(const Config& config, const std::vector<std::string>& wanted) {
  const Config c = resolve(config);
  const double T = c.num_tokens(), D = c.d_in(), d = c.d_out, H = c.num_heads, C = c.context_length,
               TT = T * T;
  const double work = TT * (30 + 0.18 * d) + T * D * d +
                      std::max(0.0, H - 2) * (9 * TT + 0.045 * TT * d + 0.3 * T * D * d) +
                      0.18 * H * C * C;
  return {run_bytes(config, wanted), work, 4 * T * (T + D) * d};
}

std::string stages_error(const Config& config, const std::vector<std::string>& wanted) {
  for (const std::string& id : wanted) {
    if (find_stage(id) == nullptr) return "unknown stage \"" + id + "\"";
  }
  for (const std::string& id : wanted) {
    if (part_of(id) == Part::Mha) {
      if (std::string e = mha_error(config); !e.empty()) return e;
    }
  }
  if (const std::size_t bytes = run_bytes(config, wanted); bytes > kMaxRunBytes) {
    const auto mib = [](std::size_t b) { return decimal((b + (1 << 20) - 1) >> 20) + " MiB"; };
    return cat({"this configuration needs about ", mib(bytes), " for ",
                wanted.empty() ? "every stage" : "these stages", "; at most ", mib(kMaxRunBytes),
                " are supported (T = ", decimal(config.num_tokens()), ", ",
                decimal(config.num_heads), " heads, d_out ", decimal(config.d_out),
                "): ask for fewer stages, tokens or heads"});
  }
  return "";
}

Walkthrough run_walkthrough(const Config& config, const std::vector<std::string>& wanted) {
  if (const std::string error = validate(config); !error.empty())
    throw std::invalid_argument(error);
  if (const std::string error = stages_error(config, wanted); !error.empty())
    throw std::invalid_argument(error);
  const Parts parts(wanted);
  Walkthrough w{resolve(config), {}};
  const Config& c = w.config;
  const std::string mha_problem = mha_error(c);
  Builder out(w, c, wanted);
  Generator gen;

  Tensor x = c.inputs;
  if (c.randn) {
    gen.manual_seed(c.randn->seed);
    x = randn({c.num_tokens(), c.d_in()}, gen);
  }
  const Tensor& inputs = out.add("inputs", std::move(x));
  if (parts[Part::Simple]) simple_part(out, inputs, c.query_token);
  if (parts[Part::V1]) v1_part(out, c, inputs, gen);
  if (parts[Part::Sa]) sa_part(out, c, inputs, gen);
  if (parts[Part::Wrapper]) wrapper_part(out, c, inputs, gen);
  // Skipped, like the bias stages without qkv_bias, when the heads do not divide d_out.
  if (parts[Part::Mha] && mha_problem.empty()) mha_part(out, c, inputs, gen);

  if (!wanted.empty()) {  // only what was asked for, still in walkthrough order
    std::vector<Stage> kept;
    for (Stage& s : w.stages) {
      if (out.wants(s.id())) kept.push_back(std::move(s));
    }
    w.stages = std::move(kept);
  }
  return w;
}

}  // namespace ca
