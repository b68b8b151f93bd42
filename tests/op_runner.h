// The op runner shared by the fixture tests: runs a case of tests/fixtures/ops.json with ember
// exactly as tools/fixtures/ops_cases.py's OPS table calls PyTorch. One table maps each op name
// of the fixtures to the ember call, so a test can walk it (tests/test_node_coverage.cpp checks
// that it and the fixture's ops are the same set).
#pragma once
#include <map>
#include <string>
#include <vector>

#include "fixture.h"

namespace fixture {

using Inputs = std::vector<ember::Tensor>;

// One op of the fixtures: its outputs (one, or values and indices) for the case's inputs and args.
using OpFunction = std::vector<ember::Tensor> (*)(const Inputs& inputs, const json& args);

// Every op of the fixtures, by the name the cases give it.
const std::map<std::string, OpFunction>& op_table();

// An op's number argument (int, float or bool, as the JSON wrote it).
ember::Scalar scalar_arg(const json& value);

// The outputs of op `op` applied to `inputs` with the case's `args`; throws for an op the table lacks.
std::vector<ember::Tensor> run_op(const std::string& op, const Inputs& inputs, const json& args);

}  // namespace fixture
