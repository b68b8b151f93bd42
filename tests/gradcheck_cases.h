// The programs gradcheck runs (tests/test_autograd.cpp) and the node-coverage test walks
// (tests/test_node_coverage.cpp): together with the op fixtures, every backward node kind of
// engine/autograd/derivatives.h must appear in one of them.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "ember.h"

struct GradcheckCase {
  std::string name;
  std::function<ember::Tensor(const std::vector<ember::Tensor>&)> f;
  std::function<std::vector<ember::Tensor>()> inputs;  // fresh float64 leaves that require grad
  double eps = 1e-6, atol = 1e-5, rtol = 1e-3;
};

const std::vector<GradcheckCase>& gradcheck_cases();
