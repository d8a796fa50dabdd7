#include "output.hpp"

#include "config_json.hpp"
#include "json.hpp"
#include "stages.hpp"
#include "text.hpp"
#include "torch_format.hpp"

namespace ca {
namespace {

std::string shape_str(const std::vector<int>& shape, const char* sep) {
  std::string s;
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? sep : "") + decimal(shape[i]);
  return s;
}

// A multi-line PyTorch line as Python's prompt shows it: "... " before each further line.
std::string continued(const std::string& code) {
  std::string s;
  for (const char c : code) s += c == '\n' ? std::string("\n... ") : std::string(1, c);
  return s;
}

void torch(std::ostream& out, const std::vector<const Stage*>& stages) {
  for (const Stage* st : stages) {
    out << "# " << st->id() << ": " << st->title() << ", torch.Size(["
        << shape_str(st->tensor.shape, ", ") << "])\n>>> " << continued(st->code) << "\n"
        << torch_str(st->tensor) << "\n\n";
  }
}

void json_out(std::ostream& out, const Walkthrough& w, const std::vector<const Stage*>& stages) {
  out << "{\"config\":" << config_to_json(w.config) << ",\n\"stages\":[";
  for (std::size_t k = 0; k < stages.size(); ++k) {
    const Stage& st = *stages[k];
    out << (k ? ",\n" : "\n") << "{\"id\":" << json::quote(st.id())
        << ",\"title\":" << json::quote(st.title()) << ",\"code\":" << json::quote(st.code)
        << ",\"shape\":[" << shape_str(st.tensor.shape, ",") << "],\"data\":[";
    for (std::size_t i = 0; i < st.tensor.numel(); ++i)
      out << (i ? "," : "") << json::number(st.tensor.data[i]);
    out << "]}";
  }
  out << "\n]}\n";
}

// Tidy CSV: one row per value, with its coordinates (batch empty for 1-D and 2-D stages, head
// empty below 4-D).
void csv(std::ostream& out, const std::vector<const Stage*>& stages) {
  out << "stage,batch,head,row,col,value\n";
  std::string line;
  for (const Stage* st : stages) {
    const Tensor& t = st->tensor;
    const int cols = t.cols(), rows = t.rows(), heads = t.dim() == 4 ? t.shape[1] : 1;
    for (std::size_t i = 0; i < t.numel(); ++i) {
      const std::size_t r = i / cols, slice = r / rows;
      line = st->id();
      line += ',';
      if (t.dim() >= 3) line += decimal(slice / heads);
      line += ',';
      if (t.dim() == 4) line += decimal(slice % heads);
      line += ',';
      line += decimal(r % rows);
      line += ',';
      line += decimal(i % cols);
      line += ',';
      line += shortest(t.data[i]);  // "-inf" spelled out
      line += '\n';
      out << line;
    }
  }
}

// Markdown tables: labels by the stage table's axes (token labels, feature indices, sum, bias).
void markdown(std::ostream& out, const Walkthrough& w, const std::vector<const Stage*>& stages) {
  for (const Stage* st : stages) {
    const Tensor& t = st->tensor;
    const StageInfo& info = *st->info;
    const auto label = [&](const std::string& axis, int i) {
      if (axis == "tok") return markdown_cell(w.config.tokens[i]);
      return axis == "sum" || axis == "bias" || axis.empty() ? axis : decimal(i);
    };
    const int rows = t.dim() == 1 ? 1 : t.rows(), cols = t.cols();
    out << "### `" << st->id() << "`: " << st->title() << " (" << shape_str(t.shape, "×")
        << ")\n\n";
    if (st->code.find('\n') == std::string::npos)
      out << "`" << st->code << "`\n";
    else  // a loop: an inline code span would join its lines
      out << "```python\n" << st->code << "\n```\n";
    // One table per (rows, cols) slice: 3-D stages per batch element, 4-D per (batch, head).
    const int heads = t.dim() == 4 ? t.shape[1] : 1;
    const auto number = table_format(t);
    const int slices = t.dim() >= 3 ? static_cast<int>(t.numel() / (std::size_t(rows) * cols)) : 1;
    std::string line;
    for (int b = 0; b < slices; ++b) {
      if (t.dim() == 3) out << "\nbatch[" << b << "]\n";
      if (t.dim() == 4) out << "\nbatch[" << b / heads << "], head[" << b % heads << "]\n";
      line = "\n|   |";
      for (int j = 0; j < cols; ++j) line += " " + label(info.cols, j) + " |";
      out << line << "\n|---|";
      for (int j = 0; j < cols; ++j) out << "---:|";
      out << "\n";
      for (int i = 0; i < rows; ++i) {
        line = "| **" + label(info.rows, i) + "** |";
        for (int j = 0; j < cols; ++j) {
          line += " " + number(t.data[(static_cast<std::size_t>(b) * rows + i) * cols + j]) + " |";
        }
        out << line << "\n";
      }
    }
    out << "\n";
  }
}

}  // namespace

std::string markdown_cell(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c < 0x20 || c == 0x7F) {
      out += ' ';
    } else if (c == 0xC2 && i + 1 < text.size() &&
               static_cast<unsigned char>(text[i + 1]) >= 0x80 &&
               static_cast<unsigned char>(text[i + 1]) < 0xA0) {
      out += ' ';  // C1: U+0080..U+009F
      ++i;
    } else if ((c >= '!' && c <= '/') || (c >= ':' && c <= '@') || (c >= '[' && c <= '`') ||
               (c >= '{' && c <= '~')) {  // ASCII punctuation
      out += '\\';
      out += static_cast<char>(c);
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

void render(std::ostream& out, const Walkthrough& w, const std::vector<const Stage*>& stages,
            Format format) {
  switch (format) {
    case Format::Torch:
      return torch(out, stages);
    case Format::Json:
      return json_out(out, w, stages);
    case Format::Csv:
      return csv(out, stages);
    case Format::Markdown:
      return markdown(out, w, stages);
  }
}

}  // namespace ca
