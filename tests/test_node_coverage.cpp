// The one list of backward node kinds (BackwardFunction in engine/autograd/derivatives.h) is
// checked here against what the tests actually exercise: every kind must be produced by an op
// fixture case (tests/fixtures/ops.json) or a gradcheck program (tests/gradcheck_cases.cpp), so
// a node whose formula is never compared with PyTorch or with finite differences cannot exist.
// Likewise the op runner's table (tests/op_runner.cpp) and the fixture's ops are one set of names:
// no case without a runner, no runner that no case runs.
#include <catch2/catch.hpp>

#include <map>
#include <set>

#include "autograd/node.h"
#include "fixture.h"
#include "gradcheck_cases.h"
#include "op_runner.h"

using namespace ember;
using fixture::json;

namespace {

// How many cases of ops.json run each op.
std::map<std::string, int> cases_per_op() {
  std::map<std::string, int> cases;
  for (const json& c : fixture::load("ops.json")["cases"]) ++cases[c["op"].get<std::string>()];
  return cases;
}

}  // namespace

TEST_CASE("every backward node kind is produced by an op fixture or a gradcheck case", "[autograd]") {
  std::set<std::string> produced;
  size_t differentiable_cases = 0;
  for (const json& c : fixture::load("ops.json")["cases"]) {
    if (!c.contains("grads")) continue;
    std::vector<Tensor> inputs;
    for (const json& spec : c["inputs"]) inputs.push_back(fixture::make(spec, /*requires_grad=*/true));
    collect_node_names(fixture::run_op(c["op"], inputs, c["args"])[0], produced);
    ++differentiable_cases;
  }
  CHECK(differentiable_cases == fixture::load("ops.json")["with_grads"].get<size_t>());
  for (const GradcheckCase& c : gradcheck_cases()) collect_node_names(c.f(c.inputs()), produced);

  // A node whose backward PyTorch itself refuses cannot be compared: test_views_more.cpp asserts its text.
  produced.insert("NotImplemented");
  const std::vector<std::string> kinds = autograd::all_node_names();
  CHECK(kinds.size() == std::variant_size_v<autograd::BackwardFunction>);
  for (const std::string& kind : kinds) {
    INFO("backward node " << kind);
    CHECK(produced.count(kind) == 1);
  }
}

TEST_CASE("every backward node kind has a distinct PyTorch name", "[autograd]") {
  const std::vector<std::string> kinds = autograd::all_node_names();
  CHECK(std::set<std::string>(kinds.begin(), kinds.end()).size() == kinds.size());
}

TEST_CASE("every op of the fixtures has an entry in the op runner's table", "[ops]") {
  for (const auto& [op, cases] : cases_per_op()) {
    INFO("fixture op " << op << ", run by " << cases << " cases");
    CHECK(fixture::op_table().count(op) == 1);
  }
}

TEST_CASE("every entry of the op runner's table is run by a fixture case", "[ops]") {
  const std::map<std::string, int> cases = cases_per_op();
  for (const auto& [op, run] : fixture::op_table()) {
    INFO("op runner entry " << op);
    CHECK(cases.count(op) == 1);
  }
}
