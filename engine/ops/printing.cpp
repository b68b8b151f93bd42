// Printing, byte for byte as PyTorch 1.13's torch/_tensor_str.py: one number format for the whole
// tensor (integers print as "1.", mixed values with 4 decimals, scientific notation when the
// magnitudes span more than 1000x), right-aligned to a common width, 80-column lines, and tensors
// over 1000 elements summarised with "..." around their first and last 3 entries per dimension.
// tolist_str() prints what Python prints for t.tolist(): the shortest round-trip repr of each value.
#include <charconv>
#include <cmath>
#include <cstdio>

#include "api/ops.h"
#include "autograd/node.h"
#include "printing.h"

namespace ember {

std::string internal::python_float_repr(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  char buffer[64];
  auto result = std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::scientific);
  std::string text(buffer, result.ptr);
  std::string sign;
  if (text[0] == '-') {
    sign = "-";
    text.erase(0, 1);
  }
  const size_t e_pos = text.find('e');
  const int exponent = std::stoi(text.substr(e_pos + 1));
  std::string digits = text.substr(0, e_pos);
  if (digits.size() > 1) digits.erase(1, 1);  // drop the '.'
  if (exponent < -4 || exponent >= 16) {
    std::string mantissa = digits.substr(0, 1);
    if (digits.size() > 1) mantissa.append(".").append(digits, 1);
    char exp_text[16];
    std::snprintf(exp_text, sizeof exp_text, "e%c%02d", exponent < 0 ? '-' : '+', std::abs(exponent));
    return sign + mantissa + exp_text;
  }
  if (exponent < 0) return sign + "0." + std::string(-exponent - 1, '0') + digits;
  if (static_cast<int>(digits.size()) <= exponent + 1)
    return sign + digits + std::string(exponent + 1 - digits.size(), '0') + ".0";
  return sign + digits.substr(0, exponent + 1) + "." + digits.substr(exponent + 1);
}

namespace {

constexpr int kEdgeItems = 3;
constexpr int64_t kThreshold = 1000;
constexpr int kLineWidth = 80;
constexpr int kPrecision = 4;

std::string format_printf(const char* format, double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, format, kPrecision, value);
  return buffer;
}

// One element as printed: a floating value as a double, an integer or bool exactly, as an int64 (a
// double holds every integer only up to 2^53, and 2^53 + 1 would print as 9007199254740992).
struct Element {
  double real = 0;
  int64_t integer = 0;
};

// The elements of a 0-d or 1-d tensor, in order.
std::vector<Element> elements_of(const Tensor& t) {
  std::vector<Element> elements;
  if (t.is_floating_point()) {
    for (double v : t.to_vector<double>()) elements.push_back({v, 0});
  } else {
    for (int64_t v : t.to_vector<int64_t>()) elements.push_back({0, v});
  }
  return elements;
}

// One number format for every element, chosen from the (summarised) values.
struct Formatter {
  bool floating = false;
  bool int_mode = true;
  bool sci_mode = false;
  size_t width = 1;
  DType dtype;

  Formatter(const std::vector<Element>& values, DType dtype) : floating(is_floating_point(dtype)), dtype(dtype) {
    if (!floating) {
      for (const Element& e : values) width = std::max(width, plain(e.integer).size());
      return;
    }
    std::vector<double> finite;
    for (const Element& e : values)
      if (std::isfinite(e.real) && e.real != 0) finite.push_back(std::fabs(e.real));
    if (finite.empty()) return;
    double lo = finite[0], hi = finite[0];
    for (double v : finite) {
      lo = std::min(lo, v);
      hi = std::max(hi, v);
      if (v != std::ceil(v)) int_mode = false;
    }
    if (int_mode) {
      sci_mode = hi / lo > 1000. || hi > 1.e8;
    } else {
      sci_mode = hi / lo > 1000. || hi > 1.e8 || lo < 1.e-4;
    }
    for (const Element& e : values) {
      const double v = e.real;
      if (!std::isfinite(v) || v == 0) continue;
      if (sci_mode) width = std::max(width, format_printf("%.*e", v).size());
      else if (int_mode) width = std::max(width, format_printf("%.0f", v).size() + 1);
      else width = std::max(width, format_printf("%.*f", v).size());
    }
  }

  std::string plain(int64_t v) const {
    if (dtype == kBool) return v != 0 ? "True" : "False";
    return std::to_string(v);
  }

  std::string format(const Element& e) const {
    const double v = e.real;
    std::string text;
    if (!floating) text = plain(e.integer);
    else if (std::isnan(v)) text = "nan";
    else if (std::isinf(v)) text = v > 0 ? "inf" : "-inf";
    else if (sci_mode) text = format_printf("%.*e", v);
    else if (int_mode) text = format_printf("%.0f", v) + ".";
    else text = format_printf("%.*f", v);
    return std::string(width > text.size() ? width - text.size() : 0, ' ') + text;
  }
};

