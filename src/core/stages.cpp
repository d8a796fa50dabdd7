#include "stages.hpp"

#include "config.hpp"

namespace ca {
namespace {

using K = StageKind;

constexpr const char* kWeights =
    "nn.Linear fills it with uniform random numbers in ±1/√d_in after the seed; row r makes "
    "output feature r.";
constexpr const char* kBias = "The bias of that nn.Linear, added after the product.";
constexpr const char* kClassWeights =
    "The class draws its own nn.Linear weights after its own seed.";

// Fields: id, section, title, code, rows, cols, kind, causal, dropout, bias, note.
const std::vector<StageInfo> kStages = {
    {"inputs", "s1", "Input embeddings", "{inputs}", "tok", "in", K::Values, false, "", false,
     "One row per token: the embedding vector the attention layer reads."},
    {"W_query", "s1", "Query weights of SelfAttention_v2",
     "torch.manual_seed({seed_weights}); sa_v2 = SelfAttention_v2(d_in={d_in}, d_out={d_out}, "
     "qkv_bias={qkv_bias}); sa_v2.W_query.weight",
     "out", "in", K::Weights, false, "", false, kWeights},
    {"W_key", "s1", "Key weights of SelfAttention_v2", "sa_v2.W_key.weight", "out", "in",
     K::Weights, false, "", false, kWeights},
    {"W_value", "s1", "Value weights of SelfAttention_v2", "sa_v2.W_value.weight", "out", "in",
     K::Weights, false, "", false, kWeights},
    {"b_query", "s1", "Query bias of SelfAttention_v2", "sa_v2.W_query.bias", "bias", "out",
     K::Weights, false, "", true, kBias},
    {"b_key", "s1", "Key bias of SelfAttention_v2", "sa_v2.W_key.bias", "bias", "out", K::Weights,
     false, "", true, kBias},
    {"b_value", "s1", "Value bias of SelfAttention_v2", "sa_v2.W_value.bias", "bias", "out",
     K::Weights, false, "", true, kBias},
    {"queries", "s1", "Queries", "queries = sa_v2.W_query(inputs)", "tok", "out", K::Values, false,
     "", false, "Each token’s question: its embedding multiplied by the query weights."},
    {"keys", "s1", "Keys", "keys = sa_v2.W_key(inputs)", "tok", "out", K::Values, false, "",
     false, "What each token offers to be matched against: embedding times key weights."},
    {"values", "s1", "Values", "values = sa_v2.W_value(inputs)", "tok", "out", K::Values, false,
     "", false, "The content each token hands over once it is attended to."},
    {"attn_scores", "s1", "Attention scores", "attn_scores = queries @ keys.T", "tok", "tok",
     K::Scores, false, "", false,
     "Row i, column j: how well the query of token i matches the key of token j (a dot "
     "product)."},
    {"attn_weights", "s1", "Attention weights",
     "attn_weights = torch.softmax(attn_scores{scaled}, dim=-1)", "tok", "tok", K::Probabilities,
     false, "", false,
     "Softmax of each scaled row of scores: positive weights that sum to 1, future tokens "
     "included."},
    {"context_vec", "s1", "Context vectors of SelfAttention_v2",
     "context_vec = attn_weights @ values", "tok", "out", K::Values, false, "", false,
     "Each token’s new vector: all values mixed by its row of weights."},
    {"mask_simple", "s2", "Simple mask (lower triangle of ones)",
     "mask_simple = torch.tril(torch.ones({T}, {T}))", "tok", "tok", K::Mask, true, "", false,
     "Lower triangle of ones: a token may look at itself and earlier tokens, never later ones."},
    {"masked_simple", "s2", "Weights times the simple mask",
     "masked_simple = attn_weights * mask_simple", "tok", "tok", K::Probabilities, true, "",
     false,
     "Multiplying by the mask zeroes the weights on later tokens. The rows no longer sum to 1."},
    {"row_sums", "s2", "Row sums of the masked weights",
     "row_sums = masked_simple.sum(dim=-1, keepdim=True)", "tok", "sum", K::Values, false, "",
     false,
     "What is left of each row after masking: the first row keeps only its own weight."},
    {"masked_simple_norm", "s2", "Renormalised masked weights",
     "masked_simple_norm = masked_simple / row_sums", "tok", "tok", K::Probabilities, true, "",
     false,
     "Dividing each row by its sum makes it a distribution again over the visible tokens only."},
    {"mask", "s3", "Efficient mask (ones above the diagonal)",
     "mask = torch.triu(torch.ones({T}, {T}), diagonal=1)", "tok", "tok", K::Mask, true, "",
     false,
     "The opposite mask: ones mark the future cells to hide (strictly above the diagonal)."},
    {"masked", "s3", "Scores masked with -inf",
     "masked = attn_scores.masked_fill(mask.bool(), -torch.inf)", "tok", "tok", K::Scores, true,
     "", false,
     "Future scores become −∞ before the softmax; e to the −∞ is 0, so they get no weight at "
     "all."},
    {"attn_weights_causal", "s3", "Causal attention weights",
     "attn_weights = torch.softmax(masked{scaled}, dim=-1)", "tok", "tok", K::Probabilities, true,
     "", false,
     "One softmax over the masked scores gives the same weights as the mask-then-renormalise "
     "route, in one step."},
    {"dropout_example", "s4", "Dropout applied to a matrix of ones",
     "torch.manual_seed({seed_dropout}); dropout = torch.nn.Dropout({dropout}){eval}; "
     "dropout(torch.ones({T}, {T}))",
     "tok", "tok", K::Mask, false, "dropout_example", false,
     "Dropout on a matrix of ones shows its random pattern: each cell is zeroed with probability "
     "p, survivors are scaled by 1/(1−p)."},
    {"attn_weights_dropped", "s4", "Dropout applied to the causal weights",
     "torch.manual_seed({seed_dropout}); dropout(attn_weights)", "tok", "tok", K::Probabilities,
     true, "dropout_example", false,
     "The same seed gives the same pattern on the causal weights: dropped weights become 0, kept "
     "ones are scaled up."},
    {"batch", "s5", "A batch of two inputs", "batch = torch.stack((inputs, inputs), dim=0)", "tok",
     "in", K::Values, false, "", false,
     "Two copies of the inputs stacked into one batch, the shape the class expects: (batch, "
     "tokens, d_in)."},
    {"ca.W_query", "s5", "Query weights of CausalAttention",
     "torch.manual_seed({seed_class}); ca = CausalAttention(d_in={d_in}, d_out={d_out}, "
     "context_length={context_length}, dropout={class_dropout}{ca_bias}){eval}; ca.W_query.weight",
     "out", "in", K::Weights, false, "", false, kClassWeights},
    {"ca.W_key", "s5", "Key weights of CausalAttention", "ca.W_key.weight", "out", "in",
     K::Weights, false, "", false, kClassWeights},
    {"ca.W_value", "s5", "Value weights of CausalAttention", "ca.W_value.weight", "out", "in",
     K::Weights, false, "", false, kClassWeights},
    {"ca.b_query", "s5", "Query bias of CausalAttention", "ca.W_query.bias", "bias", "out",
     K::Weights, false, "", true, kBias},
    {"ca.b_key", "s5", "Key bias of CausalAttention", "ca.W_key.bias", "bias", "out", K::Weights,
     false, "", true, kBias},
    {"ca.b_value", "s5", "Value bias of CausalAttention", "ca.W_value.bias", "bias", "out",
     K::Weights, false, "", true, kBias},
    {"context_vecs", "s5", "Context vectors of CausalAttention",
     "context_vecs = ca(batch){unscaled}", "tok", "out", K::Values, false, "", false,
     "The class’s forward pass on each batch element: same inputs, same outputs."},
};

const std::vector<SectionInfo> kSections = {
    {"s1", "3.5", "Self-attention, a recap",
     "Each token becomes a query, a key and a value; query-key dot products, through softmax, "
     "become weights that mix the values. Every token still sees the later ones."},
    {"s2", "3.5.1", "Hiding the future, the simple way",
     "A model predicting the next word must not peek at it: zero the weights on later tokens "
     "(hatched), then rescale each row to sum to 1."},
    {"s3", "3.5.1", "The efficient mask",
     "Quicker: −∞ on future scores before the softmax; as e^−∞ = 0, one softmax hides them and "
     "normalises the rest."},
    {"s4", "3.5.2", "Dropout on the attention weights",
     "In training, dropout zeroes a random share p of the weights (marked ✗) and scales up the "
     "rest; eval mode turns it off."},
    {"s5", "3.5.3", "The compact class, on a batch",
     "CausalAttention packs the steps above into one module that works on a batch of "
     "sequences."},
};

}  // namespace

const std::vector<StageInfo>& stage_table() { return kStages; }

const std::vector<SectionInfo>& section_table() { return kSections; }

const StageInfo* find_stage(std::string_view id) {
  for (const StageInfo& s : kStages)
    if (id == s.id) return &s;
  return nullptr;
}

const char* to_string(StageKind kind) {
  switch (kind) {
    case K::Values:
      return "values";
    case K::Weights:
      return "weights";
    case K::Scores:
      return "scores";
    case K::Probabilities:
      return "probabilities";
    case K::Mask:
      return "mask";
  }
  return "values";
}

Limits limits() {
  return {kMaxTokens, kMaxDim, static_cast<int>(kMaxTokenLength), 32};
}

json::Value stage_table_json() {
  using json::make_bool;
  using json::make_number;
  using json::make_string;
  json::Value sections, stages, lim, doc;
  sections.kind = stages.kind = json::Value::Kind::Array;
  lim.kind = doc.kind = json::Value::Kind::Object;
  for (const SectionInfo& s : kSections) {
    json::Value v;
    v.kind = json::Value::Kind::Object;
    v.members = {{"id", make_string(s.id)},
                 {"number", make_string(s.number)},
                 {"title", make_string(s.title)},
                 {"intro", make_string(s.intro)}};
    sections.items.push_back(std::move(v));
  }
  for (const StageInfo& s : kStages) {
    json::Value v;
    v.kind = json::Value::Kind::Object;
    v.members = {{"id", make_string(s.id)},         {"section", make_string(s.section)},
                 {"title", make_string(s.title)},   {"code", make_string(s.code)},
                 {"rows", make_string(s.rows)},     {"cols", make_string(s.cols)},
                 {"kind", make_string(to_string(s.kind))}, {"causal", make_bool(s.causal)},
                 {"dropout", make_string(s.dropout)}, {"bias", make_bool(s.bias)},
                 {"note", make_string(s.note)}};
    stages.items.push_back(std::move(v));
  }
  const Limits l = limits();
  lim.members = {{"max_tokens", make_number(l.max_tokens)},
                 {"max_dim", make_number(l.max_dim)},
                 {"max_token_length", make_number(l.max_token_length)},
                 {"max_shown", make_number(l.max_shown)}};
  json::Value defaults;  // what a control shows before the reader picks a value
  defaults.kind = json::Value::Kind::Object;
  defaults.members = {{"randn_seed", make_number(static_cast<double>(RandnInputs{}.seed))}};
  doc.members = {{"sections", std::move(sections)},
                 {"stages", std::move(stages)},
                 {"limits", std::move(lim)},
                 {"defaults", std::move(defaults)}};
  return doc;
}

}  // namespace ca
