// The book's modules: nn.Linear with PyTorch's initialisation, nn.Dropout, SelfAttention_v1,
// SelfAttention_v2, CausalAttention, MultiHeadAttentionWrapper and MultiHeadAttention. Constructors
// draw from the generator in PyTorch's order.
#pragma once

#include <optional>
#include <vector>

#include "generator.hpp"
#include "tensor.hpp"

namespace ca {

// nn.Linear(in_features, out_features, bias).
struct Linear {
  Tensor weight;  // (out, in): kaiming_uniform_(a=sqrt(5)) = U(-1/sqrt(in), 1/sqrt(in))
  std::optional<Tensor> bias;  // (out): U(-1/sqrt(in), 1/sqrt(in)), drawn after the weight

  Linear(int in_features, int out_features, bool with_bias, Generator& gen);
  // Given weights, drawing nothing (copied weights, slices of a combined projection).
  Linear(Tensor weight_, std::optional<Tensor> bias_)
      : weight(std::move(weight_)), bias(std::move(bias_)) {}
  // (..., in) -> (..., out)
  Tensor operator()(const Tensor& x) const;
};

// nn.Dropout(p) applied to x: identity in eval mode or for p = 0 (no draw), zeros for p = 1
// (no draw), otherwise x * bernoulli(1 - p) / (1 - p).
Tensor dropout(const Tensor& x, double p, bool train, Generator& gen, DropoutRng rng);

// SelfAttention_v1(d_in, d_out) of §3.4.2: three torch.nn.Parameter(torch.rand(d_in, d_out)),
// query first, used as x @ W (the transpose of nn.Linear's layout).
struct SelfAttentionV1 {
  Tensor W_query, W_key, W_value;  // (d_in, d_out)

  SelfAttentionV1(int d_in, int d_out, Generator& gen);
  // Exercise 3.1: carrying given (d_in, d_out) weights, e.g. SelfAttention_v2's transposed.
  SelfAttentionV1(Tensor w_query, Tensor w_key, Tensor w_value);
  // x (T, d_in) -> context (T, d_out)
  Tensor forward(const Tensor& x, bool scale = true) const;
};

// y (T, n) = x (T, k) @ w (k, n), a BLAS-order matmul (torch.mm).
Tensor matmul(const Tensor& x, const Tensor& w);

// SelfAttention_v2(d_in, d_out, qkv_bias) of §3.4.
struct SelfAttentionV2 {
  Linear W_query, W_key, W_value;

