// The bonus notebook's implementations of causal multi-head attention
// (rasbt/LLMs-from-scratch, ch03/02_bonus_efficient-multihead-attention/mha-implementations.ipynb),
// each built as the notebook builds it (seed, init, draw order) and computed through the
// chapter's MultiHeadAttention passes where PyTorch 1.13 computes the same arithmetic; and the
// blocked pass of scaled_dot_product_attention (PyTorch 2.0+), written out (docs/bonus.md).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "config.hpp"
#include "generator.hpp"
#include "nn.hpp"
#include "stages.hpp"
#include "tensor.hpp"

namespace ca {

// §3: MultiHeadAttentionCombinedQKV(d_in, d_out, num_heads, context_length, dropout, qkv_bias):
// one nn.Linear(d_in, 3 * d_out) (rows: queries', keys', values'), then proj.
struct CombinedQKV {
  Linear qkv, proj;
  CombinedQKV(int d_in, int d_out, bool qkv_bias, Generator& gen);
  // The same computation as §3.6.2's module carrying qkv's three row blocks as W_query, W_key,
  // W_value (a column of x @ W^T is the same dot product in one product or three).
  MultiHeadAttention as_mha(const Config& c) const;
};

// §4: MHAEinsum: three nn.Parameter(torch.randn(d_in, d_out)), zero biases, out_proj, then
// reset_parameters: kaiming_uniform_(a=sqrt(5)) on each (d_in, d_out) weight, whose fan_in is
// its size(1) = d_out, and U(±1/sqrt(d_out)) biases.
struct MHAEinsum {
  Tensor W_query, W_key, W_value;                // (d_in, d_out), used as x @ W
  std::optional<Tensor> bias_q, bias_k, bias_v;  // (d_out) when qkv_bias
  Linear out_proj;
  MHAEinsum(int d_in, int d_out, bool qkv_bias, Generator& gen);
  // einsum("bnd,do->bno") is x @ W: nn.Linear with W^T, the same sums in the same order.
  MultiHeadAttention as_mha(const Config& c) const;
};

// §7, §8: MHAPyTorchClass: nn.MultiheadAttention(d_out, num_heads, bias=False,
// batch_first=True) (its out_proj drawn first, then xavier_uniform_ on in_proj_weight), then
// proj = nn.Linear(d_out, d_out). PyTorch 1.13 takes the same path with need_weights True or
// False (an attn_mask rules its fast path out): q / sqrt(hd), baddbmm with the -inf mask,
// softmax, bmm, out_proj, and the weights averaged over the heads.
struct TorchMHA {
  Tensor in_proj_weight;  // (3 * d_out, d_out)
  Linear out_proj, proj;  // out_proj without bias
  TorchMHA(int d_out, Generator& gen);
  // The chapter's module's weights copied in: in_proj = cat(W_query, W_key, W_value), out_proj's
  // weight, proj = identity plus out_proj's bias.
  explicit TorchMHA(const MultiHeadAttention& mha);
  MultiHeadAttention as_mha(const Config& c) const;  // up to out_proj, prescaled queries
};
// attn_output_weights.view(B, H, T, T).sum(dim=1) / H: heads added in order.
Tensor average_heads(const Tensor& weights);

// §5, §6: the blocked pass of scaled_dot_product_attention(is_causal=True) as the
// memory-efficient and FlashAttention kernels do it, per (batch, head), per block of `block`
// queries, over the key blocks up to the diagonal: scores of the block (scaled, the diagonal
// block masked), a running max m, p = exp(s - m_new), alpha = exp(m - m_new), running sum
// l = l * alpha + sum(p), acc = acc * alpha + p @ v_block; out = acc / l. Every step is one
// float32 PyTorch op (the notebook's flash_attention), so the notebook reproduces its bits.
struct FlashTrace {
  Tensor running_max, running_sum;  // (B, H, T, blocks): after each key block (carried past
                                    // the diagonal)
  Tensor context_vec;               // (B, T, d_out): heads side by side
};
// qkv (B, T, 3 * D): the combined projection (queries, keys, values, H heads each).
FlashTrace flash_attention(const Tensor& qkv, int H, int block, bool scale);
// Blocks of ceil(T / 4) tokens: at most 4 blocks, so that a short sequence shows several.
int flash_block(int T);
int flash_blocks(int T);

// Why a part cannot run for this configuration ("" when it can): §3.6.2's divisibility for
// every module with heads; nn.MultiheadAttention also needs d_in = d_out (its embed_dim) and
// no qkv_bias (the notebook's add_bias_kv=True appends a learned key and value).
std::string part_error(Part part, const Config& c);
// Leading dimensions of a bonus stage: 0, 1 (batch) or 2 (batch, head).
int bonus_leading(std::string_view id);

}  // namespace ca
