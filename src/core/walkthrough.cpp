#include "walkthrough.hpp"

#include <algorithm>
#include <stdexcept>

#include "attention.hpp"
#include "nn.hpp"
#include "text.hpp"

namespace ca {
namespace {

// Every stage in order: its id, title and PyTorch line. {name} stands for a value of the
// configuration (see `variables`). The one place stage metadata lives.
struct StageInfo {
  const char* id;
  const char* title;
  const char* code;
};
constexpr StageInfo kStages[] = {
    {"inputs", "Input embeddings", "{inputs}"},
    {"W_query", "Query weights of SelfAttention_v2",
     "torch.manual_seed({seed_weights}); sa_v2 = SelfAttention_v2(d_in={d_in}, d_out={d_out}, "
     "qkv_bias={qkv_bias}); sa_v2.W_query.weight"},
    {"W_key", "Key weights of SelfAttention_v2", "sa_v2.W_key.weight"},
    {"W_value", "Value weights of SelfAttention_v2", "sa_v2.W_value.weight"},
    {"b_query", "Query bias of SelfAttention_v2", "sa_v2.W_query.bias"},
    {"b_key", "Key bias of SelfAttention_v2", "sa_v2.W_key.bias"},
    {"b_value", "Value bias of SelfAttention_v2", "sa_v2.W_value.bias"},
    {"queries", "Queries", "queries = sa_v2.W_query(inputs)"},
    {"keys", "Keys", "keys = sa_v2.W_key(inputs)"},
    {"values", "Values", "values = sa_v2.W_value(inputs)"},
    {"attn_scores", "Attention scores", "attn_scores = queries @ keys.T"},
    {"attn_weights", "Attention weights",
     "attn_weights = torch.softmax(attn_scores{scaled}, dim=-1)"},
    {"context_vec", "Context vectors of SelfAttention_v2", "context_vec = attn_weights @ values"},
    {"mask_simple", "Simple mask (lower triangle of ones)",
     "mask_simple = torch.tril(torch.ones({T}, {T}))"},
    {"masked_simple", "Weights times the simple mask",
     "masked_simple = attn_weights * mask_simple"},
    {"row_sums", "Row sums of the masked weights",
     "row_sums = masked_simple.sum(dim=-1, keepdim=True)"},
    {"masked_simple_norm", "Renormalised masked weights",
     "masked_simple_norm = masked_simple / row_sums"},
    {"mask", "Efficient mask (ones above the diagonal)",
     "mask = torch.triu(torch.ones({T}, {T}), diagonal=1)"},
    {"masked", "Scores masked with -inf",
     "masked = attn_scores.masked_fill(mask.bool(), -torch.inf)"},
    {"attn_weights_causal", "Causal attention weights",
     "attn_weights = torch.softmax(masked{scaled}, dim=-1)"},
    {"dropout_example", "Dropout applied to a matrix of ones",
     "torch.manual_seed({seed_dropout}); dropout = torch.nn.Dropout({dropout}){eval}; "
     "dropout(torch.ones({T}, {T}))"},
    {"attn_weights_dropped", "Dropout applied to the causal weights",
     "torch.manual_seed({seed_dropout}); dropout(attn_weights)"},
    {"batch", "A batch of two inputs", "batch = torch.stack((inputs, inputs), dim=0)"},
    {"ca.W_query", "Query weights of CausalAttention",
     "torch.manual_seed({seed_class}); ca = CausalAttention(d_in={d_in}, d_out={d_out}, "
     "context_length={context_length}, dropout={class_dropout}{ca_bias}){eval}; ca.W_query.weight"},
    {"ca.W_key", "Key weights of CausalAttention", "ca.W_key.weight"},
    {"ca.W_value", "Value weights of CausalAttention", "ca.W_value.weight"},
    {"ca.b_query", "Query bias of CausalAttention", "ca.W_query.bias"},
    {"ca.b_key", "Key bias of CausalAttention", "ca.W_key.bias"},
    {"ca.b_value", "Value bias of CausalAttention", "ca.W_value.bias"},
    {"context_vecs", "Context vectors of CausalAttention", "context_vecs = ca(batch){unscaled}"},
};

// A Python float literal: 0.5, 0.0, 1e-05 (shortest for the type: float32 inputs, double p).
template <typename Float>
std::string py_float(Float v) {
  const std::string s = shortest(v);
  return s.find_first_of(".e") == std::string::npos ? s + ".0" : s;
}

std::string inputs_code(const Config& c) {
  if (c.randn) {
    return "torch.manual_seed(" + decimal(c.randn->seed) + "); inputs = torch.randn(" +
           decimal(c.randn->rows) + ", " + decimal(c.randn->cols) + ")";
  }
  std::string s = "inputs = torch.tensor([";
  for (int i = 0; i < c.inputs.rows(); ++i) {
    s += i ? ", [" : "[";
    // Float literals, as the page's torch export: torch.tensor([[1, 2]]) would be int64.
    for (int j = 0; j < c.inputs.cols(); ++j) s += (j ? ", " : "") + py_float(c.inputs.at(i, j));
    s += "]";
  }
  return s + "])";
}

using Variables = std::vector<std::pair<std::string, std::string>>;

Variables variables(const Config& c) {
  return {{"inputs", inputs_code(c)},
          {"seed_weights", decimal(c.seed_weights)},
          {"seed_dropout", decimal(c.seed_dropout)},
          {"seed_class", decimal(c.seed_class)},
          {"d_in", decimal(c.d_in())},
          {"d_out", decimal(c.d_out)},
          {"T", decimal(c.num_tokens())},
          {"context_length", decimal(c.context_length)},
          {"qkv_bias", c.qkv_bias ? "True" : "False"},
          {"ca_bias", c.qkv_bias ? ", qkv_bias=True" : ""},
          {"scaled", c.scale ? " / keys.shape[-1]**0.5" : ""},
          {"unscaled", c.scale ? "" : "  # softmax without / keys.shape[-1]**0.5"},
          {"dropout", py_float(c.dropout)},
          {"class_dropout", py_float(c.class_dropout)},
          {"eval", c.train ? "" : ".eval()"}};
}

std::string expand(const char* tmpl, const Variables& vars) {
  std::string s = tmpl;
  for (std::size_t open = s.find('{'); open != std::string::npos; open = s.find('{', open)) {
    const std::size_t close = s.find('}', open);
    const std::string name = s.substr(open + 1, close - open - 1);
    const auto it =
        std::find_if(vars.begin(), vars.end(), [&](const auto& v) { return v.first == name; });
    const std::string& value = it->second;  // every placeholder of kStages is in `variables`
    s.replace(open, close - open + 1, value);
    open += value.size();
  }
  return s;
}

// Appends stages; the references it returns stay valid (capacity is reserved up front).
class Builder {
 public:
  Builder(Walkthrough& w, const Config& c) : w_(w), vars_(variables(c)) {
    w_.stages.reserve(std::size(kStages));
  }
  const Tensor& add(const char* id, Tensor t) {
    const StageInfo* info =
        std::find_if(std::begin(kStages), std::end(kStages),
                     [&](const StageInfo& s) { return std::string(s.id) == id; });
    w_.stages.push_back(Stage{info->id, info->title, expand(info->code, vars_), std::move(t)});
    return w_.stages.back().tensor;
  }
  // A module's three projections, then their biases (prefix "" or "ca.").
  void weights(const std::string& prefix, const Linear* const (&linears)[3]) {
    static const char* const kNames[] = {"query", "key", "value"};
    for (int i = 0; i < 3; ++i) add((prefix + "W_" + kNames[i]).c_str(), linears[i]->weight);
    for (int i = 0; linears[0]->bias && i < 3; ++i)
      add((prefix + "b_" + kNames[i]).c_str(), *linears[i]->bias);
  }

