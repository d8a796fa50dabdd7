#include "torch_format.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

namespace ca {
namespace {

constexpr int kPrecision = 4;
constexpr int kLineWidth = 80;
constexpr std::size_t kThreshold = 1000;
constexpr int kEdgeItems = 3;

std::string fmt(const char* spec, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, spec, kPrecision, v);
  return buf;
}

// Python's "{:.4f}" / "{:.4e}" / "{:.0f}": printf, but non-finite values spelled like Python.
std::string py_format(double v, char kind) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  if (kind == 'i') {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.0f", v);
    return buf;
  }
  return fmt(kind == 'e' ? "%.*e" : "%.*f", v);
}

// _Formatter: one width and one mode for every element of the (summarised) tensor.
class Formatter {
 public:
  explicit Formatter(const std::vector<float>& values) {
    std::vector<double> vals;
    for (const float v : values) {
      if (std::isfinite(v) && v != 0.0f) vals.push_back(v);
    }
    if (vals.empty()) return;  // int mode, width 1
    double min = INFINITY, max = 0;
    for (const double v : vals) {
      min = std::min(min, std::fabs(v));
      max = std::max(max, std::fabs(v));
      if (v != std::ceil(v)) int_mode_ = false;
    }
    if (int_mode_) {
      sci_mode_ = max / min > 1000.0 || max > 1.0e8;
    } else {
      sci_mode_ = max / min > 1000.0 || max > 1.0e8 || min < 1.0e-4;
    }
    for (const double v : vals) {
      const std::string s = sci_mode_   ? py_format(v, 'e')
                            : int_mode_ ? py_format(v, 'i') + "."
                                        : py_format(v, 'f');
      width_ = std::max(width_, static_cast<int>(s.size()));
    }
  }

  int width() const { return width_; }

  std::string format(double v) const {
    std::string s = unpadded(v);
    if (static_cast<int>(s.size()) < width_) s.insert(0, width_ - s.size(), ' ');
    return s;
  }

  std::string unpadded(double v) const {
    std::string s;
    if (sci_mode_) {
      s = py_format(v, 'e');
    } else if (int_mode_) {
      s = py_format(v, 'i');
      if (std::isfinite(v)) s += ".";
    } else {
      s = py_format(v, 'f');
    }
    return s;
  }

 private:
  bool int_mode_ = true;
  bool sci_mode_ = false;
  int width_ = 1;
};

struct View {
  const float* data;
  std::vector<int> shape;
  std::size_t stride(std::size_t d) const {
    std::size_t s = 1;
    for (std::size_t i = d + 1; i < shape.size(); ++i) s *= shape[i];
    return s;
  }
  View sub(int i) const {
    return View{data + i * stride(0), std::vector<int>(shape.begin() + 1, shape.end())};
  }
};

// The indices printed along one dimension: all, or the edge items around "...".
std::vector<int> shown(int size, bool summarize) {
  std::vector<int> idx;
  if (summarize && size > 2 * kEdgeItems) {
    for (int i = 0; i < kEdgeItems; ++i) idx.push_back(i);
    idx.push_back(-1);  // the ellipsis
    for (int i = size - kEdgeItems; i < size; ++i) idx.push_back(i);
  } else {
    for (int i = 0; i < size; ++i) idx.push_back(i);
  }
  return idx;
}

// get_summarized_data: the values the formatter measures.
void collect(const View& v, bool summarize, std::vector<float>& out) {
  for (const int i : shown(v.shape[0], summarize)) {
    if (i < 0) continue;
    if (v.shape.size() == 1)
      out.push_back(v.data[i]);
    else
      collect(v.sub(i), summarize, out);
  }
}

std::string tensor_str(const View& v, int indent, bool summarize, const Formatter& f) {
  if (v.shape.size() == 1) {  // _vector_str
    const int per_line = std::max(1, (kLineWidth - indent) / (f.width() + 2));
    std::vector<std::string> items;
    for (const int i : shown(v.shape[0], summarize))
      items.push_back(i < 0 ? " ..." : f.format(v.data[i]));
    std::string s = "[";
    for (std::size_t k = 0; k < items.size(); ++k) {
      if (k > 0) s += k % per_line == 0 ? ",\n" + std::string(indent + 1, ' ') : ", ";
      s += items[k];
    }
    return s + "]";
  }
  const std::string sep =
      "," + std::string(v.shape.size() - 1, '\n') + std::string(indent + 1, ' ');
  std::string s = "[";
  bool first = true;
  for (const int i : shown(v.shape[0], summarize)) {
    if (!first) s += sep;
    first = false;
    s += i < 0 ? "..." : tensor_str(v.sub(i), indent + 1, summarize, f);
  }
  return s + "]";
}

// The values print(t) shows (and its formatter measures).
std::vector<float> shown_values(const Tensor& t) {
  if (t.shape.empty()) return t.data;
  std::vector<float> measured;
  collect(View{t.data.data(), t.shape}, t.numel() > kThreshold, measured);
  return measured;
}

std::string fixed4(float v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v < 0 ? "−∞" : "∞";
  return fmt("%.*f", v);
}

}  // namespace

std::function<std::string(float)> table_format(const Tensor& t) {
  const std::vector<float> shown = shown_values(t);
  float top = 0;
  for (const float v : shown) top = std::isnan(v) ? top : std::max(top, std::fabs(v));
  if (!(top > 0 && static_cast<double>(top) < 5e-5)) return fixed4;
  return [f = Formatter(shown)](float v) { return f.unpadded(v); };
}

std::string torch_str(const Tensor& t) {
  const std::string prefix = "tensor(";
  if (t.numel() == 0) return prefix + "[])";
  if (t.shape.empty()) return prefix + Formatter(t.data).format(t.data[0]) + ")";  // _scalar_str
  const View v{t.data.data(), t.shape};
  const bool summarize = t.numel() > kThreshold;
  const std::vector<float> measured = shown_values(t);
  return prefix + tensor_str(v, static_cast<int>(prefix.size()), summarize, Formatter(measured)) +
         ")";
}

}  // namespace ca
