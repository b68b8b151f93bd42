// The backward nodes of the matrix products: d(a b) = da b + a db, each product's gradient laid
// out as ATen lays it out. One section of autograd's formulas (derivatives.h).
#pragma once
#include "api/ops.h"
#include "formula_helpers.h"
#include "saved_tensor.h"

namespace ember::autograd {

// ---- matrix products: d(a b) = da b + a db ----
struct MmBackward0 {
  static constexpr const char* name = "MmBackward0";
  EMBER_SAVED_TENSORS(self, mat2);
  bool self_column_major = false, mat2_column_major = false;  // see mm_mat1_backward
  Grads apply(const Tensor& g, Needs needs) const {
    const Tensor a = self.unpack(), b = mat2.unpack();  // in the order saved (PyTorch's)
    return {needs[0] ? mm_mat1_backward(g, b, self_column_major) : Tensor(),
            needs[1] ? mm_mat2_backward(g, a, mat2_column_major) : Tensor()};
  }
};
struct AddmmBackward0 {  // beta * self + alpha * mat1 @ mat2
  static constexpr const char* name = "AddmmBackward0";
  EMBER_SAVED_TENSORS(mat1, mat2);
  Scalar alpha = 1, beta = 1;
  bool mat1_column_major = false, mat2_column_major = false;  // see mm_mat1_backward
  Grads apply(const Tensor& g, Needs needs) const {
    return {needs[0] ? scaled(g, beta) : Tensor(),
            needs[1] ? scaled(mm_mat1_backward(g, mat2.unpack(), mat1_column_major), alpha) : Tensor(),
            needs[2] ? scaled(mm_mat2_backward(g, mat1.unpack(), mat2_column_major), alpha) : Tensor()};
  }
};
struct BmmBackward0 {
  static constexpr const char* name = "BmmBackward0";
  EMBER_SAVED_TENSORS(self, mat2);
  Grads apply(const Tensor& g, Needs needs) const {
    const Tensor a = self.unpack(), b = mat2.unpack();  // in the order saved (PyTorch's)
    return {needs[0] ? bmm(g, b.transpose(1, 2)) : Tensor(), needs[1] ? bmm(a.transpose(1, 2), g) : Tensor()};
  }
};
struct DotBackward0 {
  static constexpr const char* name = "DotBackward0";
  EMBER_SAVED_TENSORS(self, tensor);
  Grads apply(const Tensor& g, Needs needs) const {
    return {needs[0] ? g * tensor.unpack() : Tensor(), needs[1] ? g * self.unpack() : Tensor()};
  }
};
struct MvBackward0 {
  static constexpr const char* name = "MvBackward0";
  EMBER_SAVED_TENSORS(self, vec);
  Grads apply(const Tensor& g, Needs needs) const {
    return {needs[0] ? g.unsqueeze(1) * vec.unpack().unsqueeze(0) : Tensor(),
            needs[1] ? matmul(self.unpack().t(), g) : Tensor()};
  }
};

// This section's nodes, for BackwardFunction (derivatives.h).
using LinalgNodes = NodeList<MmBackward0, AddmmBackward0, BmmBackward0, DotBackward0, MvBackward0>;

}  // namespace ember::autograd
