// The op runner shared by the fixture tests: runs a case of tests/fixtures/ops.json with ember
// exactly as tools/fixtures/ops_cases.py's run_op calls PyTorch.
#pragma once
#include <string>
#include <vector>

#include "fixture.h"

namespace fixture {

// An op's number argument (int, float or bool, as the JSON wrote it).
ember::Scalar scalar_arg(const json& value);

// The outputs of op `op` applied to `inputs` with the case's `args`.
std::vector<ember::Tensor> run_op(const std::string& op, const std::vector<ember::Tensor>& inputs, const json& args);

}  // namespace fixture
