// Small profiled lines record PyTorch 1.13's event trees exactly: the same events, as often, in
// the same order, nested the same way, with the same input shapes (record_shapes), with the calls ATen's ops make
// inside themselves (as_strided inside transpose, empty_like and copy_ inside clone, clamp_min inside relu), except the
// rows of profiler/documented_differences.h. PyTorch's trees: tests/fixtures/profiler.json "trees".
#include <catch2/catch.hpp>

#include <functional>

#include "fixture.h"
#include "profiler/documented_differences.h"
#include "profiler_trees.h"

using namespace ember;
using namespace profiler_trees;

namespace {

const fixture::json& fixture_tree(const std::string& name) { return fixture::load("profiler.json")["trees"][name]; }

// Profiles `line` with record_shapes and compares its tree, shapes included, with the fixture's
// `name` case.
void check_tree(const std::string& name, const std::function<void()>& line) {
  profiler::Profiler prof({.record_shapes = true});
  line();
  prof.stop();
  const std::vector<Node> ember = ember_tree(prof.events(), WithShapes::Yes);
  const std::vector<Node> pytorch = pytorch_tree(fixture_tree(name)["tree"], WithShapes::Yes);
  INFO(fixture_tree(name)["code"].get<std::string>()
       << "\nember:\n"
       << printed(ember) << "PyTorch 1.13, without the documented differences:\n"
       << printed(pytorch));
  CHECK(edge_counts(ember) == edge_counts(pytorch));
  CHECK(ember == pytorch);
}

struct Small {
  Tensor x = randn({4, 6});
};

}  // namespace

TEST_CASE("the chapter's forward under no_grad records PyTorch's event tree", "[profiler]") {
  nn::Sequential big{nn::Linear(512, 512), nn::ReLU(), nn::Linear(512, 512)};
  Tensor xb = randn({256, 512});
  check_tree("chapter_no_grad", [&] {
    NoGradGuard no_grad;
    (void)big(xb).sum();
  });
}

TEST_CASE("a clone of a transposed tensor records empty_strided and copy_ inside clone, as PyTorch", "[profiler]") {
  Small small;
  check_tree("clone_of_transposed", [&] { (void)small.x.t().clone(); });
}

TEST_CASE("contiguous() of a transposed tensor records contiguous > clone > empty_like > empty, copy_", "[profiler]") {
  Small small;
  check_tree("contiguous_of_transposed", [&] { (void)small.x.t().contiguous(); });
}

TEST_CASE("ones_like records empty_like > empty_strided, then fill_, as PyTorch", "[profiler]") {
  Small small;
  check_tree("ones_like", [&] { (void)ones_like(small.x); });
}

TEST_CASE("sum records PyTorch's event tree but for its documented differences", "[profiler]") {
  Small small;
  check_tree("sum", [&] { (void)small.x.sum(); });
}

TEST_CASE("relu records clamp_min inside it, as PyTorch's CPU relu", "[profiler]") {
  Small small;
  check_tree("relu", [&] { (void)relu(small.x); });
}

TEST_CASE("a Linear with bias records t > transpose > as_strided and addmm > expand > as_strided", "[profiler]") {
  Small small;
  nn::Linear linear(6, 3);
  check_tree("linear_with_bias", [&] { (void)linear(small.x); });
}

TEST_CASE("every documented difference is a call PyTorch records in some fixture tree", "[profiler]") {
  // A row that matches nothing in PyTorch's trees would be an excuse for nothing.
  const fixture::json& profiles = fixture::load("profiler.json");
  for (const profiler::DocumentedDifference& row : profiler::kDocumentedDifferences) {
    INFO(row.name << " under " << (std::string(row.under).empty() ? "any parent" : row.under));
    bool found = pytorch_records(profiles["chapter"]["tree"], row.name, row.under);
    for (const auto& [name, tree] : profiles["trees"].items())
      found = found || pytorch_records(tree["tree"], row.name, row.under);
    for (const fixture::json& call : fixture::load("losses.json")["calls"])  // the losses' trees (test_losses.cpp)
      found = found || (!call["tree"].is_null() && pytorch_records(call["tree"], row.name, row.under));
    CHECK(found);
  }
}

TEST_CASE("rand records aten::rand > empty, uniform_ as PyTorch", "[profiler][factories]") {
  check_tree("rand", [] { (void)rand({4, 6}); });
}

TEST_CASE("randn records aten::randn > empty, normal_ as PyTorch", "[profiler][factories]") {
  check_tree("randn", [] { (void)randn({4, 6}); });
}

TEST_CASE("zeros records aten::zeros > empty, zero_ as PyTorch", "[profiler][factories]") {
  check_tree("zeros", [] { (void)zeros({4, 6}); });
}

TEST_CASE("ones records aten::ones > empty, fill_ as PyTorch", "[profiler][factories]") {
  check_tree("ones", [] { (void)ones({4, 6}); });
}

TEST_CASE("full records aten::full > empty, fill_ as PyTorch", "[profiler][factories]") {
  check_tree("full", [] { (void)full({4, 6}, 2.5); });
}

TEST_CASE("rand_like records empty_like > empty_strided, then uniform_, as PyTorch", "[profiler][factories]") {
  Small small;
  check_tree("rand_like", [&] { (void)rand_like(small.x); });
}

TEST_CASE("randn_like records empty_like > empty_strided, then normal_, as PyTorch", "[profiler][factories]") {
  Small small;
  check_tree("randn_like", [&] { (void)randn_like(small.x); });
}

TEST_CASE("zeros_like records empty_like > empty_strided, then zero_, as PyTorch", "[profiler][factories]") {
  Small small;
  check_tree("zeros_like", [&] { (void)zeros_like(small.x); });
}

TEST_CASE("full_like records empty_like > empty_strided, then fill_, as PyTorch", "[profiler][factories]") {
  Small small;
  check_tree("full_like", [&] { (void)full_like(small.x, 2.5); });
}
