// The fast matmul kernels (SSE2, AVX2, AVX-512, WASM SIMD128) against the naive reference kernel,
// and CausalAttention's and MultiHeadAttention's causal path (masked triangle skipped) against the
// full passes: bit for bit.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstring>
#include <filesystem>
#include <random>
#include <tuple>

#include "attention.hpp"
#include "kernels.hpp"
#include "nn.hpp"
#include "reduce.hpp"
#include "sleef.hpp"
#include "support.hpp"

namespace {

using ca::kernels::Isa;
using ca::kernels::Tri;

// Every instruction set this build and CPU can run, the reference last.
std::vector<Isa> isas() {
  std::vector<Isa> v;
  for (Isa i : {Isa::AVX512, Isa::AVX2, Isa::SSE2, Isa::SIMD128, Isa::Reference})
    if (ca::kernels::isa_supported(i)) v.push_back(i);
  return v;
}

// Restores the start-up choices when a test ends, also on failure.
struct IsaGuard {
  Isa saved = ca::kernels::active_isa();
  bool fast_exp = ca::kernels::fast_exp();
  ~IsaGuard() {
    ca::kernels::force_isa(saved);
    ca::kernels::set_fast_exp(fast_exp);
  }
};

// Today's kernels: the naive gemm and the scalar exp one by one.
void use_reference() {
  ca::kernels::force_isa(Isa::Reference);
  ca::kernels::set_fast_exp(false);
}

// Normals, with (when `special`) some -0, 0, huge, tiny, inf and NaN.
std::vector<float> data(std::size_t n, std::mt19937& rng, bool special) {
  std::normal_distribution<float> normal;
  std::uniform_int_distribution<int> pick(0, 40);
  const float inf = std::numeric_limits<float>::infinity();
  const float specials[] = {-0.0f, 0.0f, 3e38f, -3e38f, 1e-40f, inf, -inf, std::nanf("")};
  std::vector<float> v(n);
  for (float& x : v) {
    const int p = pick(rng);
    x = special && p < 8 ? specials[p] : normal(rng);
  }
  return v;
}

}  // namespace

TEST_CASE("the start-up instruction set is the best the CPU has", "[kernels]") {
  const Isa isa = ca::kernels::active_isa();
  INFO("active: " << ca::kernels::isa_name(isa));
  CHECK(ca::kernels::isa_supported(isa));
  if (ca::kernels::isa_supported(Isa::AVX512))
    CHECK(isa == Isa::AVX512);
  else if (ca::kernels::isa_supported(Isa::AVX2))
    CHECK(isa == Isa::AVX2);
#if defined(__x86_64__)
  CHECK(ca::kernels::isa_supported(Isa::SSE2));  // both x86 paths testable on any x86-64
#endif
  CHECK_FALSE(ca::kernels::force_isa(Isa::SIMD128));  // native builds have no WASM path
#if defined(__x86_64__)
  // SLEEF's AVX2 expf is what PyTorch runs there: the vectorised copy must pass its self-check.
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
    CHECK(ca::kernels::fast_exp());
#endif
}

// gemm and gemm_nt (on B^T with NaN in its padding, never read) on every ISA against the
// reference kernel, bit for bit, for one (m, n, k); the mode, padded leading dimensions and
// data drawn from rng, with special values for one seed in five; the mode too unless given.
static void check_paths(int m, int n, int k, int seed, std::mt19937& rng, int given_mode = -1) {
  std::uniform_int_distribution<int> pad(0, 5), mode(0, 2);
  const Tri tri = static_cast<Tri>(given_mode >= 0 ? given_mode : mode(rng));
  // LowerK reads A(i, l) for l <= i only: its A is at least m wide, as weights are (T, T).
  const int ka = tri == Tri::LowerK ? std::max(k, m) : k;
  const int lda = ka + pad(rng), ldb = n + pad(rng), ldc = n + pad(rng);
  const bool special = seed % 5 == 0;
  const std::vector<float> a = data(std::size_t(m) * lda, rng, special),
                           b = data(std::size_t(k) * ldb, rng, special),
                           before = data(std::size_t(m) * ldc, rng, false);
  const int ldbt = k + 1 + seed % 3;  // B^T (n, k), for gemm_nt
  std::vector<float> bt(std::size_t(n) * ldbt, std::nanf(""));
  for (int l = 0; l < k; ++l)
    for (int j = 0; j < n; ++j) bt[std::size_t(j) * ldbt + l] = b[std::size_t(l) * ldb + j];
  INFO("m " << m << " n " << n << " k " << k << " tri " << int(tri) << " lda " << lda << " ldb "
            << ldb << " ldc " << ldc);
  std::vector<float> want = before;
  ca::kernels::gemm_reference(m, n, k, a.data(), lda, b.data(), ldb, want.data(), ldc, tri);
  for (Isa isa : isas()) {
    INFO(ca::kernels::isa_name(isa));
    REQUIRE(ca::kernels::force_isa(isa));
    std::vector<float> got = before, got_nt = before;
    ca::kernels::gemm(m, n, k, a.data(), lda, b.data(), ldb, got.data(), ldc, tri);
    ca::kernels::gemm_nt(m, n, k, a.data(), lda, bt.data(), ldbt, got_nt.data(), ldc, tri);
    if (tri == Tri::LowerOut) {  // only j <= i is specified
      for (int i = 0; i < m; ++i)
        for (int j = i + 1; j < n; ++j)
          got[std::size_t(i) * ldc + j] = got_nt[std::size_t(i) * ldc + j] =
              want[std::size_t(i) * ldc + j];
    }
    CHECK_THAT(test::floats("gemm", got), test::BitEqual(want, "gemm_reference's"));
    CHECK_THAT(test::floats("gemm_nt", got_nt), test::BitEqual(want, "gemm_reference's"));
  }
}