// The indices shown along a dimension of size n: all of them, or when summarising the first and
// last kEdgeItems with kEllipsis ("...") between them.
constexpr int64_t kEllipsis = -1;
std::vector<int64_t> shown_indices(int64_t n, bool summarize) {
  std::vector<int64_t> shown;
  for (int64_t i = 0; i < n; ++i) {
    if (summarize && n > 2 * kEdgeItems && i == kEdgeItems) {
      shown.push_back(kEllipsis);
      i = n - kEdgeItems;
    }
    shown.push_back(i);
  }
  return shown;
}

// The elements the formatter looks at: all of them, or only the shown ones when summarising.
void collect(const Tensor& t, bool summarize, std::vector<Element>& out) {
  if (t.dim() == 0) {
    out.push_back(elements_of(t)[0]);
    return;
  }
  const std::vector<Element> row = t.dim() == 1 ? elements_of(t) : std::vector<Element>();
  for (int64_t i : shown_indices(t.size(0), summarize)) {
    if (i == kEllipsis) continue;
    if (t.dim() == 1) out.push_back(row[i]);
    else collect(t[i], summarize, out);
  }
}

std::string vector_str(const Tensor& t, int indent, bool summarize, const Formatter& formatter) {
  const int element_length = static_cast<int>(formatter.width) + 2;
  const int per_line = std::max(1, (kLineWidth - indent) / element_length);
  std::vector<std::string> data;
  const std::vector<Element> values = elements_of(t);
  for (int64_t i : shown_indices(t.size(0), summarize))
    data.push_back(i == kEllipsis ? " ..." : formatter.format(values[i]));
  std::string out = "[";
  for (size_t i = 0; i < data.size(); ++i) {
    if (i > 0) out += i % per_line == 0 ? ",\n" + std::string(indent + 1, ' ') : ", ";
    out += data[i];
  }
  return out + "]";
}

std::string tensor_str(const Tensor& t, int indent, bool summarize, const Formatter& formatter) {
  if (t.dim() == 0) return formatter.format(elements_of(t)[0]);
  if (t.dim() == 1) return vector_str(t, indent, summarize, formatter);
  std::vector<std::string> slices;
  for (int64_t i : shown_indices(t.size(0), summarize))
    slices.push_back(i == kEllipsis ? "..." : tensor_str(t[i], indent + 1, summarize, formatter));
  std::string separator = ",";
  separator.append(t.dim() - 1, '\n').append(indent + 1, ' ');
  std::string out = "[";
  for (size_t i = 0; i < slices.size(); ++i) out += (i ? separator : "") + slices[i];
  return out + "]";
}

std::string list_str(const Tensor& t) {
  if (t.dim() == 0) {
    const double v = t.item<double>();
    if (t.is_floating_point()) return internal::python_float_repr(v);
    if (t.dtype() == kBool) return v != 0 ? "True" : "False";
    return std::to_string(t.item<int64_t>());
  }
  std::string out = "[";
  for (int64_t i = 0; i < t.size(0); ++i) out += (i ? ", " : "") + list_str(t[i]);
  return out + "]";
}

}  // namespace

std::string Tensor::str() const {
  if (!defined()) return "[ Tensor (undefined) ]";  // libtorch's text
  const std::string prefix = "tensor(";
  const int indent = static_cast<int>(prefix.size());
  Tensor plain = detach().to(kCPU);
  std::vector<std::string> suffixes;
  if (!device().is_cpu()) suffixes.push_back("device='" + device().str() + "'");
  std::string body;
  if (numel() == 0) {
    if (dim() != 1) {
      std::string size = "size=(";
      for (int64_t d = 0; d < dim(); ++d) size += (d ? ", " : "") + std::to_string(this->size(d));
      suffixes.push_back(size + ")");
    }
    if (dtype() != get_default_dtype()) suffixes.push_back("dtype=" + to_string(dtype()));
    body = "[]";
  } else {
    if (dtype() != get_default_dtype() && dtype() != kInt64 && dtype() != kBool)
      suffixes.push_back("dtype=" + to_string(dtype()));
    const bool summarize = numel() > kThreshold;
    std::vector<Element> values;
    collect(plain, summarize, values);
    Formatter formatter(values, dtype());
    body = tensor_str(plain, indent, summarize, formatter);
  }
  if (auto fn = grad_fn()) suffixes.push_back("grad_fn=<" + fn->name() + ">");
  else if (requires_grad()) suffixes.push_back("requires_grad=True");

  std::string out = prefix + body;
  // Python: len(s) - s.rfind("\n") + 1, where rfind gives -1 when there is no newline.
  const size_t newline = out.rfind('\n');
  size_t last_line = out.size() + 1 - (newline == std::string::npos ? size_t(-1) : newline);
  for (const std::string& suffix : suffixes) {
    if (last_line + suffix.size() + 2 > static_cast<size_t>(kLineWidth)) {
      out += ",\n" + std::string(indent, ' ') + suffix;
      last_line = indent + suffix.size();
    } else {
      out += ", " + suffix;
      last_line += suffix.size() + 2;
    }
  }
  return out + ")";
}

std::string Tensor::tolist_str() const { return list_str(detach().to(kCPU)); }

}  // namespace ember
