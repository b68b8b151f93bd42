// Dims: the sizes or strides of a tensor, kept inline (no heap allocation), because every op
// builds a few of them and a tiny `a + b` should not pay for malloc. ember supports up to
// kMaxDims dimensions; asking for more is an error, never an overflow.
#pragma once
#include <array>
#include <cstdint>
#include <initializer_list>
#include <iosfwd>
#include <span>
#include <string>
#include <vector>

#include "error.h"

namespace ember {

class Dims {
 public:
  static constexpr int kMaxDims = 8;

  Dims() = default;
  Dims(std::initializer_list<int64_t> values) { assign(values.begin(), values.size()); }
  // One size, as libtorch's IntArrayRef takes one: ones(5), randn(3), t.sum(1, true).
  Dims(int64_t value) { assign(&value, 1); }
  Dims(const std::vector<int64_t>& values) { assign(values.data(), values.size()); }
  explicit Dims(std::span<const int64_t> values) { assign(values.data(), values.size()); }
  static Dims filled(int64_t count, int64_t value) {
    Dims d;
    for (int64_t i = 0; i < count; ++i) d.push_back(value);
    return d;
  }

  int64_t size() const { return count_; }
  bool empty() const { return count_ == 0; }
  int64_t& operator[](int64_t i) { return values_[i]; }
  int64_t operator[](int64_t i) const { return values_[i]; }
  int64_t back() const { return values_[count_ - 1]; }
  const int64_t* begin() const { return values_.data(); }
  const int64_t* end() const { return values_.data() + count_; }
  int64_t* begin() { return values_.data(); }
  int64_t* end() { return values_.data() + count_; }
  const int64_t* data() const { return values_.data(); }

  void push_back(int64_t v) {
    EMBER_CHECK(count_ < kMaxDims, "ember supports tensors of at most ", kMaxDims, " dimensions");
    values_[count_++] = v;
  }
  void insert(int64_t pos, int64_t v) {
    push_back(0);
    for (int64_t i = count_ - 1; i > pos; --i) values_[i] = values_[i - 1];
    values_[pos] = v;
  }
  void erase(int64_t pos) {
    for (int64_t i = pos; i + 1 < count_; ++i) values_[i] = values_[i + 1];
    --count_;
  }
  std::vector<int64_t> vec() const { return {begin(), end()}; }

  friend bool operator==(const Dims& a, const Dims& b) {
    if (a.count_ != b.count_) return false;
    for (int i = 0; i < a.count_; ++i)
      if (a.values_[i] != b.values_[i]) return false;
    return true;
  }

 private:
  void assign(const int64_t* values, size_t count) {
    EMBER_CHECK(count <= kMaxDims, "ember supports tensors of at most ", kMaxDims, " dimensions, got ", count);
    for (size_t i = 0; i < count; ++i) values_[i] = values[i];
    count_ = static_cast<int8_t>(count);
  }
  std::array<int64_t, kMaxDims> values_{};
  int8_t count_ = 0;
};

// "[3, 5]", as PyTorch prints sizes in its messages.
std::string to_string(const Dims& dims);
// Prints "[2, 3]", as libtorch prints an IntArrayRef (std::cout << t.sizes()).
std::ostream& operator<<(std::ostream& out, const Dims& dims);
// "3x5", as in "mat1 and mat2 shapes cannot be multiplied (4x8 and 16x2)".
std::string join_x(const Dims& dims);
// Product of all entries (1 for no entries): the element count of a tensor of these sizes, checked
// ("numel: integer multiplication overflow" when it does not fit or a size is negative; see
// size_arithmetic.h, which every size computation goes through).
int64_t product(const Dims& dims);
// Row-major strides for `sizes` (a size 0 counts as 1; a stride past an empty dim that does not
// fit wraps around, as PyTorch's does, since no element is reached through it).
Dims contiguous_strides(const Dims& sizes);
// Wraps a possibly negative dim into [0, ndim) or throws PyTorch's "Dimension out of range".
int64_t wrap_dim(int64_t dim, int64_t ndim);

}  // namespace ember