// 400 random shapes: sizes 1 .. 70 (tails of every width), leading dimensions with padding,
// each mode; the padding and the upper triangle of LowerOut must stay as they were. gemm_nt
// too, on B^T with NaN in its padding (never read).
TEST_CASE("every gemm path equals the reference kernel bit for bit", "[kernels]") {
  IsaGuard guard;
  const int seed = GENERATE(range(0, 400));
  std::mt19937 rng(static_cast<unsigned>(seed));
  std::uniform_int_distribution<int> size(1, 70);
  const int m = seed % 7 == 0 ? 1 : size(rng), n = seed % 11 == 0 ? 1 : size(rng),
            k = seed % 13 == 0 ? 1 : size(rng);
  check_paths(m, n, k, seed, rng);
}

// The blocked path (B over 128 KB): shapes across its block edges (k blocks of 256, AVX2's of
// 768; rows in blocks of 96, AVX2's of 48; column panels of 256 to 3072 floats, padded last
// strips), each mode, padded leading dimensions, special values in some.
TEST_CASE("the blocked gemm path equals the reference kernel bit for bit", "[kernels]") {
  IsaGuard guard;
  const int seed = GENERATE(range(0, 40));
  std::mt19937 rng(static_cast<unsigned>(seed) + 7000);
  const int m = seed % 9 == 0 ? 1 : std::uniform_int_distribution<int>(1, 200)(rng);
  const int n = std::uniform_int_distribution<int>(seed % 4 == 0 ? 1540 : 130, 1700)(rng);
  const int k = std::uniform_int_distribution<int>(260, seed % 3 == 0 ? 900 : 600)(rng);
  check_paths(m, n, k, seed, rng);
}

// The tiles' edges of every path, each mode: rows around 4 and 8 (AVX-512's tiles are 8 rows),
// columns around 4, 8, 16 floats and the 3-vector tiles (12, 24, 48), k across its 256-row
// blocks. A row count per case, every (n, k) inside.
TEST_CASE("gemm paths equal the reference at the tiles' edges", "[kernels]") {
  IsaGuard guard;
  const int m = GENERATE(1, 3, 4, 5, 7, 8, 9, 15, 16, 17, 23, 24, 25, 97);
  std::mt19937 rng(static_cast<unsigned>(m) + 9000);
  for (int n : {1, 5, 8, 11, 16, 17, 24, 31, 47, 48, 49, 64, 97})
    for (int k : {1, 9, 64, 257})
      for (int mode = 0; mode < 3; ++mode) check_paths(m, n, k, m + n + k + 1, rng, mode);
}

TEST_CASE("gemm with k = 0 writes +0, as the reference", "[kernels]") {
  IsaGuard guard;
  const Tri tri = GENERATE(Tri::Full, Tri::LowerOut, Tri::LowerK);
  std::vector<float> want(6 * 7, -1.0f);
  ca::kernels::gemm_reference(5, 6, 0, nullptr, 1, nullptr, 6, want.data(), 7, tri);
  for (Isa isa : isas()) {
    INFO(ca::kernels::isa_name(isa));
    REQUIRE(ca::kernels::force_isa(isa));
    std::vector<float> got(6 * 7, -1.0f);
    ca::kernels::gemm(5, 6, 0, nullptr, 1, nullptr, 6, got.data(), 7, tri);
    if (tri == Tri::LowerOut)
      for (int i = 0; i < 5; ++i)
        for (int j = i + 1; j < 6; ++j) got[std::size_t(i) * 7 + j] = want[std::size_t(i) * 7 + j];
    CHECK_THAT(test::floats("gemm with k = 0", got), test::BitEqual(want, "gemm_reference's"));
  }
}

