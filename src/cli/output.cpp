#include "output.hpp"

#include <cmath>
#include <cstdio>

#include "config_json.hpp"
#include "json.hpp"
#include "stages.hpp"
#include "torch_format.hpp"

namespace ca {
namespace {

std::string shape_str(const std::vector<int>& shape, const char* sep) {
  std::string s;
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? sep : "") + std::to_string(shape[i]);
  return s;
}

// A value as CSV or Markdown shows it: the shortest float32 text, -inf spelled out.
std::string plain(float v) {
  const std::string s = json::number(v);
  return s.front() == '"' ? s.substr(1, s.size() - 2) : s;
}

std::string fixed4(float v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v < 0 ? "−∞" : "∞";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4f", static_cast<double>(v));
  return buf;
}

std::string torch(const std::vector<const Stage*>& stages) {
  std::string s;
  for (const Stage* st : stages) {
    s += "# " + st->id + ": " + st->title + ", torch.Size([" + shape_str(st->tensor.shape, ", ") +
         "])\n";
    s += ">>> " + st->code + "\n" + torch_str(st->tensor) + "\n\n";
  }
  return s;
}

std::string json_out(const Walkthrough& w, const std::vector<const Stage*>& stages) {
  std::string s = "{\"config\":" + config_to_json(w.config) + ",\n\"stages\":[";
  for (std::size_t k = 0; k < stages.size(); ++k) {
    const Stage& st = *stages[k];
    s += k ? ",\n" : "\n";
    s += "{\"id\":" + json::quote(st.id) + ",\"title\":" + json::quote(st.title) +
         ",\"code\":" + json::quote(st.code) + ",\"shape\":[" + shape_str(st.tensor.shape, ",") +
         "],\"data\":[";
    for (std::size_t i = 0; i < st.tensor.numel(); ++i)
      s += (i ? "," : "") + json::number(st.tensor.data[i]);
    s += "]}";
  }
  return s + "\n]}\n";
}

// Tidy CSV: one row per value, with its coordinates (batch empty for 1-D and 2-D stages).
std::string csv(const std::vector<const Stage*>& stages) {
  std::string s = "stage,batch,row,col,value\n";
  for (const Stage* st : stages) {
    const Tensor& t = st->tensor;
    const int cols = t.cols(), rows = t.rows();
    for (std::size_t i = 0; i < t.numel(); ++i) {
      const std::size_t r = i / cols;
      const std::string batch = t.dim() == 3 ? std::to_string(r / rows) : "";
      s += st->id + "," + batch + "," + std::to_string(r % rows) + "," + std::to_string(i % cols) +
           "," + plain(t.data[i]) + "\n";
    }
  }
  return s;
}

// Markdown tables: labels by the stage table's axes (token labels, feature indices, sum, bias).
std::string markdown(const Walkthrough& w, const std::vector<const Stage*>& stages) {
  const auto cell = [](std::string text) {  // keep labels from breaking the table
    std::string out;
    for (const char c : text) out += c == '|' ? std::string("\\|") : std::string(1, c);
    return out;
  };
  std::string s;
  for (const Stage* st : stages) {
    const Tensor& t = st->tensor;
    const StageInfo& info = *find_stage(st->id);  // every stage of a walkthrough is in the table
    const auto label = [&](const std::string& axis, int i) {
      if (axis == "tok") return cell(w.config.tokens[i]);
      return axis == "sum" || axis == "bias" || axis.empty() ? axis : std::to_string(i);
    };
    const int rows = t.dim() == 1 ? 1 : t.rows(), cols = t.cols();
    s += "### `" + st->id + "`: " + st->title + " (" + shape_str(t.shape, "×") + ")\n\n`" +
         st->code + "`\n";
    const int batches = t.dim() == 3 ? t.shape[0] : 1;
    for (int b = 0; b < batches; ++b) {
      if (batches > 1) s += "\nbatch[" + std::to_string(b) + "]\n";
      std::string header = "\n|   |", rule = "|---|";
      for (int j = 0; j < cols; ++j) {
        header += " " + label(info.cols, j) + " |";
        rule += "---:|";
      }
      s += header + "\n" + rule + "\n";
      for (int i = 0; i < rows; ++i) {
        s += "| **" + label(info.rows, i) + "** |";
        for (int j = 0; j < cols; ++j) {
          s += " " + fixed4(t.data[(static_cast<std::size_t>(b) * rows + i) * cols + j]) + " |";
        }
        s += "\n";
      }
    }
    s += "\n";
  }
  return s;
}

}  // namespace

std::string render(const Walkthrough& w, const std::vector<const Stage*>& stages, Format format) {
  switch (format) {
    case Format::Torch:
      return torch(stages);
    case Format::Json:
      return json_out(w, stages);
    case Format::Csv:
      return csv(stages);
    case Format::Markdown:
      return markdown(w, stages);
  }
  return "";
}

}  // namespace ca
