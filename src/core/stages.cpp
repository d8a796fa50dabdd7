#include "stages.hpp"

#include <algorithm>

#include "config.hpp"

namespace ca {
namespace {

using K = StageKind;
using P = Part;

// Fields: id, section, part, operands, title, code, rows, cols, kind, causal, dropout, bias.
// Each stage's note is in src/texts.json (src/cli/texts.hpp), in this table's order.
const std::vector<StageInfo> kStages = {
    {"inputs", "simple-one", P::Inputs, "", "Input embeddings", "{inputs}", "tok", "in", K::Values,
     false, "", false},
    // §3.3.1
    {"simple.attn_scores_q", "simple-one", P::Simple, "inputs",
     "Attention scores of the query token",
     "query = inputs[{q}]  # x^({n}), the query\n"
     "attn_scores_{n} = torch.empty(inputs.shape[0])\n"
     "for i, x_i in enumerate(inputs):\n"
     "    attn_scores_{n}[i] = torch.dot(x_i, query)",
     "", "tok", K::Scores, false, "", false},
    {"simple.attn_weights_q_tmp", "simple-one", P::Simple, "simple.attn_scores_q",
     "Scores divided by their sum",
     "attn_weights_{n}_tmp = attn_scores_{n} / attn_scores_{n}.sum()", "", "tok", K::Values, false,
     "", false},
    {"simple.attn_weights_q_naive", "simple-one", P::Simple, "simple.attn_scores_q",
     "Naive softmax",
     "attn_weights_{n}_naive = torch.exp(attn_scores_{n}) / torch.exp(attn_scores_{n}).sum(dim=0)",
     "", "tok", K::Probabilities, false, "", false},
    {"simple.attn_weights_q", "simple-one", P::Simple, "simple.attn_scores_q",
     "Softmax of the scores", "attn_weights_{n} = torch.softmax(attn_scores_{n}, dim=0)", "", "tok",
     K::Probabilities, false, "", false},
    {"simple.context_vec_q", "simple-one", P::Simple, "simple.attn_weights_q inputs",
     "Context vector of the query token",
     "context_vec_{n} = torch.zeros(query.shape)\n"
     "for i, x_i in enumerate(inputs):\n"
     "    context_vec_{n} += attn_weights_{n}[i] * x_i",
     "", "in", K::Values, false, "", false},
    // §3.3.2
    {"simple.attn_scores", "simple-all", P::Simple, "inputs[i] inputs[j]",
     "Attention scores of every token", "attn_scores = inputs @ inputs.T", "tok", "tok", K::Scores,
     false, "", false},
    {"simple.attn_weights", "simple-all", P::Simple, "simple.attn_scores[i]",
     "Attention weights of every token", "attn_weights = torch.softmax(attn_scores, dim=-1)", "tok",
     "tok", K::Probabilities, false, "", false},
    {"simple.all_context_vecs", "simple-all", P::Simple, "simple.attn_weights[i] inputs[:,j]",
     "Context vectors of every token", "all_context_vecs = attn_weights @ inputs", "tok", "in",
     K::Values, false, "", false},
    // §3.4.1
    {"v1.W_query", "v1-steps", P::V1, "", "Query weights (d_in × d_out)",
     "torch.manual_seed({seed_v1}); "
     "W_query = torch.nn.Parameter(torch.rand({d_in}, {d_out}), requires_grad=False)",
     "in", "out", K::Weights, false, "", false},
    {"v1.W_key", "v1-steps", P::V1, "", "Key weights (d_in × d_out)",
     "W_key = torch.nn.Parameter(torch.rand({d_in}, {d_out}), requires_grad=False)", "in", "out",
     K::Weights, false, "", false},
    {"v1.W_value", "v1-steps", P::V1, "", "Value weights (d_in × d_out)",
     "W_value = torch.nn.Parameter(torch.rand({d_in}, {d_out}), requires_grad=False)", "in", "out",
     K::Weights, false, "", false},
    {"v1.query_q", "v1-steps", P::V1, "inputs v1.W_query", "Query of the query token",
     "x_{n} = inputs[{q}]\nquery_{n} = x_{n} @ W_query", "", "out", K::Values, false, "", false},
    {"v1.keys", "v1-steps", P::V1, "inputs[i] v1.W_key[:,j]", "Keys", "keys = inputs @ W_key",
     "tok", "out", K::Values, false, "", false},
    {"v1.values", "v1-steps", P::V1, "inputs[i] v1.W_value[:,j]", "Values",
     "values = inputs @ W_value", "tok", "out", K::Values, false, "", false},
    {"v1.attn_score_qq", "v1-steps", P::V1, "v1.query_q v1.keys",
     "The query's score against its own key",
     "keys_{n} = keys[{q}]\nattn_score_{n}{n} = query_{n}.dot(keys_{n})", "", "", K::Scores, false,
     "", false},
    {"v1.attn_scores_q", "v1-steps", P::V1, "v1.query_q v1.keys",
     "Scores of the query against every key", "attn_scores_{n} = query_{n} @ keys.T", "", "tok",
     K::Scores, false, "", false},
    {"v1.attn_weights_q", "v1-steps", P::V1, "v1.attn_scores_q", "Scaled softmax of the scores",
     "attn_weights_{n} = torch.softmax(attn_scores_{n}{scaled}, dim=-1)", "", "tok",
     K::Probabilities, false, "", false},
    {"v1.context_vec_q", "v1-steps", P::V1, "v1.attn_weights_q v1.values",
     "Context vector of the query token", "context_vec_{n} = attn_weights_{n} @ values", "", "out",
     K::Values, false, "", false},
    // §3.4.2
    {"v1.context_vecs", "v1-class", P::V1, "inputs v1.W_query v1.W_key v1.W_value",
     "Context vectors of SelfAttention_v1",
     "torch.manual_seed({seed_v1}); sa_v1 = SelfAttention_v1({d_in}, {d_out}); "
     "sa_v1(inputs){unscaled}",
     "tok", "out", K::Values, false, "", false},
    {"v1_from_v2.context_vecs", "v1-class", P::V1, "inputs",
     "SelfAttention_v1 with SelfAttention_v2's weights (exercise 3.1)",
     "torch.manual_seed({seed_weights}); sa_v2 = SelfAttention_v2({d_in}, {d_out}{ca_bias}); "
     "sa_v1.W_query = nn.Parameter(sa_v2.W_query.weight.T); "
     "sa_v1.W_key = nn.Parameter(sa_v2.W_key.weight.T); "
     "sa_v1.W_value = nn.Parameter(sa_v2.W_value.weight.T); sa_v1(inputs)",
     "tok", "out", K::Values, false, "", false},
    {"W_query", "s1", P::Sa, "", "Query weights of SelfAttention_v2",
     "torch.manual_seed({seed_weights}); sa_v2 = SelfAttention_v2(d_in={d_in}, d_out={d_out}, "
     "qkv_bias={qkv_bias}); sa_v2.W_query.weight",
     "out", "in", K::Weights, false, "", false},
    {"W_key", "s1", P::Sa, "", "Key weights of SelfAttention_v2", "sa_v2.W_key.weight", "out", "in",
     K::Weights, false, "", false},
    {"W_value", "s1", P::Sa, "", "Value weights of SelfAttention_v2", "sa_v2.W_value.weight", "out",
     "in", K::Weights, false, "", false},
    {"b_query", "s1", P::Sa, "", "Query bias of SelfAttention_v2", "sa_v2.W_query.bias", "bias",
     "out", K::Weights, false, "", true},
    {"b_key", "s1", P::Sa, "", "Key bias of SelfAttention_v2", "sa_v2.W_key.bias", "bias", "out",
     K::Weights, false, "", true},
    {"b_value", "s1", P::Sa, "", "Value bias of SelfAttention_v2", "sa_v2.W_value.bias", "bias",
     "out", K::Weights, false, "", true},
    {"queries", "s1", P::Sa, "inputs[i] W_query[j] b_query", "Queries",
     "queries = sa_v2.W_query(inputs)", "tok", "out", K::Values, false, "", false},
    {"keys", "s1", P::Sa, "inputs[i] W_key[j] b_key", "Keys", "keys = sa_v2.W_key(inputs)", "tok",
     "out", K::Values, false, "", false},
    {"values", "s1", P::Sa, "inputs[i] W_value[j] b_value", "Values",
     "values = sa_v2.W_value(inputs)", "tok", "out", K::Values, false, "", false},
    {"attn_scores", "s1", P::Sa, "queries[i] keys[j]", "Attention scores",
     "attn_scores = queries @ keys.T", "tok", "tok", K::Scores, false, "", false},
    {"attn_weights", "s1", P::Sa, "attn_scores[i]", "Attention weights",
     "attn_weights = torch.softmax(attn_scores{scaled}, dim=-1)", "tok", "tok", K::Probabilities,
     false, "", false},
    {"context_vec", "s1", P::Sa, "attn_weights[i] values[:,j]",
     "Context vectors of SelfAttention_v2",
     "context_vec = attn_weights @ values  # = sa_v2(inputs), printed in §3.4.2", "tok", "out",
     K::Values, false, "", false},
    {"mask_simple", "s1", P::Sa, "", "Simple mask (lower triangle of ones)",
     "mask_simple = torch.tril(torch.ones({T}, {T}))", "tok", "tok", K::Mask, true, "", false},
    {"masked_simple", "s1", P::Sa, "attn_weights[i] mask_simple[i]",
     "Weights times the simple mask", "masked_simple = attn_weights * mask_simple", "tok", "tok",
     K::Probabilities, true, "", false},
    {"row_sums", "s1", P::Sa, "masked_simple[i]", "Row sums of the masked weights",
     "row_sums = masked_simple.sum(dim=-1, keepdim=True)", "tok", "sum", K::Values, false, "",
     false},
    {"masked_simple_norm", "s1", P::Sa, "masked_simple[i] row_sums[i]",
     "Renormalised masked weights", "masked_simple_norm = masked_simple / row_sums", "tok", "tok",
     K::Probabilities, true, "", false},
    {"mask", "s1", P::Sa, "", "Efficient mask (ones above the diagonal)",
     "mask = torch.triu(torch.ones({T}, {T}), diagonal=1)", "tok", "tok", K::Mask, true, "", false},
    {"masked", "s1", P::Sa, "attn_scores[i] mask[i]", "Scores masked with -inf",
     "masked = attn_scores.masked_fill(mask.bool(), -torch.inf)", "tok", "tok", K::Scores, true, "",
     false},
    {"attn_weights_causal", "s1", P::Sa, "masked[i]", "Causal attention weights",
     "attn_weights = torch.softmax(masked{scaled}, dim=-1)", "tok", "tok", K::Probabilities, true,
     "", false},
    {"dropout_example", "s4", P::Sa, "", "Dropout applied to a matrix of ones",
     "torch.manual_seed({seed_dropout}); dropout = torch.nn.Dropout({dropout}){eval}; "
     "dropout(torch.ones({T}, {T}))",
     "tok", "tok", K::Mask, false, "dropout_example", false},
    {"attn_weights_dropped", "s4", P::Sa, "attn_weights_causal[i] dropout_example[i]",
     "Dropout applied to the causal weights",
     "torch.manual_seed({seed_dropout}); dropout(attn_weights)", "tok", "tok", K::Probabilities,
     true, "dropout_example", false},
    {"batch", "s5", P::Sa, "inputs", "A batch of two inputs",
     "batch = torch.stack((inputs, inputs), dim=0)", "tok", "in", K::Values, false, "", false},
    {"ca.W_query", "s5", P::Sa, "", "Query weights of CausalAttention",
     "torch.manual_seed({seed_class}); ca = CausalAttention(d_in={d_in}, d_out={d_out}, "
     "context_length={context_length}, dropout={class_dropout}{ca_bias}){eval}; ca.W_query.weight",
     "out", "in", K::Weights, false, "", false},
    {"ca.W_key", "s5", P::Sa, "", "Key weights of CausalAttention", "ca.W_key.weight", "out", "in",
     K::Weights, false, "", false},
    {"ca.W_value", "s5", P::Sa, "", "Value weights of CausalAttention", "ca.W_value.weight", "out",
     "in", K::Weights, false, "", false},
    {"ca.b_query", "s5", P::Sa, "", "Query bias of CausalAttention", "ca.W_query.bias", "bias",
     "out", K::Weights, false, "", true},
    {"ca.b_key", "s5", P::Sa, "", "Key bias of CausalAttention", "ca.W_key.bias", "bias", "out",
     K::Weights, false, "", true},
    {"ca.b_value", "s5", P::Sa, "", "Value bias of CausalAttention", "ca.W_value.bias", "bias",
     "out", K::Weights, false, "", true},
    {"context_vecs", "s5", P::Sa,
     "batch ca.W_query ca.W_key ca.W_value ca.b_query ca.b_key ca.b_value",
     "Context vectors of CausalAttention", "context_vecs = ca(batch){unscaled}", "tok", "out",
     K::Values, false, "", false},
    // §3.6.1
    {"mhaw.W_query", "mha-wrapper", P::Wrapper, "", "Query weights of every head",
     "torch.manual_seed({seed_class}); mhaw = MultiHeadAttentionWrapper({d_in}, {d_out}, "
     "{context_length}, {class_dropout}, num_heads={num_heads}{ca_bias}){eval}; "
     "torch.stack([head.W_query.weight for head in mhaw.heads])",
     "out", "in", K::Weights, false, "", false},
    {"mhaw.W_key", "mha-wrapper", P::Wrapper, "", "Key weights of every head",
     "torch.stack([head.W_key.weight for head in mhaw.heads])", "out", "in", K::Weights, false, "",
     false},
    {"mhaw.W_value", "mha-wrapper", P::Wrapper, "", "Value weights of every head",
     "torch.stack([head.W_value.weight for head in mhaw.heads])", "out", "in", K::Weights, false,
     "", false},
    {"mhaw.b_query", "mha-wrapper", P::Wrapper, "", "Query biases of every head",
     "torch.stack([head.W_query.bias for head in mhaw.heads])", "head", "out", K::Weights, false,
     "", true},
    {"mhaw.b_key", "mha-wrapper", P::Wrapper, "", "Key biases of every head",
     "torch.stack([head.W_key.bias for head in mhaw.heads])", "head", "out", K::Weights, false, "",
     true},
    {"mhaw.b_value", "mha-wrapper", P::Wrapper, "", "Value biases of every head",
     "torch.stack([head.W_value.bias for head in mhaw.heads])", "head", "out", K::Weights, false,
     "", true},
    {"mhaw.context_vecs", "mha-wrapper", P::Wrapper,
     "batch mhaw.W_query mhaw.W_key mhaw.W_value mhaw.b_query mhaw.b_key mhaw.b_value",
     "Context vectors of the heads, concatenated", "context_vecs = mhaw(batch){unscaled}", "tok",
     "hout", K::Values, false, "", false},
    // §3.6.2
    {"mha.W_query", "mha", P::Mha, "", "Query weights of MultiHeadAttention",
     "torch.manual_seed({seed_class}); mha = MultiHeadAttention({d_in}, {d_out}, "
     "{context_length}, {class_dropout}, num_heads={num_heads}{ca_bias}){eval}; "
     "mha.W_query.weight",
     "out", "in", K::Weights, false, "", false},
    {"mha.W_key", "mha", P::Mha, "", "Key weights of MultiHeadAttention", "mha.W_key.weight", "out",
     "in", K::Weights, false, "", false},
    {"mha.W_value", "mha", P::Mha, "", "Value weights of MultiHeadAttention", "mha.W_value.weight",
     "out", "in", K::Weights, false, "", false},
    {"mha.b_query", "mha", P::Mha, "", "Query bias of MultiHeadAttention", "mha.W_query.bias",
     "bias", "out", K::Weights, false, "", true},
    {"mha.b_key", "mha", P::Mha, "", "Key bias of MultiHeadAttention", "mha.W_key.bias", "bias",
     "out", K::Weights, false, "", true},
    {"mha.b_value", "mha", P::Mha, "", "Value bias of MultiHeadAttention", "mha.W_value.bias",
     "bias", "out", K::Weights, false, "", true},
    {"mha.out_proj.weight", "mha", P::Mha, "", "Output projection weights", "mha.out_proj.weight",
     "out", "out", K::Weights, false, "", false},
    {"mha.out_proj.bias", "mha", P::Mha, "", "Output projection bias", "mha.out_proj.bias", "bias",
     "out", K::Weights, false, "", false},
    {"mha.queries", "mha", P::Mha, "batch mha.W_query mha.b_query", "Queries split into heads",
     "queries = mha.W_query(batch).view(2, {T}, {num_heads}, {head_dim}).transpose(1, 2)", "tok",
     "hd", K::Values, false, "", false},
    {"mha.keys", "mha", P::Mha, "batch mha.W_key mha.b_key", "Keys split into heads",
     "keys = mha.W_key(batch).view(2, {T}, {num_heads}, {head_dim}).transpose(1, 2)", "tok", "hd",
     K::Values, false, "", false},
    {"mha.values", "mha", P::Mha, "batch mha.W_value mha.b_value", "Values split into heads",
     "values = mha.W_value(batch).view(2, {T}, {num_heads}, {head_dim}).transpose(1, 2)", "tok",
     "hd", K::Values, false, "", false},
    {"mha.attn_scores", "mha", P::Mha, "mha.queries mha.keys",
     "Masked attention scores of every head",
     "attn_scores = queries @ keys.transpose(2, 3); "
     "attn_scores.masked_fill_(mha.mask.bool()[:{T}, :{T}], -torch.inf)",
     "tok", "tok", K::Scores, true, "", false},
    {"mha.attn_weights", "mha", P::Mha, "mha.attn_scores", "Attention weights of every head",
     "attn_weights = mha.dropout(torch.softmax(attn_scores{scaled}, dim=-1))", "tok", "tok",
     K::Probabilities, true, "mha.attn_weights", false},
    {"mha.context_vec", "mha", P::Mha, "mha.attn_weights mha.values",
     "The heads' context vectors side by side",
     "context_vec = (attn_weights @ values).transpose(1, 2).contiguous().view(2, {T}, {d_out})",
     "tok", "out", K::Values, false, "", false},
    {"mha.context_vecs", "mha", P::Mha, "mha.context_vec mha.out_proj.weight mha.out_proj.bias",
     "Context vectors of MultiHeadAttention",
     "context_vecs = mha.out_proj(context_vec)  # = mha(batch)", "tok", "out", K::Values, false, "",
     false},
    // The bonus notebook's implementations (bonus.hpp, docs/bonus.md), after the chapter.
    // ch03/02.3 MultiHeadAttentionCombinedQKV
    {"qkv.weight", "bonus-qkv", P::Qkv, "", "Combined query, key and value weights",
     "torch.manual_seed({seed_class}); mha_combined_qkv = MultiHeadAttentionCombinedQKV("
     "d_in={d_in}, d_out={d_out}, num_heads={num_heads}, context_length={context_length}, "
     "dropout={class_dropout}, qkv_bias={qkv_bias}){eval}; mha_combined_qkv.qkv.weight",
     "qkv", "in", K::Weights, false, "", false},
    {"qkv.bias", "bonus-qkv", P::Qkv, "", "Combined bias", "mha_combined_qkv.qkv.bias", "bias",
     "qkv", K::Weights, false, "", true},
    {"qkv.proj.weight", "bonus-qkv", P::Qkv, "", "Output projection weights",
     "mha_combined_qkv.proj.weight", "out", "out", K::Weights, false, "", false},
    {"qkv.proj.bias", "bonus-qkv", P::Qkv, "", "Output projection bias",
     "mha_combined_qkv.proj.bias", "bias", "out", K::Weights, false, "", false},
    {"qkv.qkv", "bonus-qkv", P::Qkv, "batch qkv.weight qkv.bias",
     "Queries, keys and values in one product", "qkv = mha_combined_qkv.qkv(batch)", "tok", "qkv",
     K::Values, false, "", false},
    {"qkv.context_vecs", "bonus-qkv", P::Qkv,
     "batch qkv.weight qkv.bias qkv.proj.weight qkv.proj.bias",
     "Context vectors of MultiHeadAttentionCombinedQKV",
     "context_vecs_qkv = mha_combined_qkv(batch){unscaled}", "tok", "out", K::Values, false, "",
     false},
    // ch03/02.4 MHAEinsum
    {"einsum.W_query", "bonus-einsum", P::Einsum, "", "Query weights of MHAEinsum (d_in × d_out)",
     "torch.manual_seed({seed_class}); mha_einsum = MHAEinsum(d_in={d_in}, d_out={d_out}, "
     "context_length={context_length}, dropout={class_dropout}, num_heads={num_heads}, "
     "qkv_bias={qkv_bias}){eval}; mha_einsum.W_query",
     "in", "out", K::Weights, false, "", false},
    {"einsum.W_key", "bonus-einsum", P::Einsum, "", "Key weights of MHAEinsum", "mha_einsum.W_key",
     "in", "out", K::Weights, false, "", false},
    {"einsum.W_value", "bonus-einsum", P::Einsum, "", "Value weights of MHAEinsum",
     "mha_einsum.W_value", "in", "out", K::Weights, false, "", false},
    {"einsum.bias_q", "bonus-einsum", P::Einsum, "", "Query bias of MHAEinsum", "mha_einsum.bias_q",
     "bias", "out", K::Weights, false, "", true},
    {"einsum.bias_k", "bonus-einsum", P::Einsum, "", "Key bias of MHAEinsum", "mha_einsum.bias_k",
     "bias", "out", K::Weights, false, "", true},
    {"einsum.bias_v", "bonus-einsum", P::Einsum, "", "Value bias of MHAEinsum", "mha_einsum.bias_v",
     "bias", "out", K::Weights, false, "", true},
    {"einsum.out_proj.weight", "bonus-einsum", P::Einsum, "", "Output projection weights",
     "mha_einsum.out_proj.weight", "out", "out", K::Weights, false, "", false},
    {"einsum.out_proj.bias", "bonus-einsum", P::Einsum, "", "Output projection bias",
     "mha_einsum.out_proj.bias", "bias", "out", K::Weights, false, "", false},
    {"einsum.scores", "bonus-einsum", P::Einsum,
     "batch einsum.W_query einsum.W_key einsum.bias_q einsum.bias_k",
     "Scaled, then masked scores of every head",
     "Q = (torch.einsum('bnd,do->bno', batch, mha_einsum.W_query){einsum_bq})"
     ".view(2, {T}, {num_heads}, {head_dim}).transpose(1, 2)\n"
     "K = (torch.einsum('bnd,do->bno', batch, mha_einsum.W_key){einsum_bk})"
     ".view(2, {T}, {num_heads}, {head_dim}).transpose(1, 2)\n"
     "scores = torch.einsum('bhnd,bhmd->bhnm', Q, K){einsum_scaled}\n"
     "scores = scores.masked_fill(mha_einsum.mask[:{T}, :{T}].bool(), -torch.inf)",
     "tok", "tok", K::Scores, true, "", false},
    {"einsum.context_vecs", "bonus-einsum", P::Einsum,
     "batch einsum.W_query einsum.W_key einsum.W_value einsum.bias_q einsum.bias_k "
     "einsum.bias_v einsum.out_proj.weight einsum.out_proj.bias",
     "Context vectors of MHAEinsum", "context_vecs_einsum = mha_einsum(batch)", "tok", "out",
     K::Values, false, "", false},
    {"einsum.copied.context_vecs", "bonus-einsum", P::Einsum,
     "batch mha.W_query mha.W_key mha.W_value mha.b_query mha.b_key mha.b_value "
     "mha.out_proj.weight mha.out_proj.bias",
     "MHAEinsum carrying MultiHeadAttention's weights",
     "torch.manual_seed({seed_class}); mha_einsum = MHAEinsum(d_in={d_in}, d_out={d_out}, "
     "context_length={context_length}, dropout={class_dropout}, num_heads={num_heads}, "
     "qkv_bias={qkv_bias}){eval}\n"
     "with torch.no_grad():  # as the notebook's test copies them\n"
     "    mha_einsum.W_query.copy_(mha.W_query.weight.T)\n"
     "    mha_einsum.W_key.copy_(mha.W_key.weight.T)\n"
     "    mha_einsum.W_value.copy_(mha.W_value.weight.T){einsum_copy_bias}\n"
     "    mha_einsum.out_proj.weight.copy_(mha.out_proj.weight)\n"
     "    mha_einsum.out_proj.bias.copy_(mha.out_proj.bias)\n"
     "context_vecs_copied = mha_einsum(batch)",
     "tok", "out", K::Values, false, "", false},
    // ch03/02.5 and ch03/02.6 scaled_dot_product_attention: the blocked pass, written out
    {"flash.running_max", "bonus-flash", P::Flash, "qkv.qkv", "Running max after each key block",
     "torch.manual_seed({seed_class}); mha_flash = MHAPyTorchScaledDotProduct(d_in={d_in}, "
     "d_out={d_out}, num_heads={num_heads}, context_length={context_length}, "
     "dropout={class_dropout}, qkv_bias={qkv_bias})\n"
     "queries, keys, values = mha_flash.qkv(batch).view(2, {T}, 3, {num_heads}, {head_dim})"
     ".permute(2, 0, 3, 1, 4)\n"
     "context_vec, running_max, running_sum = flash_attention(queries, keys, values, "
     "block={block}{flash_scale})\n"
     "running_max",
     "tok", "block", K::Scores, false, "", false},
    {"flash.running_sum", "bonus-flash", P::Flash, "qkv.qkv", "Running sum after each key block",
     "running_sum", "tok", "block", K::Values, false, "", false},
    {"flash.context_vec", "bonus-flash", P::Flash, "qkv.qkv", "The heads' outputs, divided last",
     "context_vec = context_vec.transpose(1, 2).contiguous().view(2, {T}, {d_out})", "tok", "out",
     K::Values, false, "", false},
    {"flash.context_vecs", "bonus-flash", P::Flash,
     "flash.context_vec qkv.proj.weight qkv.proj.bias", "Context vectors of the blocked pass",
     "context_vecs_flash = mha_flash.proj(context_vec)  # = mha_flash(batch)", "tok", "out",
     K::Values, false, "", false},
    {"flash.difference", "bonus-flash", P::Flash, "flash.context_vecs qkv.context_vecs",
     "Blocked pass minus the plain softmax", "difference = context_vecs_flash - context_vecs_qkv",
     "tok", "out", K::Values, false, "", false},
    // ch03/02.7 and ch03/02.8 nn.MultiheadAttention
    {"torchmha.in_proj_weight", "bonus-torchmha", P::TorchMha, "",
     "in_proj_weight of nn.MultiheadAttention",
     "torch.manual_seed({seed_class}); mha_pytorch_class = MHAPyTorchClass(d_in={d_in}, "
     "d_out={d_out}, num_heads={num_heads}, context_length={context_length}, "
     "dropout={class_dropout}, qkv_bias=False){eval}; "
     "mha_pytorch_class.multihead_attn.in_proj_weight",
     "qkv", "in", K::Weights, false, "", false},
    {"torchmha.out_proj.weight", "bonus-torchmha", P::TorchMha, "",
     "out_proj weights of nn.MultiheadAttention",
     "mha_pytorch_class.multihead_attn.out_proj.weight", "out", "out", K::Weights, false, "",
     false},
    {"torchmha.proj.weight", "bonus-torchmha", P::TorchMha, "", "proj weights of MHAPyTorchClass",
     "mha_pytorch_class.proj.weight", "out", "out", K::Weights, false, "", false},
    {"torchmha.proj.bias", "bonus-torchmha", P::TorchMha, "", "proj bias of MHAPyTorchClass",
     "mha_pytorch_class.proj.bias", "bias", "out", K::Weights, false, "", false},
    {"torchmha.context_vecs", "bonus-torchmha", P::TorchMha,
     "batch torchmha.in_proj_weight torchmha.out_proj.weight torchmha.proj.weight "
     "torchmha.proj.bias",
     "Context vectors of MHAPyTorchClass",
     "context_vecs_torch = mha_pytorch_class(batch)  # need_weights=False: the same in 1.13", "tok",
     "out", K::Values, false, "", false},
    {"torchmha.attn_weights", "bonus-torchmha", P::TorchMha, "batch torchmha.in_proj_weight",
     "Attention weights averaged over the heads",
     "torch.manual_seed({seed_class}); mha_pytorch_class = MHAPyTorchClass(d_in={d_in}, "
     "d_out={d_out}, num_heads={num_heads}, context_length={context_length}, "
     "dropout={class_dropout}, qkv_bias=False){eval}\n"
     "attn_weights = mha_pytorch_class.multihead_attn(batch, batch, batch, "
     "attn_mask=mha_pytorch_class.mask[:{T}, :{T}], need_weights=True)[1]",
     "tok", "tok", K::Probabilities, true, "", false},
    {"torchmha.copied.context_vecs", "bonus-torchmha", P::TorchMha,
     "batch mha.W_query mha.W_key mha.W_value mha.out_proj.weight mha.out_proj.bias",
     "nn.MultiheadAttention carrying MultiHeadAttention's weights",
     "torch.manual_seed({seed_class}); mha_pytorch_class = MHAPyTorchClass(d_in={d_in}, "
     "d_out={d_out}, num_heads={num_heads}, context_length={context_length}, "
     "dropout={class_dropout}, qkv_bias=False){eval}\n"
     "with torch.no_grad():\n"
     "    mha_pytorch_class.multihead_attn.in_proj_weight.copy_(torch.cat("
     "[mha.W_query.weight, mha.W_key.weight, mha.W_value.weight]))\n"
     "    mha_pytorch_class.multihead_attn.out_proj.weight.copy_(mha.out_proj.weight)\n"
     "    mha_pytorch_class.proj.weight.copy_(torch.eye({d_out}))\n"
     "    mha_pytorch_class.proj.bias.copy_(mha.out_proj.bias)\n"
     "context_vecs_copied = mha_pytorch_class(batch)",
     "tok", "out", K::Values, false, "", false},
    // Beyond the chapter: rasbt/LLMs-from-scratch ch04/03_kv-cache (kv_cache.hpp). The batch
    // fed one token per step, every step's rows stacked: "step" rows are step t's new row.
    {"kv.queries", "kv", P::Kv, "batch mha.W_query mha.b_query", "Each step's new query",
     "torch.manual_seed({seed_class}); kv = MultiHeadAttention({d_in}, {d_out}, "
     "{context_length}, 0.0, num_heads={num_heads}{ca_bias}).eval()  # generating: no dropout\n"
     "steps = [batch[:, t:t + 1] for t in range({T})]  # step t feeds token t alone\n"
     "q_new = [kv.W_query(x).view(2, 1, {num_heads}, {head_dim}).transpose(1, 2) for x in steps]\n"
     "kv_queries = torch.cat(q_new, dim=2)  # row t: step t's query",
     "step", "hd", K::Values, false, "", false},
    {"kv.cache_k", "kv", P::Kv, "batch mha.W_key mha.b_key", "The cache of keys",
     "cache_k, k_steps = None, []\n"
     "for x in steps:  # torch.cat appends the new token's key: tokens 0..t after step t\n"
     "    keys_new = kv.W_key(x).view(2, 1, {num_heads}, {head_dim})\n"
     "    cache_k = keys_new if cache_k is None else torch.cat([cache_k, keys_new], dim=1)\n"
     "    k_steps.append(cache_k.transpose(1, 2))\n"
     "cache_k = k_steps[-1]  # after the last step",
     "tok", "hd", K::Values, false, "", false},
    {"kv.cache_v", "kv", P::Kv, "batch mha.W_value mha.b_value", "The cache of values",
     "cache_v, v_steps = None, []\n"
     "for x in steps:\n"
     "    values_new = kv.W_value(x).view(2, 1, {num_heads}, {head_dim})\n"
     "    cache_v = values_new if cache_v is None else torch.cat([cache_v, values_new], dim=1)\n"
     "    v_steps.append(cache_v.transpose(1, 2))\n"
     "cache_v = v_steps[-1]  # after the last step",
     "tok", "hd", K::Values, false, "", false},
    {"kv.mask", "kv", P::Kv, "", "The mask's row at each step",
     "mask_rows = [kv.mask.bool()[t:t + 1, :t + 1] for t in range({T})]  # step t's slice\n"
     "kv_mask = torch.cat([torch.nn.functional.pad(m, (0, {T} - 1 - t)) "
     "for t, m in enumerate(mask_rows)])",
     "step", "tok", K::Mask, true, "", false},
    {"kv.attn_scores", "kv", P::Kv, "kv.queries kv.cache_k kv.mask",
     "The new row of scores at each step",
     "s_steps = [q @ keys.transpose(2, 3) for q, keys in zip(q_new, k_steps)]  # (2, H, 1, t + 1)\n"
     "for s, m in zip(s_steps, mask_rows): s.masked_fill_(m, -torch.inf)  # fills nothing\n"
     "kv_attn_scores = torch.cat([torch.nn.functional.pad(s, (0, {T} - 1 - t), "
     "value=-torch.inf) for t, s in enumerate(s_steps)], dim=2)",
     "step", "tok", K::Scores, true, "", false},
    {"kv.attn_weights", "kv", P::Kv, "kv.attn_scores", "The new row of weights at each step",
     "w_steps = [torch.softmax(s{scaled}, dim=-1) for s, keys in zip(s_steps, k_steps)]\n"
     "kv_attn_weights = torch.cat([torch.nn.functional.pad(w, (0, {T} - 1 - t)) "
     "for t, w in enumerate(w_steps)], dim=2)",
     "step", "tok", K::Probabilities, true, "", false},
    {"kv.context_vec", "kv", P::Kv, "kv.attn_weights kv.cache_v",
     "The new context row at each step, heads side by side",
     "c_steps = [(w @ v).transpose(1, 2).contiguous().view(2, 1, {d_out}) "
     "for w, v in zip(w_steps, v_steps)]\n"
     "kv_context_vec = torch.cat(c_steps, dim=1)",
     "step", "out", K::Values, false, "", false},
    {"kv.context_vecs", "kv", P::Kv, "kv.context_vec mha.out_proj.weight mha.out_proj.bias",
     "Every step's output, stacked",
     "kv_context_vecs = torch.cat([kv.out_proj(c) for c in c_steps], dim=1)  # vs mha(batch)",
     "step", "out", K::Values, false, "", false},
};

// The book's section numbers and titles; each intro in our words.
const std::vector<SectionInfo> kSections = {
    {"simple-one", "3.3.1", "A simple self-attention mechanism without trainable weights",
     "One token, the query, scores every token by a dot product; normalised, the scores weight "
     "a sum of the embeddings: the query's context vector."},
    {"simple-all", "3.3.2", "Computing attention weights for all input tokens",
     "The same for every token at once, as two matrix products."},
    {"v1-steps", "3.4.1", "Computing the attention weights step by step",
     "Three random matrices project each embedding to a query, a key and a value; scores are "
     "query-key products, scaled by √d_k before the softmax."},
    {"v1-class", "3.4.2", "Implementing a compact self-attention Python class",
     "SelfAttention_v1 packs the steps into a module; SelfAttention_v2 draws its weights with "
     "nn.Linear, and SelfAttention_v1 given them computes the same numbers (exercise 3.1)."},
    {"s1", "3.5.1", "Applying a causal attention mask",
     "§3.4.2's SelfAttention_v2 reused: its weights, queries, keys, scores and weights, where "
     "every token still sees the later ones. The simple mask zeroes the weights on later tokens "
     "(hatched) and rescales each row to sum to 1; the efficient one puts −∞ on future scores "
     "before one softmax, as e^−∞ = 0."},
    {"s4", "3.5.2", "Masking additional attention weights with dropout",
     "In training, dropout zeroes a random share p of the weights (marked ✗) and scales up the "
     "rest; eval mode turns it off."},
    {"s5", "3.5.3", "Implementing a compact causal attention class",
     "CausalAttention packs the steps above into one module that works on a batch of "
     "sequences."},
    {"mha-wrapper", "3.6.1", "Stacking multiple single-head attention layers",
     "Several CausalAttention modules side by side, each with its own weights, their outputs "
     "concatenated."},
    {"mha", "3.6.2", "Implementing multi-head attention with weight splits",
     "One wide projection split into heads by view and transpose: the heads run as one batched "
     "product, then out_proj mixes them."},
    // The bonus notebook (mha-implementations.ipynb), numbered after its headings.
    {"bonus-qkv", "ch03/02.3", "An alternative multi-head attention with combined weights",
     "Beyond the chapter (the book's ch03/02_bonus_efficient-multihead-attention): other "
     "implementations of §3.6.2's module. One nn.Linear(d_in, 3·d_out) makes "
     "queries, keys and values in one product; with the same seed it draws §3.6.2's weights "
     "and computes its numbers bit for bit. One product instead of three reads the inputs "
     "once: the same arithmetic, a little less memory traffic (docs/bonus.md has the times)."},
    {"bonus-einsum", "ch03/02.4", "Multi-head attention with Einsum",
     "torch.einsum for every product. Its own initialisation gives other weights; given "
     "§3.6.2's, it computes the same bits. einsum permutes its operands into the same bmm: "
     "the same arithmetic, plus the permutations' copies."},
    {"bonus-flash", "ch03/02.5", "PyTorch's scaled dot product attention and FlashAttention",
     "scaled_dot_product_attention (PyTorch 2.0+) never holds the T × T weights: it walks the "
     "keys in blocks with a running max and sum. Written out here; it differs from the plain "
     "softmax by rounding only. No T × T tensor is written and read back, and key blocks after "
     "the diagonal are skipped: less memory traffic, the same products."},
    {"bonus-torchmha", "ch03/02.7", "Using PyTorch's torch.nn.MultiheadAttention",
     "PyTorch's own module, wrapped as the notebook does (it needs d_in = d_out and no "
     "qkv_bias). Given §3.6.2's weights it scales the queries before the product. Slower: it "
     "also averages the T × T weights over the heads, and the wrapper adds a second "
     "projection."},
    {"kv", "ch04/03", "Generating with a KV cache",
     "Beyond the chapter (the book's ch04/03_kv-cache): a model generates one token at a time. "
     "With a cache, each step computes the new token's query, key and value only, keeps every "
     "key and value, and computes one new row of attention: the rows of the full causal pass, "
     "without recomputing the earlier ones. Eval mode: no dropout."},
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

const char* to_string(Part part) {
  static const char* const kNames[kParts] = {
      "inputs", "simple", "v1", "sa", "wrapper", "mha", "qkv", "einsum", "flash", "torchmha", "kv"};
  return kNames[static_cast<int>(part)];
}

std::vector<Operand> operands(const StageInfo& stage) {
  std::vector<Operand> out;
  for (std::string_view rest = stage.operands; !rest.empty();) {
    const std::string_view word = rest.substr(0, rest.find(' '));
    rest.remove_prefix(std::min(word.size() + 1, rest.size()));
    const std::size_t open = word.find('[');
    if (open == std::string_view::npos) {
      out.push_back({word, "", 0});
    } else {  // id[i], id[j], id[:,i] or id[:,j]
      const bool column = word[open + 1] == ':';
      out.push_back({word.substr(0, open), column ? "col" : "row", word[word.size() - 2]});
    }
  }
  return out;
}

Limits limits() { return {kMaxTokens, kMaxDim, static_cast<int>(kMaxTokenLength), 32}; }

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
    json::Value reads;
    reads.kind = json::Value::Kind::Array;
    for (const Operand& o : operands(s)) {
      json::Value r;
      r.kind = json::Value::Kind::Object;
      r.members = {{"id", make_string(std::string(o.id))},
                   {"axis", make_string(o.axis)},
                   {"index", make_string(o.index ? std::string(1, o.index) : "")}};
      reads.items.push_back(std::move(r));
    }
    v.members = {{"id", make_string(s.id)},
                 {"section", make_string(s.section)},
                 {"part", make_string(to_string(s.part))},
                 {"operands", std::move(reads)},
                 {"title", make_string(s.title)},
                 {"code", make_string(s.code)},
                 {"rows", make_string(s.rows)},
                 {"cols", make_string(s.cols)},
                 {"kind", make_string(to_string(s.kind))},
                 {"causal", make_bool(s.causal)},
                 {"dropout", make_string(s.dropout)},
                 {"bias", make_bool(s.bias)}};
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