  SelfAttentionV2(int d_in, int d_out, bool qkv_bias, Generator& gen);
  // x (T, d_in) -> context (T, d_out); `scale` divides the scores by sqrt(d_k).
  Tensor forward(const Tensor& x, bool scale = true) const;
};

// How the causal attention of `pairs` (batch, head) pairs of (T, T) scores, head size hd,
// splits over the threads (parallel.hpp): `pairs` workers, a pair each at a time with a (T, T)
// of its own; or one pair at a time, its rows and then its context's columns over `within`
// workers that share one (T, T). {1, 1}: on this thread, where a split would not pay.
struct CausalSplit {
  int pairs, within;
};
// Below this many multiply-adds a causal pass (or a pair of it) stays on one thread.
constexpr double kCausalSplitWork = double(1 << 22);
#ifdef __EMSCRIPTEN__
inline CausalSplit causal_split(double, double, double) { return {1, 1}; }  // no threads
#else
CausalSplit causal_split(double pairs, double T, double hd);
#endif
// A pair's blocks when `within` workers share it: its scores' columns in blocks of
// `score_cols` (about 2 per worker; block i is columns [i * score_cols, ...) of the rows from
// i * score_cols on: the largest first), its rows (the softmax) in `blocks` blocks of `rows`
// (whole tiles, about 4 per worker; block i is rows [(blocks - 1 - i) * rows, ...): the longest
// first), then its context's columns in blocks of `cols`.
struct CausalBlocks {
  int score_cols, rows, blocks, cols;
};
CausalBlocks causal_blocks(int T, int hd, int within);

// Buffers a module's forward reuses from call to call (weights, dropout noise; a (T, T) of
// scores turned into weights in place, per worker thread when the pairs split); a copy of the
// module starts with empty ones.
struct AttentionScratch {
  std::vector<float> weights;
  std::vector<unsigned char> full_rows;
  Tensor noise;
#ifndef __EMSCRIPTEN__
  // Natively, forward's projections (and MultiHeadAttention's context before out_proj), kept
  // for the next call: fresh, they were 3,040 page faults per (1, 1024, 768) forward (glibc
  // gives the freed 12 MB back). WASM's memory is never given back: fresh ones fault nothing
  // there, and kept ones (one path for both) cost 142 B of the module's gzip (the wasm 10 B
  // smaller, but with 3 more functions most calls' indices move: deflated, 141 B larger).
  Tensor queries, keys, values, context;
#endif
  AttentionScratch() = default;
  AttentionScratch(const AttentionScratch&) {}
  AttentionScratch& operator=(const AttentionScratch&) { return *this; }
  // Gives the memory back (a wrapper's heads run once each: 128 heads kept 1 GiB at T = 1024).
  void release() {
    std::vector<float>().swap(weights);
    std::vector<unsigned char>().swap(full_rows);
    noise = Tensor();
#ifndef __EMSCRIPTEN__
    for (Tensor* t : {&queries, &keys, &values, &context}) *t = Tensor();  // moved: freed
#endif
  }
};

// CausalAttention(d_in, d_out, context_length, dropout, qkv_bias) of §3.5.
struct CausalAttention {
  Linear W_query, W_key, W_value;
  double dropout_p;
  // PyTorch's module also holds a (context_length, context_length) mask buffer,
  // triu(ones, diagonal=1); the causal path never reads it (it skips the masked triangle), so
  // none is allocated: causal_mask(context_length) makes it.
  int context_length;
  bool training = true;
  bool scale = true;
  DropoutRng rng = DropoutRng::Default;

  mutable AttentionScratch scratch;

  CausalAttention(int d_in, int d_out, int context_length, double dropout, bool qkv_bias,
                  Generator& gen);
  // x (B, T, d_in) -> context (B, T, d_out). Throws std::invalid_argument when
  // T > context_length (PyTorch would fail on the mask slice) or d_in does not match.
  Tensor forward(const Tensor& x, Generator& gen) const;
};

// MultiHeadAttentionWrapper(d_in, d_out, context_length, dropout, num_heads, qkv_bias) of
// §3.6.1: H CausalAttention heads built one after the other from one generator.
struct MultiHeadAttentionWrapper {
  std::vector<CausalAttention> heads;

  MultiHeadAttentionWrapper(int d_in, int d_out, int context_length, double dropout, int num_heads,
                            bool qkv_bias, Generator& gen);
  // x (B, T, d_in) -> (B, T, H * d_out): torch.cat([head(x) for head in heads], dim=-1),
  // the heads' dropout draws in head order.
  Tensor forward(const Tensor& x, Generator& gen) const;
};

// (B, T, H * hd) -> (B, H, T, hd): view(b, T, H, hd).transpose(1, 2), made contiguous.
Tensor split_heads(const Tensor& x, int H);

// Which intermediates MultiHeadAttention::trace keeps: a page asking for the weights of a
// GPT-2-size module need not hold its (B, H, T, T) scores too (100 MB at B = 2, H = 12, T = 1024).
struct TraceKeep {
  bool heads = true;    // queries, keys, values split into heads
  bool scores = true;   // attn_scores
  bool weights = true;  // attn_weights
  bool context = true;  // context_vec and context_vecs (else only what is kept above is computed)
  // With weights: those of the first n (batch, head) pairs only, (1, n, T, T), the others
  // computed as when not kept (one (T, T) per worker); -1: every pair's.
  int weight_pairs = -1;
};

// A share of MultiHeadAttention's work: batch elements [b0, b1) and heads [h0, h1), all of them
// when b1 or h1 is -1 (web/page/pool.js splits exercise 3.3 over Workers by shards).
struct Shard {
  int b0 = 0, b1 = -1, h0 = 0, h1 = -1;
  // mha.attn_weights of batch element b0's heads [h0, h0 + n) alone, (1, n, T, T), the rest
  // of the shard computed without keeping its weights (a Worker's shard also brings the head
  // a page shows first); -1: every head of the shard.
  int weight_heads = -1;
};

// MultiHeadAttention(d_in, d_out, context_length, dropout, num_heads, qkv_bias) of §3.6.2.
struct MultiHeadAttention {
  Linear W_query, W_key, W_value, out_proj;  // out_proj: nn.Linear(d_out, d_out), with bias
  int num_heads, head_dim;
  double dropout_p;
  int context_length;  // no mask buffer: see CausalAttention
  bool training = true;
  bool scale = true;
  // nn.MultiheadAttention's order (PyTorch 1.13): the queries divided by sqrt(head_dim) before
  // the product, q / sqrt(hd) @ k^T, instead of the scores after it.
  bool prescale = false;
  DropoutRng rng = DropoutRng::Default;