// The sizes of attention: T up to 1024, d = 64 and 768, as scores (LowerOut, packed keys^T),
// context (LowerK) and a linear (Full, gemm_nt against an explicit transpose).
TEST_CASE("gemm paths equal the reference at attention sizes", "[kernels]") {
  IsaGuard guard;
  // Plain variables, not a structured binding: clang 14 (the asan preset) cannot capture one.
  const auto shape = GENERATE(table<int, int, int, Tri>({{1024, 1024, 64, Tri::LowerOut},
                                                         {1024, 64, 1024, Tri::LowerK},
                                                         {1023, 64, 1023, Tri::Full},
                                                         {257, 768, 768, Tri::Full},
                                                         {6, 6, 2, Tri::LowerOut},
                                                         {1000, 29, 1000, Tri::LowerK},
                                                         {1600, 1600, 40, Tri::LowerOut},
                                                         {1001, 40, 1001, Tri::LowerK}}));
  const int m = std::get<0>(shape), n = std::get<1>(shape), k = std::get<2>(shape);
  const Tri tri = std::get<3>(shape);
  std::mt19937 rng(static_cast<unsigned>(m + n + k));
  const std::vector<float> a = data(std::size_t(m) * k, rng, false),
                           bt = data(std::size_t(n) * k, rng, false);  // B^T (n, k)
  std::vector<float> b(std::size_t(k) * n);
  for (int j = 0; j < n; ++j)
    for (int l = 0; l < k; ++l) b[std::size_t(l) * n + j] = bt[std::size_t(j) * k + l];
  INFO("m " << m << " n " << n << " k " << k << " tri " << int(tri));
  std::vector<float> want(std::size_t(m) * n, 0.0f);
  ca::kernels::gemm_reference(m, n, k, a.data(), k, b.data(), n, want.data(), n, tri);
  const auto lower_only = [&](std::vector<float>& c) {
    if (tri != Tri::LowerOut) return;
    for (int i = 0; i < m; ++i)
      for (int j = i + 1; j < n; ++j) c[std::size_t(i) * n + j] = 0.0f;
  };
  for (Isa isa : isas()) {
    INFO(ca::kernels::isa_name(isa));
    REQUIRE(ca::kernels::force_isa(isa));
    std::vector<float> got(want.size(), 0.0f), got_nt(want.size(), 0.0f);
    ca::kernels::gemm(m, n, k, a.data(), k, b.data(), n, got.data(), n, tri);
    ca::kernels::gemm_nt(m, n, k, a.data(), k, bt.data(), k, got_nt.data(), n, tri);
    lower_only(got);
    lower_only(got_nt);
    CHECK_THAT(test::floats("gemm", got), test::BitEqual(want, "gemm_reference's"));
    CHECK_THAT(test::floats("gemm_nt", got_nt), test::BitEqual(want, "gemm_reference's"));
  }
}

// The softmax's exponentials: 2^21 floats spread over [-110, 90] by their bits, every
// special value, shifted by several maxima; the vectorised exp (where the CPU has it) and
// the scalar loop against the scalar port (sleef::expf_u10).
TEST_CASE("exp_shifted equals sleef::expf_u10 bit for bit", "[kernels]") {
  IsaGuard guard;
  const float lo = -110.0f, hi = 90.0f, inf = std::numeric_limits<float>::infinity();
  std::uint32_t a, b;
  std::memcpy(&a, &lo, 4);
  std::memcpy(&b, &hi, 4);
  std::vector<float> x;
  for (std::uint32_t u = 0x80000000u; u <= a; u += 541)
    x.push_back(0), std::memcpy(&x.back(), &u, 4);
  for (std::uint32_t u = 0; u <= b; u += 541) x.push_back(0), std::memcpy(&x.back(), &u, 4);
  for (float v : {-inf, inf, std::nanf(""), -0.0f, 0.0f, 88.72f, 88.73f, -87.9f, -103.3f, -104.0f})
    x.push_back(v);
  const bool fast = GENERATE(true, false);
  const float max = GENERATE(0.0f, 1.5f, -3.25f, 1e-3f);
  INFO("vectorised " << fast << ", max " << max << ", " << x.size() << " values");
  if (fast && !ca::kernels::set_fast_exp(true)) SUCCEED("this CPU has no vectorised exp");
  ca::kernels::set_fast_exp(fast);
  std::vector<float> got = x, want(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) want[i] = ca::sleef::expf_u10(x[i] - max);
  for (std::size_t off = 0; off < 8; ++off) {  // every alignment of the tail
    std::vector<float> g(x.begin() + off, x.end());
    ca::kernels::exp_shifted(g.data(), int(g.size()), max);
    CHECK_THAT(test::floats("exp_shifted", g),
               test::BitEqual(std::vector<float>(want.begin() + off, want.end()), "scalar exp's"));
  }
}