 private:
  Walkthrough& w_;
  Variables vars_;
};

}  // namespace

const std::vector<std::string>& all_stage_ids() {
  static const std::vector<std::string> ids = [] {
    std::vector<std::string> v;
    for (const StageInfo& s : kStages) v.push_back(s.id);
    return v;
  }();
  return ids;
}

bool is_bias_stage(const std::string& id) {
  return id.rfind("b_", 0) == 0 || id.rfind("ca.b_", 0) == 0;
}

Walkthrough run_walkthrough(const Config& config) {
  if (const std::string error = validate(config); !error.empty())
    throw std::invalid_argument(error);
  Walkthrough w{resolve(config), {}};
  const Config& c = w.config;
  Builder out(w, c);
  Generator gen;
  const int T = c.num_tokens(), d_in = c.d_in(), d_out = c.d_out;
  const float divisor = score_divisor(d_out, c.scale);

  // 1. Self-attention with trainable weights (§3.4), the starting point of §3.5.
  Tensor x = c.inputs;
  if (c.randn) {
    gen.manual_seed(c.randn->seed);
    x = randn({T, d_in}, gen);
  }
  const Tensor& inputs = out.add("inputs", std::move(x));
  gen.manual_seed(c.seed_weights);
  const SelfAttentionV2 sa_v2(d_in, d_out, c.qkv_bias, gen);
  out.weights("", {&sa_v2.W_query, &sa_v2.W_key, &sa_v2.W_value});
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

  // 2. The simple mask: zero the weights above the diagonal, then renormalise each row.
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

  // 3. The efficient mask: -inf above the diagonal before the softmax (pass 3, then 4).
  const Tensor& mask = out.add("mask", causal_mask(T));
  Tensor filled = attn_scores;
  masked_fill(filled.matrix(), mask.matrix());
  const Tensor& masked = out.add("masked", std::move(filled));
  Tensor causal({T, T});
  softmax_forward(causal.matrix(), masked.matrix(), divisor);
  const Tensor& attn_weights_causal = out.add("attn_weights_causal", std::move(causal));

  // 4. Dropout, re-seeded before each use as in the book.
  gen.manual_seed(c.seed_dropout);
  out.add("dropout_example", dropout(Tensor({T, T}, 1.0f), c.dropout, c.train, gen, c.rng));
  gen.manual_seed(c.seed_dropout);
  out.add("attn_weights_dropped", dropout(attn_weights_causal, c.dropout, c.train, gen, c.rng));

  // 5. The compact class on a batch of two.
  Tensor stacked({2, T, d_in});
  std::copy(inputs.data.begin(), inputs.data.end(), stacked.data.begin());
  std::copy(inputs.data.begin(), inputs.data.end(), stacked.data.begin() + inputs.numel());
  const Tensor& batch = out.add("batch", std::move(stacked));
  gen.manual_seed(c.seed_class);
  CausalAttention ca(d_in, d_out, c.context_length, c.class_dropout, c.qkv_bias, gen);
  ca.training = c.train;
  ca.scale = c.scale;
  ca.rng = c.rng;
  out.weights("ca.", {&ca.W_query, &ca.W_key, &ca.W_value});
  out.add("context_vecs", ca.forward(batch, gen));
  return w;
}

}  // namespace ca
