// A leaf tensor that requires grad, from its values and sizes: where the graphs of
// tests/test_autograd.cpp and test_autograd_inplace.cpp start. A header, not a copy in each file:
// the tests are compiled in unity batches, where two files' helpers of one name would clash.
#pragma once
#include <vector>

#include "ember.h"

namespace autograd_leaf {

inline ember::Tensor leaf(const std::vector<double>& values, const ember::Dims& sizes,
                          ember::DType dtype = ember::kFloat32) {
  ember::Tensor t = ember::from_vector(values, sizes, dtype);
  t.requires_grad_();
  return t;
}

}  // namespace autograd_leaf
