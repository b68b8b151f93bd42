// std::cout << t, as libtorch 1.13 prints it (aten/src/ATen/core/Formatting.cpp): the values as a
// table of one width and one format for the whole tensor (integers bare, otherwise 4 decimals,
// scientific when magnitudes span more than 10^4, a common factor "1e+03 *" when all are large or
// small), matrices of a 3-d or larger tensor under "(i,j,.,.) = ", 80-column lines, and last a line
// naming its type and sizes, "[ CPUFloatType{2,3} ]". C++ readers see what libtorch shows them;
// Python's repr is Tensor::str() (printing.cpp), which the demos print.
#include <cmath>
#include <iomanip>
#include <ostream>
#include <tuple>

#include "api/ops.h"

namespace ember {

namespace {

constexpr int64_t kLineSize = 80;

// Restores the stream's flags and precision, as libtorch's FormatGuard.
struct FormatGuard {
  explicit FormatGuard(std::ostream& out) : out(out), flags(out.flags()), precision(out.precision()) {}
  ~FormatGuard() {
    out.flags(flags);
    out.precision(precision);
  }
  std::ostream& out;
  std::ios_base::fmtflags flags;
  std::streamsize precision;
};

std::ostream& defaultfloat(std::ostream& out) {
  out.unsetf(std::ios_base::floatfield);
  return out;
}

// The scale factor and the width of each value, and the stream set to their format (__printFormat,
// its quirks kept: the largest magnitude is tracked by the signed value).
std::tuple<double, int64_t> print_format(std::ostream& out, const double* values, int64_t size) {
  if (size == 0) return {1., 0};
  bool int_mode = true;
  for (int64_t i = 0; i < size; ++i)
    if (std::isfinite(values[i]) && values[i] != std::ceil(values[i])) {
      int_mode = false;
      break;
    }
  int64_t offset = 0;
  while (offset < size && !std::isfinite(values[offset])) ++offset;
  double exp_min = 1, exp_max = 1;
  if (offset != size) {
    exp_min = exp_max = std::fabs(values[offset]);
    for (int64_t i = offset; i < size; ++i) {
      const double z = std::fabs(values[i]);
      if (std::isfinite(z)) {
        if (z < exp_min) exp_min = z;
        if (values[i] > exp_max) exp_max = z;
      }
    }
    exp_min = exp_min != 0 ? std::floor(std::log10(exp_min)) + 1 : 1;
    exp_max = exp_max != 0 ? std::floor(std::log10(exp_max)) + 1 : 1;
  }
  double scale = 1;
  int64_t width = 11;
  if (int_mode) {
    if (exp_max > 9) {
      out << std::scientific << std::setprecision(4);
    } else {
      width = static_cast<int64_t>(exp_max) + 1;
      out << defaultfloat;
    }
  } else if (exp_max - exp_min > 4) {
    if (std::fabs(exp_max) > 99 || std::fabs(exp_min) > 99) width += 1;
    out << std::scientific << std::setprecision(4);
  } else {
    if (exp_max > 5 || exp_max < 0) {
      width = 7;
      scale = std::pow(10, exp_max - 1);
    } else {
      width = exp_max == 0 ? 7 : static_cast<int64_t>(exp_max) + 6;
    }
    out << std::fixed << std::setprecision(4);
  }
  return {scale, width};
}

void print_scale(std::ostream& out, double scale) {
  FormatGuard guard(out);
  out << defaultfloat << scale << " *" << std::endl;
}

void print_indent(std::ostream& out, int64_t indent) { out << std::string(indent, ' '); }

// A contiguous float64 matrix, in blocks of the columns that fit a line (__printMatrix).
void print_matrix(std::ostream& out, const Tensor& matrix, int64_t indent) {
  const double* values = matrix.data_ptr<double>();
  auto [scale, width] = print_format(out, values, matrix.numel());
  const int64_t rows = matrix.size(0), columns = matrix.size(1);
  print_indent(out, indent);
  const int64_t per_line = (kLineSize - indent) / (width + 1);
  int64_t first = 0;
  while (first < columns) {
    const int64_t last = first + per_line <= columns ? first + per_line - 1 : columns - 1;
    if (per_line < columns) {
      if (first != 0) out << std::endl;
      out << "Columns " << first + 1 << " to " << last + 1;
      print_indent(out, indent);
    }
    if (scale != 1) {
      print_scale(out, scale);
      print_indent(out, indent);
    }
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t c = first; c <= last; ++c) {
        out << std::setw(width) << values[r * columns + c] / scale;
        if (c != last) {
          out << " ";
          continue;
        }
        out << std::endl;
        if (r != rows - 1) {
          print_indent(out, indent);
          if (scale != 1) out << " ";
        }
      }
    }
    first = last + 1;
  }
}

// A tensor of 3 or more dimensions: each matrix of its last two, under its index (__printTensor).
void print_tensor(std::ostream& out, const Tensor& t) {
  const int64_t outer = t.dim() - 2;
  std::vector<int64_t> counter(outer, 0);
  counter[0] = -1;
  bool start = true;
  while (true) {
    bool finished = false;
    for (int64_t i = 0;; ++i) {
      if (++counter[i] < t.size(i)) break;
      if (i == outer - 1) {
        finished = true;
        break;
      }
      counter[i] = 0;
    }
    if (finished) break;
    if (!start) out << std::endl;
    start = false;
    out << "(";
    Tensor matrix = t;
    for (int64_t i = 0; i < outer; ++i) {
      matrix = matrix.select(0, counter[i]);
      out << counter[i] + 1 << ",";
    }
    out << ".,.) = " << std::endl;
    print_matrix(out, matrix, 1);
  }
}

}  // namespace

std::ostream& operator<<(std::ostream& out, const Tensor& t) {
  FormatGuard guard(out);
  if (!t.defined()) return out << "[ Tensor (undefined) ]";
  const Tensor values = t.detach().to(kCPU).to(kFloat64).contiguous();
  const double* data = values.data_ptr<double>();
  if (values.dim() == 0) {
    out << defaultfloat << data[0] << std::endl;
    out << "[ " << t.toString() << "{";
  } else if (values.dim() == 1) {
    if (values.numel() > 0) {
      auto [scale, width] = print_format(out, data, values.numel());
      if (scale != 1) print_scale(out, scale);
      for (int64_t i = 0; i < values.size(0); ++i) out << std::setw(width) << data[i] / scale << std::endl;
    }
    out << "[ " << t.toString() << "{" << values.size(0);
  } else {
    if (values.numel() > 0) {
      if (values.dim() == 2) print_matrix(out, values, 0);
      else print_tensor(out, values);
    }
    out << "[ " << t.toString() << "{" << values.size(0);
    for (int64_t d = 1; d < values.dim(); ++d) out << "," << values.size(d);
  }
  return out << "} ]";
}

}  // namespace ember