// Passes 3 and 4 without the masked triangle against masked_fill + softmax_forward: visible
// cells bit for bit, a row flagged exactly when its masked cells are not +0 (then whole).
TEST_CASE("causal_softmax_forward equals the masked softmax", "[kernels]") {
  const int seed = GENERATE(range(0, 100));
  std::mt19937 rng(static_cast<unsigned>(seed) + 5000);
  const int T = std::uniform_int_distribution<int>(1, 50)(rng);
  std::vector<float> scores = data(std::size_t(T) * T, rng, seed % 2 == 0);
  if (seed % 5 == 1)  // rows of +inf and of -inf, no NaN
    for (float& v : scores) v = (v > 0 ? 1 : -1) * std::numeric_limits<float>::infinity();
  ca::Tensor masked({T, T}, scores), want({T, T}, 0.0f);
  ca::masked_fill(masked.matrix(), ca::causal_mask(T).matrix());
  {
    IsaGuard guard;
    use_reference();
    ca::softmax_forward(want.matrix(), masked.matrix(), 8.0f);
  }
  std::vector<float> got(std::size_t(T) * T, 0.0f);
  std::vector<unsigned char> full(T, 2);
  const bool in_place = seed % 3 == 0;  // in place (the scores become the weights), by rows
  if (in_place) {
    got = scores;  // its masked cells are never read as scores
    for (int r0 = 0; r0 < T; r0 += 7)
      ca::causal_softmax_forward(got.data(), T, got.data(), T, T, 8.0f, full.data(), r0,
                                 std::min(T, r0 + 7));
  } else {
    ca::causal_softmax_forward(got.data(), T, scores.data(), T, T, 8.0f, full.data());
  }
  for (int i = 0; i < T; ++i) {
    INFO("in place, rows by 7: " << in_place);
    INFO("seed " << seed << " row " << i << " of " << T);
    bool masked_zero = true;
    for (int j = i + 1; j < T; ++j) masked_zero &= test::bits_equal(want.at(i, j), 0.0f);
    if (i + 1 < T) CHECK(int(full[i]) == (masked_zero ? 0 : 1));  // the last row masks none
    CHECK(full[i] <= 1);
    const int n = full[i] ? T : i + 1;
    CHECK_THAT(
        test::floats("causal_softmax_forward row " + std::to_string(i),
                     std::vector<float>(got.begin() + i * T, got.begin() + i * T + n)),
        test::BitEqual(std::vector<float>(want.data.begin() + i * T, want.data.begin() + i * T + n),
                       "masked softmax_forward's"));
  }
}

// The row's max (8 lanes, then the tail) wherever it lies, and a NaN or +inf anywhere: the
// softmax against its definition written in order (max, sleef::expf_u10(x - max), vec_sum's
// lanes, times 1 / sum), every position p of rows 1 .. 40 long.
TEST_CASE("softmax_forward's max is the row's wherever it lies, NaN included", "[kernels]") {
  IsaGuard guard;
  use_reference();
  const float special = GENERATE(0.0f, 50.0f, std::numeric_limits<float>::infinity(),
                                 -std::numeric_limits<float>::infinity(), std::nanf(""));
  std::mt19937 rng(17);
  for (int n = 1; n <= 40; ++n)
    for (int p = 0; p < n; ++p) {
      std::vector<float> x = data(std::size_t(n), rng, false);
      if (special != 0.0f || special != special) x[std::size_t(p)] = special;
      float max = x[0];
      for (int j = 1; j < n; ++j)
        max = x[j] != x[j] || max != max ? x[j] + max : std::max(max, x[j]);
      std::vector<float> want(x.size());
      for (int j = 0; j < n; ++j) want[j] = ca::sleef::expf_u10(x[j] - max);
      const float inverse = 1.0f / ca::reduce::vec_sum(want.data(), n, n);
      for (float& w : want) w *= inverse;
      std::vector<float> got(x.size());
      ca::softmax_forward(ca::MatrixMap(got.data(), 1, n), ca::ConstMatrixMap(x.data(), 1, n),
                          1.0f);
      INFO("n " << n << " p " << p << " special " << special);
      CHECK_THAT(test::floats("softmax_forward", got), test::BitEqual(want, "in-order softmax's"));
    }
}

