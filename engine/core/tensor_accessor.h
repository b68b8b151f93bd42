// libtorch's TensorAccessor: element access on the CPU without a check per element. The dtype and
// the number of dimensions are checked once, by Tensor::accessor<T, N>(); then a[i][j] is plain
// pointer arithmetic over the tensor's sizes and strides, which the accessor borrows (so it must
// not outlive the tensor, as in libtorch).
//
//   auto a = t.accessor<float, 2>();
//   for (int64_t i = 0; i < a.size(0); ++i) trace += a[i][i];
#pragma once
#include <cstddef>
#include <cstdint>

namespace ember {

template <typename T, size_t N>
class TensorAccessor {
 public:
  TensorAccessor(T* data, const int64_t* sizes, const int64_t* strides)
      : data_(data),
        sizes_(sizes),
        strides_(strides) {}
  // One index fewer: the sub-array at i along the first dimension; when N is 1, the element itself
  // (a T&, which `a[i] = v` writes through).
  decltype(auto) operator[](int64_t i) const {
    if constexpr (N == 1) return data_[strides_[0] * i];
    else return TensorAccessor<T, N - 1>(data_ + strides_[0] * i, sizes_ + 1, strides_ + 1);
  }
  int64_t size(int64_t dim) const { return sizes_[dim]; }
  int64_t stride(int64_t dim) const { return strides_[dim]; }
  T* data() const { return data_; }

 private:
  T* data_;
  const int64_t* sizes_;
  const int64_t* strides_;
};

}  // namespace ember
