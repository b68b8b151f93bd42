// gradcheck: compares autograd's gradient with finite differences in float64. For a function
// f of some inputs, it checks the gradient of s = sum(f(x) * r) for a fixed random-looking r
// (a directional check of the whole Jacobian) against (s(x + eps) - s(x - eps)) / (2 eps),
// element by element. Used by the tests; inputs must be float64 leaves that require grad.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "ember.h"

// Returns "" when every analytical gradient matches, else the first mismatch.
std::string gradcheck(const std::function<ember::Tensor(const std::vector<ember::Tensor>&)>& f,
                      std::vector<ember::Tensor> inputs, double eps = 1e-6, double atol = 1e-8, double rtol = 1e-6);
