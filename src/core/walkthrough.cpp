#include "walkthrough.hpp"

#include "attention.hpp"
#include "json.hpp"
#include "nn.hpp"

#include <algorithm>
#include <cstdio>
#include <stdexcept>

namespace ca {
namespace {

const char* py_bool(bool b) { return b ? "True" : "False"; }

std::string seed_line(std::uint64_t seed) { return "torch.manual_seed(" + std::to_string(seed) + ")"; }

std::string inputs_code(const Config& c) {
  if (c.randn) {
    return seed_line(c.randn->seed) + "; inputs = torch.randn(" + std::to_string(c.randn->rows) +
           ", " + std::to_string(c.randn->cols) + ")";
  }
  std::string s = "inputs = torch.tensor([";
  for (int i = 0; i < c.inputs.rows(); ++i) {
    s += i ? ", [" : "[";
    for (int j = 0; j < c.inputs.cols(); ++j) s += (j ? ", " : "") + json::number(c.inputs.at(i, j));
    s += "]";
  }
  return s + "])";
}

// `attn_scores / keys.shape[-1]**0.5`, or the bare scores when unscaled.
std::string scaled(const std::string& scores, bool scale) {
  return scale ? scores + " / keys.shape[-1]**0.5" : scores;
}

class Builder {
 public:
  // Stages hand out references to earlier stages, so the vector must never reallocate.
  explicit Builder(Walkthrough& w) : w_(w) { w_.stages.reserve(all_stage_ids().size()); }
  const Tensor& add(const char* id, const char* title, std::string code, Tensor t) {
    w_.stages.push_back(Stage{id, title, std::move(code), std::move(t)});
    return w_.stages.back().tensor;
  }
  // The three projections of a module, then their biases.
  void weights(const char* prefix, const char* module, const std::string& construct,
               const Linear* const (&linears)[3]) {
    static const char* const kNames[] = {"query", "key", "value"};
    const std::string p = prefix;
    for (int i = 0; i < 3; ++i) {
      const std::string attr = std::string(module) + ".W_" + kNames[i];
      stage(p + "W_" + kNames[i], title("weights", kNames[i], module),
            (i == 0 ? construct + "; " : "") + attr + ".weight", linears[i]->weight);
    }
    for (int i = 0; linears[0]->bias && i < 3; ++i) {
      const std::string attr = std::string(module) + ".W_" + kNames[i];
      stage(p + "b_" + kNames[i], title("bias", kNames[i], module), attr + ".bias", *linears[i]->bias);
    }
  }

