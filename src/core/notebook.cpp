#include "notebook.hpp"

#include <string_view>

#include "config_json.hpp"
#include "json.hpp"
#include "stage_code.hpp"
#include "stages.hpp"

namespace ca {
namespace {

// The book's classes (rasbt/LLMs-from-scratch, ch03.ipynb). Bytes 1 to 7 stand for the lines
// the classes share (kShared); {scaled} is the stage table's: without `scale` the softmax takes
// the raw scores, as the core's does.
constexpr const char* kShared[] = {
    "        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)\n        self.W_key = "
    "nn.Linear(d_in, d_out, bias=qkv_bias)\n        self.W_value = nn.Linear(d_in, d_out, "
    "bias=qkv_bias)\n",
    "        self.register_buffer('mask', torch.triu(torch.ones(context_length, context_length), "
    "diagonal=1))\n",
    "        keys = self.W_key(x)\n        queries = self.W_query(x)\n        values = "
    "self.W_value(x)\n",
    "        attn_weights = torch.softmax(attn_scores{scaled}, dim=-1)\n",
    "        context_vec = attn_weights @ values\n        return context_vec\n\n\n",
    "(nn.Module):\n    def __init__(self, d_in, d_out, context_length, dropout, num_heads, "
    "qkv_bias=False):\n        super().__init__()\n",
    "    def forward(self, x):\n"};
constexpr const char* kClasses =
    "import torch\n"
    "import torch.nn as nn\n"
    "\n"
    "\n"
    "class SelfAttention_v1(nn.Module):\n"
    "    def __init__(self, d_in, d_out):\n"
    "        super().__init__()\n"
    "        self.W_query = nn.Parameter(torch.rand(d_in, d_out))\n"
    "        self.W_key = nn.Parameter(torch.rand(d_in, d_out))\n"
    "        self.W_value = nn.Parameter(torch.rand(d_in, d_out))\n"
    "\n"
    "\7        keys = x @ self.W_key\n"
    "        queries = x @ self.W_query\n"
    "        values = x @ self.W_value\n"
    "        attn_scores = queries @ keys.T  # omega\n"
    "\4\5class SelfAttention_v2(nn.Module):\n"
    "    def __init__(self, d_in, d_out, qkv_bias=False):\n"
    "        super().__init__()\n"
    "\1\n"
    "\7\3        attn_scores = queries @ keys.T\n"
    "\4\5class CausalAttention(nn.Module):\n"
    "    def __init__(self, d_in, d_out, context_length, dropout, qkv_bias=False):\n"
    "        super().__init__()\n"
    "        self.d_out = d_out\n"
    "\1        self.dropout = nn.Dropout(dropout)\n"
    "\2\n"
    "\7        b, num_tokens, d_in = x.shape\n"
    "\3        attn_scores = queries @ keys.transpose(1, 2)\n"
    "        attn_scores.masked_fill_(self.mask.bool()[:num_tokens, :num_tokens], -torch.inf)\n"
    "\4        attn_weights = self.dropout(attn_weights)\n"
    "\5class MultiHeadAttentionWrapper\6        self.heads = nn.ModuleList(\n"
    "            [CausalAttention(d_in, d_out, context_length, dropout, qkv_bias)\n"
    "             for _ in range(num_heads)]\n"
    "        )\n"
    "\n"
    "\7        return torch.cat([head(x) for head in self.heads], dim=-1)\n"
    "\n"
    "\n"
    "class MultiHeadAttention\6        assert (d_out % num_heads == 0), \"d_out must be divisible "
    "by num_heads\"\n"
    "        self.d_out = d_out\n"
    "        self.num_heads = num_heads\n"
    "        self.head_dim = d_out // num_heads\n"
    "\1        self.out_proj = nn.Linear(d_out, d_out)\n"
    "        self.dropout = nn.Dropout(dropout)\n"
    "\2\n"
    "\7        b, num_tokens, d_in = x.shape\n"
    "\3        keys = keys.view(b, num_tokens, self.num_heads, self.head_dim)\n"
    "        values = values.view(b, num_tokens, self.num_heads, self.head_dim)\n"
    "        queries = queries.view(b, num_tokens, self.num_heads, self.head_dim)\n"
    "        keys = keys.transpose(1, 2)\n"
    "        queries = queries.transpose(1, 2)\n"
    "        values = values.transpose(1, 2)\n"
    "        attn_scores = queries @ keys.transpose(2, 3)\n"
    "        mask_bool = self.mask.bool()[:num_tokens, :num_tokens]\n"
    "        attn_scores.masked_fill_(mask_bool, -torch.inf)\n"
    "\4        attn_weights = self.dropout(attn_weights)\n"
    "        context_vec = (attn_weights @ values).transpose(1, 2)\n"
    "        context_vec = context_vec.contiguous().view(b, num_tokens, self.d_out)\n"
    "        context_vec = self.out_proj(context_vec)\n"
    "        return context_vec\n"
    "\n"
    "\n"
    "print('torch', torch.__version__, '| MKL:', torch.backends.mkl.is_available())";

std::string classes() {
  std::string s;
  for (const char* c = kClasses; *c; ++c) {
    if (*c < 8)
      s += kShared[*c - 1];
    else
      s += *c;
  }
  return s;
}

// docs/numerics.md's table, for the reader whose dropout tables differ.
constexpr const char* kDropoutNote =
    "**Which dropout your PyTorch draws.** `nn.Dropout` has two CPU generators. The default one "
    "gives the book's tables: PyTorch 2.7 and later, Apple silicon and ARM, builds without MKL "
    "(conda's OpenBLAS, Debian's `python3-torch`). x86 Linux and Windows builds with MKL (pip, "
    "conda, Colab) from 0.4.1 to 2.6 draw from MKL's stream and print other dropout tables for "
    "the same seed. ";

// One cell's JSON; a stage's carries its id in the metadata.
std::string cell(bool code, const std::string& source, const char* stage = nullptr) {
  std::string c = code ? R"({"cell_type":"code","execution_count":null,"metadata":{)"
                       : R"({"cell_type":"markdown","metadata":{)";
  if (stage != nullptr) c += "\"stage\":" + json::quote(stage);
  return c + (code ? R"(},"outputs":[],"source":)" : R"(},"source":)") + json::quote(source) + "}";
}

}  // namespace

std::string print_cell(const std::string& code) {
  const std::size_t line = code.rfind('\n') + 1;  // 0 when there is one line
  const std::size_t semi = code.rfind("; ");
  const std::size_t stmt = semi != std::string::npos && semi >= line ? semi + 2 : line;
  const std::string_view last = std::string_view(code).substr(stmt);
  const std::size_t comment = last.find("  #");
  const std::string_view body = last.substr(0, comment);
  std::size_t eq = body.find(" = ");
  if (eq == std::string_view::npos) eq = body.find(" += ");
  if (eq == std::string_view::npos) {  // an expression: print it, its comment after
    return code.substr(0, stmt) + "print(" + std::string(body) + ")" +
           (comment == std::string_view::npos ? "" : std::string(last.substr(comment)));
  }
  std::string_view target = body.substr(0, eq);  // "    attn_scores_2[i]" in a loop
  target.remove_prefix(target.find_first_not_of(' '));
  return code + "\nprint(" + std::string(target.substr(0, target.find('['))) + ")";
}

std::string notebook(const Config& config) {
  const Config c = resolve(config);
  const StageCode code(c);
  const bool mha = mha_error(c).empty();
  std::string cells =
      cell(false,
           "# Chapter 3, stage by stage\n\nThe walkthrough of *Build a Large Language Model "
           "(From Scratch)*, chapter 3, for the configuration in this notebook's metadata "
           "(`causal_attention`). Each stage is a cell that prints it: run them in order.") +
      "," +
      cell(false, std::string(kDropoutNote) + (c.rng == DropoutRng::Mkl
                                                   ? "This configuration shows MKL's tables."
                                                   : "This configuration shows the default's.")) +
      "," + cell(true, code.expand(classes().c_str()));
  const char* section = "";
  for (const StageInfo& s : stage_table()) {
    if ((s.bias && !c.qkv_bias) || (needs_mha(s.part) && !mha)) continue;
    if (std::string_view(section) != s.section) {
      section = s.section;
      for (const SectionInfo& sec : section_table()) {
        if (std::string_view(sec.id) == section)
          cells += "," + cell(false, std::string("## ") + sec.number + " " + sec.title + "\n\n" +
                                         sec.intro);
      }
    }
    cells += "," + cell(true, print_cell(code.expand(s.code)), s.id);
  }
  return R"({"cells":[)" + cells +
         R"(],"metadata":{"kernelspec":{"display_name":"Python 3","language":"python",)"
         R"("name":"python3"},"language_info":{"name":"python"},"causal_attention":{"config":)" +
         config_to_json(c) + R"(}},"nbformat":4,"nbformat_minor":4})" + "\n";
}

}  // namespace ca
