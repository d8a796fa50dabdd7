// Generation with a KV cache (rasbt/LLMs-from-scratch, ch04/03_kv-cache) on the chapter's
// MultiHeadAttention: the batch is fed one token per step, as a model generating text feeds
// the token it just produced. Each step projects the new token only, appends its key and value
// to the cache, and computes one new row of scores, weights and context against the cache.
//
// Every step follows the bonus code's PyTorch ops in eval mode (no dropout) with their bits:
// the one-row products are the same in-order sums as the full pass's rows, but the softmax
// sums a row of t + 1 values, not a row of T with +0 after the diagonal. ATen adds fewer than
// 8 values in order and 8 or more in lanes (reduce::vec_sum), so with T >= 8 the rows of 3 to 7
// values (steps 2 to 6) may differ from mha.attn_weights in the last bit; with T < 8, and at
// every other step, they are equal. tests/golden/generate.py asserts the same of PyTorch.
#pragma once

#include "nn.hpp"
#include "tensor.hpp"

namespace ca {

// Which stacked tensors generate_with_cache keeps (the (B, H, T, T) ones are 100 MB each at
// GPT-2's size); the context is always computed.
struct KvKeep {
  bool queries = true, cache = true, scores = true, weights = true, context_vec = true;
};

// Every step's tensors, stacked over the steps (hd = head_dim, t = the step, 0-based):
struct KvTrace {
  Tensor queries;           // (B, H, T, hd): row t is step t's new query (not cached)
  Tensor cache_k, cache_v;  // (B, H, T, hd): the cache after the last step; after step t, rows
                            // 0..t (row t appended by step t)
  Tensor attn_scores;       // (B, H, T, T): row t is step t's t + 1 scores, then -inf
  Tensor attn_weights;      // (B, H, T, T): row t is step t's softmax of t + 1, then +0
  Tensor context_vec;       // (B, T, d_out): row t is step t's heads side by side
  Tensor context_vecs;      // (B, T, d_out): out_proj of each step's row
};

// x (B, T, d_in), one token per step through `mha` (eval mode whatever mha.training says).
// Throws std::invalid_argument as MultiHeadAttention::forward does.
KvTrace generate_with_cache(const MultiHeadAttention& mha, const Tensor& x, KvKeep keep = {});

// mask.bool()[t : t + 1, : t + 1] stacked, padded with 0 to (T, T): the rows the cached steps
// slice from the causal mask. Every cell is 0: a new token's row ends at the diagonal.
Tensor kv_mask_rows(int T);

}  // namespace ca