// MultiHeadAttention's heads straight from (B, T, H * hd) projections (kernels.hpp's example)
// against the reference kernel on each head copied out contiguously.
TEST_CASE("gemm on strided heads equals the reference on copied heads", "[kernels]") {
  IsaGuard guard;
  const auto sizes =
      GENERATE(table<int, int, int, int>({{2, 7, 3, 5}, {1, 33, 12, 8}, {2, 64, 2, 16}}));
  const int B = std::get<0>(sizes), T = std::get<1>(sizes), H = std::get<2>(sizes),
            hd = std::get<3>(sizes);
  const int D = H * hd;
  std::mt19937 rng(static_cast<unsigned>(T * H));
  const std::vector<float> q = data(std::size_t(B) * T * D, rng, false),
                           k = data(std::size_t(B) * T * D, rng, false),
                           v = data(std::size_t(B) * T * D, rng, false);
  const auto head = [&](const std::vector<float>& x, int b, int h) {  // (T, hd), contiguous
    std::vector<float> out(std::size_t(T) * hd);
    for (int t = 0; t < T; ++t)
      for (int c = 0; c < hd; ++c)
        out[std::size_t(t) * hd + c] = x[(std::size_t(b) * T + t) * D + h * hd + c];
    return out;
  };
  for (Isa isa : isas()) {
    INFO(ca::kernels::isa_name(isa));
    REQUIRE(ca::kernels::force_isa(isa));
    std::vector<float> context(std::size_t(B) * T * D, 0.0f);
    for (int b = 0; b < B; ++b) {
      for (int h = 0; h < H; ++h) {
        const std::size_t off = std::size_t(b) * T * D + std::size_t(h) * hd;
        std::vector<float> scores(std::size_t(T) * T, 0.0f), want(std::size_t(T) * T, 0.0f);
        ca::kernels::gemm_nt(T, T, hd, q.data() + off, D, k.data() + off, D, scores.data(), T,
                             Tri::Full);
        const std::vector<float> qh = head(q, b, h), kh = head(k, b, h), vh = head(v, b, h);
        std::vector<float> kt(std::size_t(hd) * T);
        for (int t = 0; t < T; ++t)
          for (int c = 0; c < hd; ++c) kt[std::size_t(c) * T + t] = kh[std::size_t(t) * hd + c];
        ca::kernels::gemm_reference(T, T, hd, qh.data(), hd, kt.data(), T, want.data(), T,
                                    Tri::Full);
        CHECK_THAT(test::floats("head scores", scores), test::BitEqual(want, "gemm_reference's"));
        ca::kernels::gemm(T, hd, T, scores.data(), T, v.data() + off, D, context.data() + off, D,
                          Tri::LowerK);
        std::vector<float> ctx_want(std::size_t(T) * hd);
        ca::kernels::gemm_reference(T, hd, T, want.data(), T, vh.data(), hd, ctx_want.data(), hd,
                                    Tri::LowerK);
        CHECK_THAT(test::floats("head context", head(context, b, h)),
                   test::BitEqual(ctx_want, "gemm_reference's"));
      }
    }
  }
}

