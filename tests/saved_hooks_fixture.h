// Shared by tests/test_saved_tensors_hooks.cpp and test_saved_tensors_hooks_errors.cpp: PyTorch's
// record of its saved-tensor hooks (tests/fixtures/saved_hooks.json, tools/fixtures/saved_hooks.py)
// and the small leaves both files' graphs start from. A header, not a copy in each file: the tests
// are compiled in unity batches, where two files' helpers of one name would clash.
#pragma once
#include <vector>

#include "ember.h"
#include "fixture.h"

namespace saved_hooks_fixture {

inline const fixture::json& hooks_fixture() { return fixture::load("saved_hooks.json"); }

// A float32 leaf that requires grad.
inline ember::Tensor values(std::vector<double> v) { return ember::tensor(v, ember::Options().requires_grad()); }

}  // namespace saved_hooks_fixture
