// Every fact about a stage and a section, in one table that the CLI (--list-stages --format
// json), the JS API (api.stages, api.sections) and the page all read: ids, titles, the part of
// the program that computes it, the stages it reads, the PyTorch line, the axes of its rows and
// columns, what kind of numbers it holds. Its note (display text) is src/texts.json's, outside
// the WebAssembly module: src/cli/texts.hpp adds it natively, the JS library in the browser.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "json.hpp"

namespace ca {

// What a stage's numbers are: the page picks its colour scale and drawing from this.
enum class StageKind {
  Values,         // signed activations: inputs, queries, keys, values, context vectors
  Weights,        // a layer's parameters (weights and biases)
  Scores,         // signed attention scores before the softmax (may hold -inf)
  Probabilities,  // attention weights in [0, 1] (after dropout: 0 or scaled up)
  Mask,           // a 0/1 (or dropout's 0/scale) pattern
};

// The parts of the program that run on demand (walkthrough.cpp), each from the inputs alone:
// asking for a stage runs its part only. Inputs, the part of that one stage, always runs.
// Qkv to TorchMha: the bonus notebook's implementations (bonus.hpp), Kv: ch04/03 (kv_cache.hpp).
enum class Part { Inputs, Simple, V1, Sa, Wrapper, Mha, Qkv, Einsum, Flash, TorchMha, Kv };
constexpr int kParts = 11;
// Whether the part builds a MultiHeadAttention (skipped when num_heads does not divide d_out).
constexpr bool needs_mha(Part p) { return p == Part::Mha || p == Part::Kv; }

// Axis labels: "tok" token labels, "step" a generation step (row t: step t's new row),
// "in"/"out"/"dim" feature indices, "sum" one column of sums, "bias" the single row of a bias, "" a
// single unlabelled row. Leading dimensions are implicit: 3-D stages are (batch, rows, cols), 4-D
// ones (batch, head, rows, cols).
struct StageInfo {
  const char* id;       // e.g. "attn_weights_causal"
  const char* section;  // a SectionInfo id
  Part part;
  // The stages it reads, all earlier in the table, separated by spaces: "queries[i] keys[j]"
  // (element [i, j] reads row i of queries and row j of keys), "values[:,j]" (column j), or a
  // bare id (read whole, or read in a way no row or column says: 3-D and 4-D stages, the
  // query token's row, a bias).
  const char* operands;
  const char* title;  // a short human title
  const char* code;   // the PyTorch line, {name} standing for a configuration value
  const char* rows;   // row axis
  const char* cols;   // column axis
  StageKind kind;
  bool causal;          // future cells (column after row) are masked: hatched on the page
  const char* dropout;  // the output of a dropout: the id of the stage whose zeros mark its
                        // dropped cells (itself: its zeros outside the mask), else ""
  bool bias;            // exists only when qkv_bias is set
};

struct SectionInfo {
  const char* id;      // the page's anchor, e.g. "s3"
  const char* number;  // the book's section, e.g. "3.5.1"
  const char* title;
  const char* intro;  // a short paragraph under the heading
};

// In walkthrough order.
const std::vector<StageInfo>& stage_table();
const std::vector<SectionInfo>& section_table();
// nullptr when there is no such stage.
const StageInfo* find_stage(std::string_view id);

const char* to_string(StageKind kind);
const char* to_string(Part part);  // "inputs", "simple", ..., "mha", "qkv", ..., "kv"

// One operand of a stage: `axis` "row" or "col" and `index` 'i' or 'j' (element [i, j]'s row
// or column), or "" and 0 for a stage read whole.
struct Operand {
  std::string_view id;
  const char* axis;
  char index;
};
std::vector<Operand> operands(const StageInfo& stage);

// Sizes the page and the CLI share (the page reads them from the module).
struct Limits {
  int max_tokens;
  int max_dim;
  int max_token_length;  // bytes of one token label
  int max_shown;         // rows and columns a table shows before it is cut
};
Limits limits();

// The tables as one JSON document: {"sections": [...], "stages": [...], "limits": {...},
// "defaults": {"randn_seed"}}; a stage's operands as [{"id", "axis", "index"}] ("" for none);
// no notes (ca::with_texts adds them last, src/cli/texts.hpp).
json::Value stage_table_json();

}  // namespace ca
