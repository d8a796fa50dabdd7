#include "notebook.hpp"

#include <string_view>

#include "bonus.hpp"
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

// The bonus notebook's classes (ch03/02_bonus_efficient-multihead-attention), as it writes them
// but for the lines marked: {scaled} and {einsum_div} follow `scale`, CombinedQKV views to d_out,
// and MHAPyTorchScaledDotProduct calls flash_attention (PyTorch 1.13 has no
// scaled_dot_product_attention).
constexpr const char* kBonusClasses =
    "import math\n"
    "\n"
    "\n"
    "class MultiHeadAttentionCombinedQKV(nn.Module):\n"
    "    def __init__(self, d_in, d_out, num_heads, context_length, dropout=0.0, qkv_bias=False):\n"
    "        super().__init__()\n"
    "        assert d_out % num_heads == 0, \"d_out is indivisible by num_heads\"\n"
    "        self.num_heads = num_heads\n"
    "        self.context_length = context_length\n"
    "        self.head_dim = d_out // num_heads\n"
    "        self.d_out = d_out\n"
    "        self.qkv = nn.Linear(d_in, 3 * d_out, bias=qkv_bias)\n"
    "        self.proj = nn.Linear(d_out, d_out)\n"
    "        self.dropout = nn.Dropout(dropout)\n"
    "        self.register_buffer(\"mask\", torch.triu(torch.ones(context_length, context_length), "
    "diagonal=1))\n"
    "\n"
    "    def forward(self, x):\n"
    "        batch_size, num_tokens, embed_dim = x.shape\n"
    "        qkv = self.qkv(x)\n"
    "        qkv = qkv.view(batch_size, num_tokens, 3, self.num_heads, self.head_dim)\n"
    "        qkv = qkv.permute(2, 0, 3, 1, 4)\n"
    "        queries, keys, values = qkv.unbind(0)\n"
    "        attn_scores = queries @ keys.transpose(-2, -1)\n"
    "        attn_scores = attn_scores.masked_fill(self.mask.bool()[:num_tokens, :num_tokens], "
    "-torch.inf)\n"
    "        attn_weights = torch.softmax(attn_scores{scaled}, dim=-1)\n"
    "        attn_weights = self.dropout(attn_weights)\n"
    "        context_vec = attn_weights @ values\n"
    "        context_vec = context_vec.transpose(1, 2)\n"
    "        # the notebook views to embed_dim (d_in), which needs d_in == d_out\n"
    "        context_vec = context_vec.contiguous().view(batch_size, num_tokens, self.d_out)\n"
    "        return self.proj(context_vec)\n"
    "\n"
    "\n"
    "class MHAEinsum(nn.Module):\n"
    "    def __init__(self, d_in, d_out, context_length, dropout, num_heads, qkv_bias=False):\n"
    "        super().__init__()\n"
    "        assert d_out % num_heads == 0, \"d_out must be divisible by num_heads\"\n"
    "        self.d_out = d_out\n"
    "        self.num_heads = num_heads\n"
    "        self.head_dim = d_out // num_heads\n"
    "        self.W_query = nn.Parameter(torch.randn(d_in, d_out))\n"
    "        self.W_key = nn.Parameter(torch.randn(d_in, d_out))\n"
    "        self.W_value = nn.Parameter(torch.randn(d_in, d_out))\n"
    "        if qkv_bias:\n"
    "            self.bias_q = nn.Parameter(torch.zeros(d_out))\n"
    "            self.bias_k = nn.Parameter(torch.zeros(d_out))\n"
    "            self.bias_v = nn.Parameter(torch.zeros(d_out))\n"
    "        else:\n"
    "            self.register_parameter(\"bias_q\", None)\n"
    "            self.register_parameter(\"bias_k\", None)\n"
    "            self.register_parameter(\"bias_v\", None)\n"
    "        self.out_proj = nn.Linear(d_out, d_out)\n"
    "        self.dropout = nn.Dropout(dropout)\n"
    "        self.register_buffer(\"mask\", torch.triu(torch.ones(context_length, context_length), "
    "diagonal=1))\n"
    "        self.reset_parameters()\n"
    "\n"
    "    def reset_parameters(self):\n"
    "        nn.init.kaiming_uniform_(self.W_query, a=math.sqrt(5))\n"
    "        nn.init.kaiming_uniform_(self.W_key, a=math.sqrt(5))\n"
    "        nn.init.kaiming_uniform_(self.W_value, a=math.sqrt(5))\n"
    "        if self.bias_q is not None:\n"
    "            fan_in, _ = nn.init._calculate_fan_in_and_fan_out(self.W_query)\n"
    "            bound = 1 / math.sqrt(fan_in)\n"
    "            nn.init.uniform_(self.bias_q, -bound, bound)\n"
    "            nn.init.uniform_(self.bias_k, -bound, bound)\n"
    "            nn.init.uniform_(self.bias_v, -bound, bound)\n"
    "\n"
    "    def forward(self, x):\n"
    "        b, n, _ = x.shape\n"
    "        Q = torch.einsum(\"bnd,do->bno\", x, self.W_query)\n"
    "        K = torch.einsum(\"bnd,do->bno\", x, self.W_key)\n"
    "        V = torch.einsum(\"bnd,do->bno\", x, self.W_value)\n"
    "        if self.bias_q is not None:\n"
    "            Q += self.bias_q\n"
    "            K += self.bias_k\n"
    "            V += self.bias_v\n"
    "        Q = Q.view(b, n, self.num_heads, self.head_dim).transpose(1, 2)\n"
    "        K = K.view(b, n, self.num_heads, self.head_dim).transpose(1, 2)\n"
    "        V = V.view(b, n, self.num_heads, self.head_dim).transpose(1, 2)\n"
    "        scores = torch.einsum(\"bhnd,bhmd->bhnm\", Q, K){einsum_div}\n"
    "        mask = self.mask[:n, :n]\n"
    "        scores = scores.masked_fill(mask.bool(), -torch.inf)\n"
    "        attn_weights = torch.softmax(scores, dim=-1)\n"
    "        attn_weights = self.dropout(attn_weights)\n"
    "        context_vec = torch.einsum(\"bhnm,bhmd->bhnd\", attn_weights, V)\n"
    "        context_vec = context_vec.transpose(1, 2).reshape(b, n, self.d_out)\n"
    "        return self.out_proj(context_vec)\n"
    "\n"
    "\n"
    "def flash_attention(queries, keys, values, block, scale=True):\n"
    "    # scaled_dot_product_attention(is_causal=True) as its blocked kernels compute it\n"
    "    b, H, T, hd = queries.shape\n"
    "    n = (T + block - 1) // block\n"
    "    out = torch.empty_like(queries)\n"
    "    running_max = torch.empty(b, H, T, n)\n"
    "    running_sum = torch.empty(b, H, T, n)\n"
    "    for i0 in range(0, T, block):\n"
    "        q = queries[:, :, i0:i0 + block]\n"
    "        m = torch.full(q.shape[:-1], -torch.inf)\n"
    "        l = torch.zeros(q.shape[:-1])\n"
    "        acc = torch.zeros(q.shape)\n"
    "        for j0 in range(0, i0 + 1, block):  # key blocks up to the diagonal\n"
    "            s = q @ keys[:, :, j0:j0 + block].transpose(2, 3)\n"
    "            if scale:\n"
    "                s = s / hd**0.5\n"
    "            if j0 == i0:\n"
    "                s = s.masked_fill(torch.ones(s.shape[-2:]).triu(1).bool(), -torch.inf)\n"
    "            m_new = torch.maximum(m, s.amax(-1))\n"
    "            p = torch.exp(s - m_new[..., None])\n"
    "            alpha = torch.exp(m - m_new)\n"
    "            l = l * alpha + p.sum(-1)\n"
    "            acc = acc * alpha[..., None] + p @ values[:, :, j0:j0 + block]\n"
    "            m = m_new\n"
    "            running_max[:, :, i0:i0 + block, j0 // block:] = m[..., None]\n"
    "            running_sum[:, :, i0:i0 + block, j0 // block:] = l[..., None]\n"
    "        out[:, :, i0:i0 + block] = acc / l[..., None]\n"
    "    return out, running_max, running_sum\n"
    "\n"
    "\n"
    "class MHAPyTorchScaledDotProduct(nn.Module):\n"
    "    def __init__(self, d_in, d_out, num_heads, context_length, dropout=0.0, qkv_bias=False):\n"
    "        super().__init__()\n"
    "        assert d_out % num_heads == 0, \"d_out is indivisible by num_heads\"\n"
    "        self.num_heads = num_heads\n"
    "        self.context_length = context_length\n"
    "        self.head_dim = d_out // num_heads\n"
    "        self.d_out = d_out\n"
    "        self.qkv = nn.Linear(d_in, 3 * d_out, bias=qkv_bias)\n"
    "        self.proj = nn.Linear(d_out, d_out)\n"
    "        self.dropout = dropout\n"
    "\n"
    "    def forward(self, x):\n"
    "        batch_size, num_tokens, embed_dim = x.shape\n"
    "        qkv = self.qkv(x)\n"
    "        qkv = qkv.view(batch_size, num_tokens, 3, self.num_heads, self.head_dim)\n"
    "        queries, keys, values = qkv.permute(2, 0, 3, 1, 4)\n"
    "        # PyTorch 2.0+: nn.functional.scaled_dot_product_attention(queries, keys, values,\n"
    "        #     attn_mask=None, dropout_p=0.0, is_causal=True)\n"
    "        block = -(-num_tokens // 4)  # blocks of ceil(T / 4) tokens\n"
    "        context_vec, _, _ = flash_attention(queries, keys, values, block{flash_scale})\n"
    "        context_vec = context_vec.transpose(1, 2).contiguous().view(batch_size, num_tokens, "
    "self.d_out)\n"
    "        return self.proj(context_vec)\n"
    "\n"
    "\n"
    "class MHAPyTorchClass(nn.Module):\n"
    "    def __init__(self, d_in, d_out, num_heads, context_length, dropout=0.0, qkv_bias=False, "
    "need_weights=True):\n"
    "        super().__init__()\n"
    "        self.context_length = context_length\n"
    "        self.multihead_attn = nn.MultiheadAttention(\n"
    "            embed_dim=d_out,\n"
    "            num_heads=num_heads,\n"
    "            dropout=dropout,\n"
    "            bias=qkv_bias,\n"
    "            add_bias_kv=qkv_bias,\n"
    "            batch_first=True,\n"
    "        )\n"
    "        self.need_weights = need_weights\n"
    "        self.proj = nn.Linear(d_out, d_out)\n"
    "        self.register_buffer(\"mask\", torch.triu(torch.ones(context_length, context_length), "
    "diagonal=1).bool())\n"
    "\n"
    "    def forward(self, x):\n"
    "        batch_size, num_tokens, _ = x.shape\n"
    "        if self.context_length >= num_tokens:\n"
    "            attn_mask = self.mask[:num_tokens, :num_tokens]\n"
    "        else:\n"
    "            attn_mask = self.mask[:self.context_length, :self.context_length]\n"
    "        attn_output, _ = self.multihead_attn(\n"
    "            x, x, x, attn_mask=attn_mask, need_weights=self.need_weights\n"
    "        )\n"
    "        output = self.proj(attn_output)\n"
    "        return output\n";

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
  bool bonus = false;  // the bonus notebook's classes, when one of its sections is shown
  for (Part p : {Part::Qkv, Part::Einsum, Part::Flash, Part::TorchMha})
    bonus = bonus || part_error(p, c).empty();
  if (bonus) cells += "," + cell(true, code.expand(kBonusClasses));
  const char* section = "";
  for (const StageInfo& s : stage_table()) {
    if ((s.bias && !c.qkv_bias) || !part_error(s.part, c).empty()) continue;
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
