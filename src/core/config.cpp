#include "config.hpp"

#include <cmath>

#include "text.hpp"

namespace ca {
namespace {

bool is_probability(double p) { return p >= 0.0 && p <= 1.0; }  // false for NaN

}  // namespace

Tensor Config::book_inputs() {
  return Tensor({6, 3}, {0.43f, 0.15f, 0.89f,    // Your     (x^1)
                         0.55f, 0.87f, 0.66f,    // journey  (x^2)
                         0.57f, 0.85f, 0.64f,    // starts   (x^3)
                         0.22f, 0.58f, 0.33f,    // with     (x^4)
                         0.77f, 0.25f, 0.10f,    // one      (x^5)
                         0.05f, 0.80f, 0.55f});  // step     (x^6)
}

std::vector<std::string> default_tokens(int n) {
  static const char* const kBook[] = {"Your", "journey", "starts", "with", "one", "step"};
  std::vector<std::string> tokens;
  for (int i = 0; i < n; ++i) tokens.push_back(i < 6 ? kBook[i] : "x" + decimal(i + 1));
  return tokens;
}

std::string validate(const Config& c) {
  const int T = c.num_tokens(), d_in = c.d_in();
  if (c.randn) {
    if (c.randn->rows < 1 || c.randn->cols < 1) return "\"inputs\": randn sizes must be >= 1";
  } else {
    if (c.inputs.dim() != 2 || c.inputs.numel() == 0) return "\"inputs\" is empty";
    for (std::size_t i = 0; i < c.inputs.numel(); ++i) {
      if (!std::isfinite(c.inputs.data[i])) {
        return cat({"\"inputs\"[", decimal(i / d_in), "][", decimal(i % d_in),
                    "] is not a finite float32 number"});
      }
    }
  }
  if (T > kMaxTokens) {
    return cat({"\"inputs\" has ", decimal(T), " tokens; at most ", decimal(kMaxTokens),
                " are supported"});
  }
  if (d_in > kMaxDim) {
    return cat({"\"inputs\" rows have ", decimal(d_in), " values; at most ", decimal(kMaxDim),
                " are supported"});
  }
  if (!c.tokens.empty() && static_cast<int>(c.tokens.size()) != T) {
    return cat({"\"tokens\" has length ", decimal(c.tokens.size()), " but \"inputs\" has ",
                decimal(T), " rows"});
  }
  for (std::size_t i = 0; i < c.tokens.size(); ++i) {
    const std::string& t = c.tokens[i];
    if (t.size() > kMaxTokenLength) {
      return cat({"\"tokens\": a label is longer than ", decimal(kMaxTokenLength), " bytes"});
    }
    // Every output (JSON, the page) must be valid UTF-8; JS's lone surrogates arrive as such bytes.
    if (!valid_utf8(t)) {
      return cat({"\"tokens\"[", decimal(i), "] is not valid UTF-8 (got ", quoted(t), ")"});
    }
  }
  if (c.d_out < 1 || c.d_out > kMaxDim) {
    return cat(
        {"\"d_out\" must be between 1 and ", decimal(kMaxDim), " (got ", decimal(c.d_out), ")"});
  }
  if (!is_probability(c.dropout)) {
    return cat({"\"dropout\" must be between 0 and 1 (got ", shortest(c.dropout), ")"});
  }
  if (!is_probability(c.class_dropout)) {
    return cat({"\"class_dropout\" must be between 0 and 1 (got ", shortest(c.class_dropout), ")"});
  }
  if (c.query_token < -1 || c.query_token >= T) {
    return cat({"\"query_token\" must be between 0 and ", decimal(T - 1), " (one of the ",
                decimal(T), " tokens; got ", decimal(c.query_token), ")"});
  }
  if (c.num_heads < 1 || c.num_heads > kMaxHeads) {
    return cat({"\"num_heads\" must be between 1 and ", decimal(kMaxHeads), " (got ",
                decimal(c.num_heads), ")"});
  }
  if (static_cast<long long>(c.num_heads) * c.d_out > kMaxWrapperWidth) {
    return cat({"\"num_heads\" x \"d_out\" must be at most ", decimal(kMaxWrapperWidth),
                " (MultiHeadAttentionWrapper's output width; got ", decimal(c.num_heads), " x ",
                decimal(c.d_out), ")"});
  }
  // 0 is "unset" (the number of tokens), never read from JSON: users see "between 1 and".
  if (c.context_length < 0 || c.context_length > kMaxTokens) {
    return cat({"\"context_length\" must be between 1 and ", decimal(kMaxTokens), " (got ",
                decimal(c.context_length), ")"});
  }
  if (c.context_length != 0 && T > c.context_length) {
    return cat({decimal(T), " tokens exceed CausalAttention's context_length ",
                decimal(c.context_length)});
  }
  return "";
}

std::string mha_error(const Config& c) {
  if (c.d_out % c.num_heads == 0) return "";
  return cat({"MultiHeadAttention needs \"d_out\" divisible by \"num_heads\" (got d_out ",
              decimal(c.d_out), ", num_heads ", decimal(c.num_heads), ")"});
}

Config resolve(Config c) {
  if (c.query_token < 0) c.query_token = c.num_tokens() > 1 ? 1 : 0;
  if (c.tokens.empty()) c.tokens = default_tokens(c.num_tokens());
  if (c.context_length == 0) c.context_length = c.num_tokens();
  return c;
}

std::string to_string(DropoutRng rng) {
  return std::string(choice(setting("rng"), static_cast<std::size_t>(rng)).value);
}

}  // namespace ca