  mutable AttentionScratch scratch;

  // Every intermediate of forward, in the book's names (hd = head_dim = d_out / H); those not
  // kept are left empty.
  struct Trace {
    Tensor queries, keys, values;  // (B, H, T, hd): view(b, T, H, hd).transpose(1, 2)
    Tensor attn_scores;            // (B, H, T, T), masked with -inf in place
    Tensor attn_weights;           // (B, H, T, T), softmaxed, then dropout
    Tensor context_vec;            // (B, T, d_out): heads side by side, before out_proj
    Tensor context_vecs;           // (B, T, d_out) = out_proj(context_vec)
  };

  // Throws std::invalid_argument unless d_out % num_heads == 0.
  MultiHeadAttention(int d_in, int d_out, int context_length, double dropout, int num_heads,
                     bool qkv_bias, Generator& gen);
  // Given projections, drawing nothing (the bonus notebook's modules, bonus.hpp).
  MultiHeadAttention(Linear query, Linear key, Linear value, Linear out, int context_length,
                     double dropout, int num_heads);

  // x (B, T, d_in) -> (B, T, d_out); dropout draws come from `gen` after every init. Both
  // skip the masked triangle (its cells are written as the full passes leave them: -inf
  // scores, +0 weights) with the full passes' bits; forward keeps no (B, H, T, T) tensor in
  // eval mode, trace keeps every intermediate.
  Tensor forward(const Tensor& x, Generator& gen) const;
  Trace trace(const Tensor& x, Generator& gen, TraceKeep keep = {}) const;
  // trace of one shard alone, with the whole trace's bits (every output is the same in-order
  // sum, only fewer are computed): queries, keys, values (b1 - b0, h1 - h0, T, hd) from the
  // linears' columns of those heads; attn_scores, attn_weights (b1 - b0, h1 - h0, T, T);
  // context_vec (b1 - b0, T, (h1 - h0) * hd); context_vecs only when the shard has every head.
  // Throws std::invalid_argument for a shard out of range, or a partial one that would draw
  // dropout (its draws run over every head, in order).
  Trace trace(const Tensor& x, Generator& gen, TraceKeep keep, Shard shard) const;
  // The same for a batch of B copies of `rows` (T, d_in), as torch.stack((inputs, inputs)), and
  // a shard of one batch element: `rows` read in place, no batch built (6 MB at GPT-2's size).
  Trace trace_copies(const Tensor& rows, int B, Generator& gen, TraceKeep keep, Shard shard) const;

 private:
  // trace's shard, whose batch elements' rows start at xs in an input of `shape`.
  Trace trace_rows(const float* xs, const std::vector<int>& shape, Generator& gen, TraceKeep keep,
                   Shard shard) const;
  // The divisor the softmax applies; with prescale, queries divided in place and 1.
  float prescaled(Tensor& queries) const;
};

}  // namespace ca
