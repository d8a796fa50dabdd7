// The two orders in which PyTorch 1.13's AVX2 build adds a row of float32 values. A float sum
// depends on its order, so matching PyTorch's bits means adding in its order, lane by lane.
#pragma once

namespace ca::reduce {

// tensor.sum() and tensor.sum(dim=-1) of n contiguous values: ATen's cascade_sum
// (SumKernel.cpp). From 8 values on, 4 x 8 lane accumulators over the whole vectors (a
// cascade of blocks of 16 rows of 32), the leftover vectors, then +0 plus the leftover values
// plus the 8 lanes; below 8, 4 accumulators, the leftover values into the first. One thread's
// order: PyTorch splits a single sum of more than 32768 values across threads.
float cascade_sum(const float* x, int n);

// vec::reduce_all with + over a row of `width` values, the sum softmax takes of its
// exponentials (SoftMaxKernel.cpp), of which only x[0, n) are read: the cells from n on are
// +0 and add nothing (exact for values that are never -0, as exponentials are). Below 8
// values, in order; from 8 on, lane j % 8 adds x[j] in order, then the lanes pairwise, as
// reduce_all's shuffles do: ((l0 + l4) + (l2 + l6)) + ((l1 + l5) + (l3 + l7)).
float vec_sum(const float* x, int n, int width);

}  // namespace ca::reduce
