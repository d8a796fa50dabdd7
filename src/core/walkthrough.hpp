// The book's chapter 3 program (§3.3 to §3.6) as an ordered list of named stages
// (docs/cli.md). Every fact about a stage lives in stages.hpp's table; this runs the program and
// fills in the tensors.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "config.hpp"
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

// Runs the program: every stage, or only the parts that `stages` need (in walkthrough order,
// only those stages kept). Throws std::invalid_argument with validate()'s message if invalid,
// for an unknown id, or for a MultiHeadAttention stage when num_heads does not divide d_out;
// with every stage asked for, those stages are left out instead (as bias stages are).
Walkthrough run_walkthrough(const Config& config, const std::vector<std::string>& stages = {});

// "" when run_walkthrough(config, stages) would not throw for the stages (config valid), else
// its message: the WebAssembly build checks first, as it cannot catch exceptions.
std::string stages_error(const Config& config, const std::vector<std::string>& stages);

}  // namespace ca
