// The GPU's op sweeps (tests/test_cuda_ops.cpp), written for any device so that the CPU runs the
// same code: each case of tests/fixtures/ops.json is built on the device with its views, run, and
// compared on the host with PyTorch's values. Every case reports on its own: whatever a case
// throws is caught and reported under the case's name, and the sweep goes on, so one op that
// fails on a new device never hides the other cases.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "fixture.h"

namespace op_sweep {

struct Report {
  size_t checked = 0;                 // cases that ran to the end (their differences are failures too)
  std::vector<std::string> failures;  // "op case NAME: what differed", or "op case NAME threw: what"
};

// What one case found: "" when it matches PyTorch, else the first difference.
using CaseCheck = std::function<std::string(const fixture::json& c)>;

// Runs `check` on each case; a case that throws counts as a failure, not as checked.
Report run_each(const fixture::json& cases, const CaseCheck& check);

// The case's outputs, computed on `device`: on that device, and within `factor` times the CPU's
// tolerance of PyTorch's (fixture::compare_loosely).
std::string check_outputs(const fixture::json& c, ember::Device device, double factor);

// The case's gradients (a case with "grads"), through its views to the bases made on `device`.
std::string check_gradients(const fixture::json& c, ember::Device device, double factor);

}  // namespace op_sweep