namespace {

// Today's CausalAttention.forward before the causal skip: every pass over the whole (T, T),
// masked_fill, a dropout copy of (B, T, T); run on the reference kernel.
ca::Tensor causal_reference(const ca::CausalAttention& m, const ca::Tensor& x, ca::Generator& gen) {
  IsaGuard guard;
  use_reference();
  const int B = x.shape[0], T = x.shape[1], d_out = m.W_query.weight.shape[0];
  const ca::Tensor queries = m.W_query(x), keys = m.W_key(x), values = m.W_value(x);
  ca::Tensor scores({B, T, T}), weights({B, T, T}), context({B, T, d_out});
  for (int b = 0; b < B; ++b) {
    ca::scores_forward(scores.matrix(b), queries.matrix(b), keys.matrix(b));
    ca::masked_fill(scores.matrix(b), ca::causal_mask(m.context_length).matrix());
    ca::softmax_forward(weights.matrix(b), scores.matrix(b), ca::score_divisor(d_out, m.scale));
  }
  const ca::Tensor dropped = ca::dropout(weights, m.dropout_p, m.training, gen, m.rng);
  for (int b = 0; b < B; ++b)
    ca::context_forward(context.matrix(b), dropped.matrix(b), values.matrix(b));
  return context;
}

// forward on every instruction set against causal_reference: the context bit for bit and
// the generator left in the same state (the same number of dropout draws).
void check_causal(const ca::CausalAttention& m, const ca::Tensor& x, std::uint64_t seed) {
  ca::Generator ref_gen(seed);
  const ca::Tensor want = causal_reference(m, x, ref_gen);
  const std::uint32_t next = ref_gen.random();
  IsaGuard guard;
  for (Isa isa : isas()) {
    INFO(ca::kernels::isa_name(isa));
    REQUIRE(ca::kernels::force_isa(isa));
    ca::Generator gen(seed);
    for (int call = 0; call < 2; ++call) {  // the second call reuses the buffers
      ca::Generator g = gen;
      const ca::Tensor got = m.forward(x, g);
      CHECK(got.shape == want.shape);
      CHECK_THAT(test::floats("forward", got.data),
                 test::BitEqual(want.data, "the reference kernels'"));
      CHECK(g.random() == next);
    }
  }
}

}  // namespace

// 300 random modules and inputs: T 1 .. 40, train and eval, every dropout kind, both RNGs,
// inputs with inf, NaN and overflowing scores (rows whose masked cells become NaN).
TEST_CASE("CausalAttention's causal path equals the full passes bit for bit", "[kernels]") {
  const int seed = GENERATE(range(0, 300));
  std::mt19937 rng(static_cast<unsigned>(seed) + 1000);
  std::uniform_int_distribution<int> batch(1, 3), tokens(1, 40), width(1, 20), pick(0, 5);
  const int B = batch(rng), T = tokens(rng), d_in = width(rng), d_out = width(rng);
  const double ps[] = {0.0, 0.1, 0.5, 0.9, 1.0, 0.3};
  ca::Generator gen(static_cast<std::uint64_t>(seed));
  ca::CausalAttention m(d_in, d_out, T + pick(rng), ps[pick(rng)], seed % 2 == 0, gen);
  m.training = seed % 3 != 0;
  m.scale = seed % 7 != 0;
  m.rng = seed % 4 == 0 ? ca::DropoutRng::Mkl : ca::DropoutRng::Default;
  ca::Tensor x({B, T, d_in}, data(std::size_t(B) * T * d_in, rng, seed % 6 == 0));
  if (seed % 10 == 1)
    for (float& v : x.data) v *= 1e19f;  // scores overflow to +-inf
  INFO("seed " << seed << " B " << B << " T " << T << " d_in " << d_in << " d_out " << d_out
               << " p " << m.dropout_p << " train " << m.training);
  check_causal(m, x, 77);
}

// One feature: every score is +inf (the row max is +inf) or -inf (a row of -inf); either way
// the masked cells of the weights are NaN, not 0, and every row must run whole.
TEST_CASE("CausalAttention's causal path with rows of infinite scores", "[kernels]") {
  const int seed = GENERATE(range(0, 8));
  ca::Generator gen(static_cast<std::uint64_t>(seed));
  ca::CausalAttention m(1, 1, 5, 0.5, false, gen);
  m.training = seed % 2 == 0;
  const float big = seed % 4 < 2 ? 1e30f : -1e30f;
  check_causal(m, ca::Tensor({2, 5, 1}, std::vector<float>(10, big)), 9);
}

TEST_CASE("CausalAttention's causal path at T = 1024", "[kernels]") {
  const bool train = GENERATE(false, true);
  ca::Generator gen(3);
  ca::CausalAttention m(64, 64, 1024, 0.1, false, gen);
  m.training = train;
  check_causal(m, ca::randn({2, 1024, 64}, gen), 5);
}

