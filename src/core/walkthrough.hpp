// The book's chapter 3 program (§3.3 to §3.6) as an ordered list of named stages
// (docs/cli.md). Every fact about a stage lives in stages.hpp's table; this runs the program and
// fills in the tensors.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "config.hpp"
#include "nn.hpp"
#include "stages.hpp"
#include "tensor.hpp"

namespace ca {

struct Stage {
  const StageInfo* info;  // its row of the stage table: id, title, axes, kind, note
  std::string code;       // the PyTorch line that computes it, with this configuration's values
  Tensor tensor;

  std::string_view id() const { return info->id; }        // e.g. "attn_weights_causal"
  std::string_view title() const { return info->title; }  // a short human title
};

struct Walkthrough {
  Config config;  // resolved: tokens and context_length filled in
  std::vector<Stage> stages;
};

// Every stage id in order, bias stages included.
const std::vector<std::string>& all_stage_ids();
// Whether the stage exists only when qkv_bias is set.
bool is_bias_stage(const std::string& id);

// Runs the program: every stage, or only `stages` and the stages they read, transitively (the
// stage table's operands), in walkthrough order, only those asked for kept. Natively the work
// splits over num_threads() threads (parallel.hpp) with the same bits as on one. Throws
// std::invalid_argument with validate()'s message if invalid, for an unknown id, for a run that
// needs more than kMaxRunBytes, or for a MultiHeadAttention stage when num_heads does not divide
// d_out; with every stage asked for, those stages are left out instead (as bias stages are).
// With a shard, MultiHeadAttention's fused pass computes only the shard's batch elements and
// heads (MultiHeadAttention::trace), e.g. mha.attn_weights (b1 - b0, h1 - h0, T, T), and
// mha.context_vecs only when the shard has every head: web/page/pool.js splits exercise 3.3 over
// Workers this way, then mha_out_proj splits out_proj's rows.
Walkthrough run_walkthrough(const Config& config, const std::vector<std::string>& stages = {},
                            Shard shard = {});

// "" when run_walkthrough would accept the shard for this (valid) configuration, else why not.
std::string shard_error(const Config& config, Shard shard);

// Stage mha.context_vecs for rows of its context_vec alone: out_proj, the configuration's
// MultiHeadAttention's (its stages mha.out_proj.weight and .bias, given: a shard brought them,
// nothing is drawn again), on those rows (n, d_out), the bits of mha.context_vecs' rows. Throws
// std::invalid_argument as run_walkthrough does.
Stage mha_out_proj(const Config& config, const Tensor& context_rows, const Linear& out_proj);

// A run may hold at most this much (tensors kept to the end plus the largest buffers in use at
// once): a configuration within every other limit, e.g. T = 1024 with 128 heads, would need
// gigabytes (its (2, 128, 1024, 1024) scores alone are 1 GiB), and the WebAssembly module aborts
// at 2 GiB. The one place that says how much a run costs is run_bytes.
constexpr std::size_t kMaxRunBytes = std::size_t{1} << 30;

// What run_walkthrough(config, stages) holds at its peak, in bytes: counted from the shapes of
// the stages it computes and its largest buffers, with num_threads() threads (an upper
// estimate, within a few percent of the measured peak at large T).
// Precondition: validate(config) is "".
std::size_t run_bytes(const Config& config, const std::vector<std::string>& stages = {});

// The shape of a stage's tensor for this configuration (from the table's axes), e.g.
// {2, 12, 1024, 1024} for mha.attn_weights at exercise 3.3's size. Precondition: validate(config)
// is ""; throws std::invalid_argument for an unknown id.
std::vector<int> stage_shape(const Config& config, std::string_view id);

// What a run costs: the one cost model that the CLI's limit, the page and the widget read
// (api.cost; web/lib/budget.js refuses by it, web/page/compute.js picks the Worker by it).
//   bytes          run_bytes(config, stages)
//   work           api.run's time in units of about 5.2 ns (Chromium, an idle 2-core x86-64),
//                  of the parts the stages need: a whole run costs
//                  T²·(30 + 0.18·d_out) + T·d_in·d_out, plus per head beyond 2
//                  9·T² + 0.045·T²·d_out + 0.3·T·d_in·d_out, plus 0.18·H·context_length²
//                  (least-squares fits of 42 sizes, T 6 to 384, 1 to 128 heads), split over
//                  the parts by the maps and projections each computes (walkthrough.cpp)
//   multiply_adds  4·T·(T + d_in)·d_out: the passes' products, which grow with d_in where
//                  `work` (fitted at small d_in) does not see it
// Precondition: validate(config) is "".
struct RunCost {
  std::size_t bytes;
  double work;
  double multiply_adds;
};
RunCost run_cost(const Config& config, const std::vector<std::string>& stages = {});

// "" when run_walkthrough(config, stages) would not throw for the stages (config valid), else
// its message: the WebAssembly build checks first, as it cannot catch exceptions.
std::string stages_error(const Config& config, const std::vector<std::string>& stages);

}  // namespace ca