 private:
  Walkthrough& w_;
  static std::string title(const char* what, const char* name, const char* module) {
    std::string n = name;
    n[0] = static_cast<char>(n[0] - 'a' + 'A');
    return n + " " + what + " of " + (std::string(module) == "ca" ? "CausalAttention" : "SelfAttention_v2");
  }
  void stage(std::string id, std::string title, std::string code, const Tensor& t) {
    w_.stages.push_back(Stage{std::move(id), std::move(title), std::move(code), t});
  }
};

}  // namespace

const std::vector<std::string>& all_stage_ids() {
  static const std::vector<std::string> ids = {
      "inputs", "W_query", "W_key", "W_value", "b_query", "b_key", "b_value",
      "queries", "keys", "values", "attn_scores", "attn_weights", "context_vec",
      "mask_simple", "masked_simple", "row_sums", "masked_simple_norm", "mask", "masked",
      "attn_weights_causal", "dropout_example", "attn_weights_dropped", "batch",
      "ca.W_query", "ca.W_key", "ca.W_value", "ca.b_query", "ca.b_key", "ca.b_value",
      "context_vecs"};
  return ids;
}

bool is_bias_stage(const std::string& id) {
  return id.rfind("b_", 0) == 0 || id.rfind("ca.b_", 0) == 0;
}

Walkthrough run_walkthrough(const Config& config) {
  if (const std::string error = validate(config); !error.empty()) throw std::invalid_argument(error);
  Walkthrough w{resolve(config), {}};
  const Config& c = w.config;
  Builder out(w);
  Generator gen;
  const int T = c.num_tokens(), d_in = c.d_in(), d_out = c.d_out;
  const std::string Ts = std::to_string(T);
  const float divisor = score_divisor(d_out, c.scale);

  // 1. Self-attention with trainable weights (§3.4), as the starting point of §3.5.
  Tensor x = c.inputs;
  if (c.randn) {
    gen.manual_seed(c.randn->seed);
    x = randn({T, d_in}, gen);
  }
  const Tensor& inputs = out.add("inputs", "Input embeddings", inputs_code(c), std::move(x));

  gen.manual_seed(c.seed_weights);
  const SelfAttentionV2 sa_v2(d_in, d_out, c.qkv_bias, gen);
  out.weights("", "sa_v2",
              seed_line(c.seed_weights) + "; sa_v2 = SelfAttention_v2(d_in=" + std::to_string(d_in) +
                  ", d_out=" + std::to_string(d_out) + ", qkv_bias=" + py_bool(c.qkv_bias) + ")",
              {&sa_v2.W_query, &sa_v2.W_key, &sa_v2.W_value});
  const Tensor& queries = out.add("queries", "Queries", "queries = sa_v2.W_query(inputs)", sa_v2.W_query(inputs));
  const Tensor& keys = out.add("keys", "Keys", "keys = sa_v2.W_key(inputs)", sa_v2.W_key(inputs));
  const Tensor& values = out.add("values", "Values", "values = sa_v2.W_value(inputs)", sa_v2.W_value(inputs));

  Tensor scores({T, T});  // pass 2
  scores_forward(scores.matrix(), queries.matrix(), keys.matrix());
  const Tensor& attn_scores = out.add("attn_scores", "Attention scores", "attn_scores = queries @ keys.T", std::move(scores));

  Tensor weights({T, T});  // pass 4, unmasked
  softmax_forward(weights.matrix(), attn_scores.matrix(), divisor);
  const Tensor& attn_weights = out.add("attn_weights", "Attention weights",
      "attn_weights = torch.softmax(" + scaled("attn_scores", c.scale) + ", dim=-1)", std::move(weights));

  Tensor context({T, d_out});  // pass 5
  context_forward(context.matrix(), attn_weights.matrix(), values.matrix());
  out.add("context_vec", "Context vectors of SelfAttention_v2", "context_vec = attn_weights @ values", std::move(context));

  // 2. The simple mask: zero the weights above the diagonal, then renormalise each row.
  Tensor tril({T, T}, 1.0f);
  tril.matrix().triangularView<Eigen::StrictlyUpper>().setZero();
  const Tensor& mask_simple = out.add("mask_simple", "Simple mask (lower triangle of ones)",
      "mask_simple = torch.tril(torch.ones(" + Ts + ", " + Ts + "))", std::move(tril));

  Tensor product({T, T});
  product.matrix() = attn_weights.matrix().cwiseProduct(mask_simple.matrix());
  const Tensor& masked_simple = out.add("masked_simple", "Weights times the simple mask",
      "masked_simple = attn_weights * mask_simple", std::move(product));

  Tensor sums({T, 1});
  for (int i = 0; i < T; ++i) sums.at(i, 0) = masked_simple.matrix().row(i).sum();
  const Tensor& row_sums = out.add("row_sums", "Row sums of the masked weights",
      "row_sums = masked_simple.sum(dim=-1, keepdim=True)", std::move(sums));

  Tensor norm({T, T});
  for (int i = 0; i < T; ++i) norm.matrix().row(i) = masked_simple.matrix().row(i) / row_sums.at(i, 0);
  out.add("masked_simple_norm", "Renormalised masked weights",
          "masked_simple_norm = masked_simple / row_sums", std::move(norm));

  // 3. The efficient mask: -inf above the diagonal before the softmax (pass 3, then 4).
  const Tensor& mask = out.add("mask", "Efficient mask (ones above the diagonal)",
      "mask = torch.triu(torch.ones(" + Ts + ", " + Ts + "), diagonal=1)", causal_mask(T));

  Tensor filled = attn_scores;
  masked_fill(filled.matrix(), mask.matrix());
  const Tensor& masked = out.add("masked", "Scores masked with -inf",
      "masked = attn_scores.masked_fill(mask.bool(), -torch.inf)", std::move(filled));

  Tensor causal({T, T});
  softmax_forward(causal.matrix(), masked.matrix(), divisor);
  const Tensor& attn_weights_causal = out.add("attn_weights_causal", "Causal attention weights",
      "attn_weights = torch.softmax(" + scaled("masked", c.scale) + ", dim=-1)", std::move(causal));

  // 4. Dropout, re-seeded before each use as in the book.
  char p[32];
  std::snprintf(p, sizeof p, "%g", c.dropout);
  const std::string make_dropout = seed_line(c.seed_dropout) + "; dropout = torch.nn.Dropout(" + p +
                                    ")" + (c.train ? "" : ".eval()") + "; ";
  gen.manual_seed(c.seed_dropout);
  out.add("dropout_example", "Dropout applied to a matrix of ones",
          make_dropout + "dropout(torch.ones(" + Ts + ", " + Ts + "))",
          dropout(Tensor({T, T}, 1.0f), c.dropout, c.train, gen, c.rng));
  gen.manual_seed(c.seed_dropout);
  out.add("attn_weights_dropped", "Dropout applied to the causal weights",
          seed_line(c.seed_dropout) + "; dropout(attn_weights)",
          dropout(attn_weights_causal, c.dropout, c.train, gen, c.rng));

  // 5. The compact class on a batch of two.
  Tensor stacked({2, T, d_in});
  std::copy(inputs.data.begin(), inputs.data.end(), stacked.data.begin());
  std::copy(inputs.data.begin(), inputs.data.end(), stacked.data.begin() + inputs.numel());
  const Tensor& batch = out.add("batch", "A batch of two inputs",
                                "batch = torch.stack((inputs, inputs), dim=0)", std::move(stacked));

  gen.manual_seed(c.seed_class);
  CausalAttention ca(d_in, d_out, c.context_length, c.class_dropout, c.qkv_bias, gen);
  ca.training = c.train;
  ca.scale = c.scale;
  ca.rng = c.rng;
  std::snprintf(p, sizeof p, "%g", c.class_dropout);
  out.weights("ca.", "ca",
              seed_line(c.seed_class) + "; ca = CausalAttention(d_in=" + std::to_string(d_in) +
                  ", d_out=" + std::to_string(d_out) + ", context_length=" +
                  std::to_string(c.context_length) + ", dropout=" + p +
                  (c.qkv_bias ? ", qkv_bias=True" : "") + ")" + (c.train ? "" : ".eval()"),
              {&ca.W_query, &ca.W_key, &ca.W_value});
  out.add("context_vecs", "Context vectors of CausalAttention",
          std::string("context_vecs = ca(batch)") + (c.scale ? "" : "  # softmax without / keys.shape[-1]**0.5"),
          ca.forward(batch, gen));
  return w;
}

}  // namespace ca
