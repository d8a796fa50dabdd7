// The passes of causal self-attention for one sequence, each a separate function over
// row-major matrices so that every intermediate can be shown (T = tokens, d = head width).
#pragma once

#include "tensor.hpp"

namespace ca {

// Pass 1: y (T, out) = x (T, in) @ weight(out, in)^T + bias (out), as nn.Linear.
void linear_forward(MatrixMap y, const MatrixIn& x, const MatrixIn& weight, const float* bias);

// Pass 1 of several linears of one input x (m, k), e.g. the queries', keys' and values': y_i
// (m, n_i) = x @ w_i (n_i, k)^T + bias_i, row-major, each with linear_forward's bits, on the
// threads in one loop over all their blocks of columns (natively; one after the other where a
// linear_forward would not split its columns).
struct LinearOut {
  float* y;
  const float* w;
  const float* bias;  // or nullptr
  int n;
};
void linears_forward(const float* x, int m, int k, const LinearOut* outs, int count);

// Pass 2: scores (T, T) = queries (T, d) @ keys(T, d)^T.
void scores_forward(MatrixMap scores, const MatrixIn& queries, const MatrixIn& keys);

// Pass 3: scores.masked_fill_(mask[:T, :T].bool(), -inf) for a (C, C) mask buffer, C >= T.
void masked_fill(MatrixMap scores, const MatrixIn& mask);

// The causal mask buffer: triu(ones(n, n), diagonal=1).
Tensor causal_mask(int n);

// The simple mask's steps, over (T, T) weights:
// tril(ones(n, n)); out = a * b elementwise; sums (T, 1) = a.sum(dim=-1, keepdim=True), in
// ATen's order (reduce::cascade_sum); out = a / sums, row by row.
Tensor lower_triangle(int n);
void multiply(MatrixMap out, const MatrixIn& a, const MatrixIn& b);
void row_sums(MatrixMap sums, const MatrixIn& a);
void divide_rows(MatrixMap out, const MatrixIn& a, const MatrixIn& sums);

// Pass 4: weights (T, T) = softmax(scores / divisor, dim=-1), in PyTorch's order:
// the division as its own float32 op, then max, exp(x - max) with SLEEF's exp (sleef::expf_u10),
// the sum in reduce_all's lanes (reduce::vec_sum), times 1 / sum.
void softmax_forward(MatrixMap weights, const MatrixIn& scores, float divisor);

// Pass 5: context (T, d) = weights (T, T) @ values (T, d).
void context_forward(MatrixMap context, const MatrixIn& weights, const MatrixIn& values);

// Passes 3 and 4 of the causal path, without the masked upper triangle: weights (T, T) rows
// of leading dimension ldw from scores (T, T) whose cells j > i are never read as scores.
// Row i's cells j <= i equal softmax_forward's of the masked scores, bit for bit; its cells
// j > i are left unwritten: they are exactly +0. Except when the row has a NaN, or its
// max is +inf or -inf: then the masked cells are NaN, the whole row is written as
// softmax_forward does (the masked part of `scores` is overwritten with -inf) and
// full_rows[i] is set to 1 (else 0). Returns the number of such rows. In place (weights ==
// scores, ldw == lds) with the same bits: the scores' memory is the weights'.
// Only rows [r0, r1) (r1 -1: T) when given.
int causal_softmax_forward(float* weights, int ldw, float* scores, int lds, int T, float divisor,
                           unsigned char* full_rows, int r0 = 0, int r1 = -1);

// sqrt(d_k) as `keys.shape[-1]**0.5`, or 1 when the scores are not scaled.
float score_divisor(int d_k, bool scale);

// Reference kernel: the same attention with plain loops in double, for checking the passes.
// Returns the context (T, d); `causal` applies pass 3.
RowMatrix attention_forward_naive(const MatrixIn& queries, const MatrixIn& keys,
                                  const MatrixIn& values, bool causal, bool scale);

}  // namespace ca