namespace {

// MultiHeadAttention.trace before the causal skip: every pass over the whole (T, T), heads
// copied out, masked_fill, a dropout copy of (B, H, T, T); run on the reference kernel.
ca::MultiHeadAttention::Trace mha_reference(const ca::MultiHeadAttention& m, const ca::Tensor& x,
                                            ca::Generator& gen) {
  IsaGuard guard;
  use_reference();
  const int B = x.shape[0], T = x.shape[1], H = m.num_heads, hd = m.head_dim;
  const auto split = [&](const ca::Tensor& y) {  // view(B, T, H, hd).transpose(1, 2)
    ca::Tensor out({B, H, T, hd});
    for (int b = 0; b < B; ++b)
      for (int h = 0; h < H; ++h)
        for (int t = 0; t < T; ++t)
          for (int c = 0; c < hd; ++c)
            out.data[((std::size_t(b) * H + h) * T + t) * hd + c] =
                y.data[(std::size_t(b) * T + t) * H * hd + h * hd + c];
    return out;
  };
  ca::MultiHeadAttention::Trace t;
  t.queries = split(m.W_query(x));
  t.keys = split(m.W_key(x));
  t.values = split(m.W_value(x));
  t.attn_scores = ca::Tensor({B, H, T, T});
  t.attn_weights = ca::Tensor({B, H, T, T});
  for (int bh = 0; bh < B * H; ++bh) {
    ca::scores_forward(t.attn_scores.matrix(bh), t.queries.matrix(bh), t.keys.matrix(bh));
    ca::masked_fill(t.attn_scores.matrix(bh), ca::causal_mask(m.context_length).matrix());
    ca::softmax_forward(t.attn_weights.matrix(bh), t.attn_scores.matrix(bh),
                        ca::score_divisor(hd, m.scale));
  }
  if (m.training && m.dropout_p != 0.0)
    t.attn_weights = ca::dropout(t.attn_weights, m.dropout_p, m.training, gen, m.rng);
  t.context_vec = ca::Tensor({B, T, H * hd});
  ca::Tensor head({T, hd});
  for (int b = 0; b < B; ++b)
    for (int h = 0; h < H; ++h) {
      ca::context_forward(head.matrix(), t.attn_weights.matrix(b * H + h),
                          t.values.matrix(b * H + h));
      for (int i = 0; i < T; ++i)
        for (int c = 0; c < hd; ++c)
          t.context_vec.data[(std::size_t(b) * T + i) * H * hd + h * hd + c] = head.at(i, c);
    }
  t.context_vecs = m.out_proj(t.context_vec);
  return t;
}

// trace and forward on every instruction set against mha_reference: every intermediate and
// the output bit for bit, the generator left in the same state, twice (buffers reused).
void check_mha(const ca::MultiHeadAttention& m, const ca::Tensor& x, std::uint64_t seed) {
  ca::Generator ref_gen(seed);
  const ca::MultiHeadAttention::Trace want = mha_reference(m, x, ref_gen);
  const std::uint32_t next = ref_gen.random();
  IsaGuard guard;
  for (Isa isa : isas()) {
    INFO(ca::kernels::isa_name(isa));
    REQUIRE(ca::kernels::force_isa(isa));
    for (int call = 0; call < 2; ++call) {
      ca::Generator g(seed), g2(seed);
      const ca::Tensor got = m.forward(x, g);
      CHECK(got.shape == want.context_vecs.shape);
      CHECK_THAT(test::floats("forward", got.data),
                 test::BitEqual(want.context_vecs.data, "the reference kernels'"));
      CHECK(g.random() == next);
      const ca::MultiHeadAttention::Trace t = m.trace(x, g2);
      CHECK(g2.random() == next);
      const std::pair<const ca::Tensor*, const ca::Tensor*> pairs[] = {
          {&t.queries, &want.queries},
          {&t.keys, &want.keys},
          {&t.values, &want.values},
          {&t.attn_scores, &want.attn_scores},
          {&t.attn_weights, &want.attn_weights},
          {&t.context_vec, &want.context_vec},
          {&t.context_vecs, &want.context_vecs}};
      for (const auto& [mine, theirs] : pairs) {
        CHECK(mine->shape == theirs->shape);
        CHECK_THAT(test::floats("traced", mine->data),
                   test::BitEqual(theirs->data, "the reference's"));
      }
    }
  }
  // Keeping only some intermediates: those kept are the same bits, the others empty, the
  // output and the generator's state unchanged.
  for (int mask = 0; mask < 7; ++mask) {
    INFO("keep heads " << (mask & 1) << ", scores " << (mask >> 1 & 1) << ", weights "
                       << (mask >> 2 & 1));
    ca::TraceKeep keep;
    keep.heads = mask & 1;
    keep.scores = mask & 2;
    keep.weights = mask & 4;
    ca::Generator g(seed);
    const ca::MultiHeadAttention::Trace t = m.trace(x, g, keep);
    CHECK(g.random() == next);
    const std::tuple<const ca::Tensor*, const ca::Tensor*, bool> kept[] = {
        {&t.queries, &want.queries, keep.heads},
        {&t.keys, &want.keys, keep.heads},
        {&t.values, &want.values, keep.heads},
        {&t.attn_scores, &want.attn_scores, keep.scores},
        {&t.attn_weights, &want.attn_weights, keep.weights},
        {&t.context_vec, &want.context_vec, true},
        {&t.context_vecs, &want.context_vecs, true}};
    for (const auto& [mine, theirs, is_kept] : kept) {
      if (!is_kept) {
        CHECK(mine->data.empty());
        continue;
      }
      CHECK(mine->shape == theirs->shape);
      CHECK_THAT(test::floats("traced", mine->data),
                 test::BitEqual(theirs->data, "the reference's"));
    }
  }
}

}  // namespace

