// The programs gradcheck and gradgradcheck run (tests/test_autograd.cpp, test_gradcheck.cpp) and
// the node-coverage test walks (tests/test_node_coverage.cpp): together with the op fixtures,
// every backward node kind of engine/autograd/derivatives.h must appear in one of them.
#pragma once
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "debug/gradcheck.h"
#include "ember.h"

struct GradcheckCase {
  std::string name;
  std::function<ember::Tensor(const std::vector<ember::Tensor>&)> f;
  std::function<std::vector<ember::Tensor>()> inputs;  // fresh float64 leaves that require grad
  // Central differences in float64 with eps 1e-6 are good to about 1e-10 (rounding, 1e-16 / eps)
  // plus eps^2 times the third derivative: PyTorch's gradcheck defaults (atol 1e-5, rtol 1e-3)
  // would pass a gradient wrong in its fourth digit.
  double eps = 1e-6, atol = 1e-8, rtol = 1e-6;
  ember::autograd::GradcheckOptions options() const { return {eps, atol, rtol}; }
};

// The tolerances the suite checks first derivatives with (see GradcheckCase).
inline const ember::autograd::GradcheckOptions kTightGradcheck{1e-6, 1e-8, 1e-6};

const std::vector<GradcheckCase>& gradcheck_cases();

// Adds the names of every node reachable from `t`'s grad_fn (and of the op inside each CopySlices):
// the node kinds a program's graph holds.
void collect_node_names(const ember::Tensor& t, std::set<std::string>& names);