// 150 random modules and inputs: T 1 .. 30, 1 to 4 heads, train and eval, every dropout kind,
// both RNGs, inputs with inf, NaN and overflowing scores.
TEST_CASE("MultiHeadAttention's forward and trace equal the full passes bit for bit", "[kernels]") {
  const int seed = GENERATE(range(0, 150));
  std::mt19937 rng(static_cast<unsigned>(seed) + 3000);
  std::uniform_int_distribution<int> batch(1, 3), tokens(1, 30), width(1, 12), heads(1, 4),
      pick(0, 5);
  const int B = batch(rng), T = tokens(rng), d_in = width(rng), H = heads(rng),
            d_out = H * width(rng);
  const double ps[] = {0.0, 0.1, 0.5, 0.9, 1.0, 0.3};
  ca::Generator gen(static_cast<std::uint64_t>(seed));
  ca::MultiHeadAttention m(d_in, d_out, T + pick(rng), ps[pick(rng)], H, seed % 2 == 0, gen);
  m.training = seed % 3 != 0;
  m.scale = seed % 7 != 0;
  m.rng = seed % 4 == 0 ? ca::DropoutRng::Mkl : ca::DropoutRng::Default;
  ca::Tensor x({B, T, d_in}, data(std::size_t(B) * T * d_in, rng, seed % 6 == 0));
  if (seed % 10 == 1)
    for (float& v : x.data) v *= 1e19f;  // scores overflow to +-inf
  INFO("seed " << seed << " B " << B << " T " << T << " d_in " << d_in << " d_out " << d_out
               << " H " << H << " p " << m.dropout_p << " train " << m.training);
  check_mha(m, x, 41);
}

TEST_CASE("MultiHeadAttention's forward and trace at GPT-2 width", "[kernels]") {
  const bool train = GENERATE(false, true);
  ca::Generator gen(8);
  ca::MultiHeadAttention m(768, 768, 40, 0.1, 12, false, gen);
  m.training = train;
  check_mha(m, ca::randn({2, 40, 768}, gen), 3);  // the linears take the blocked path
}

// The golden configurations: each stage of the walkthrough on every instruction set equals
// the reference kernel's, and the class's context equals the full passes.
TEST_CASE("golden configurations are the same bits on every kernel", "[kernels][golden]") {
  namespace fs = std::filesystem;
  IsaGuard guard;
  std::size_t files = 0;
  for (const auto& entry :
       fs::directory_iterator(std::string(CA_SOURCE_DIR) + "/tests/golden/cases")) {
    const nlohmann::json golden = nlohmann::json::parse(std::ifstream(entry.path()));
    INFO(golden["name"].get<std::string>());
    ++files;
    use_reference();
    const ca::Walkthrough want = test::run(golden["config"].dump());
    ca::kernels::set_fast_exp(true);
    for (Isa isa : isas()) {
      INFO(ca::kernels::isa_name(isa));
      REQUIRE(ca::kernels::force_isa(isa));
      const ca::Walkthrough got = test::run(golden["config"].dump());
      REQUIRE(got.stages.size() == want.stages.size());
      for (std::size_t s = 0; s < got.stages.size(); ++s) {
        INFO(got.stages[s].id());
        CHECK_THAT(test::floats(std::string(got.stages[s].id()), got.stages[s].tensor),
                   test::BitEqual(want.stages[s].tensor, "the reference kernels'"));
      }
    }
    const ca::Config& c = want.config;
    ca::Generator gen(c.seed_class);
    ca::CausalAttention m(c.d_in(), c.d_out, c.context_length, c.class_dropout, c.qkv_bias, gen);
    m.training = c.train;
    m.scale = c.scale;
    m.rng = c.rng;
    ca::Generator ref_gen = gen;
    const ca::Tensor& batch = test::stage(want, "batch");
    CHECK_THAT(test::floats("causal_reference", causal_reference(m, batch, ref_gen).data),
               test::BitEqual(test::stage(want, "context_vecs").data, "the walkthrough's"));
  }
  CHECK(files >= 30);
}
