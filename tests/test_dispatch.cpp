// The dispatcher (engine/dispatch.h): one op call records one node, whatever the op calls inside
// (Note [Compute under no_grad]); kernels come from a per-device table that names what a device
// lacks, and every device fills every slot of kernels/kernel_list.h; an engine bug reads differently
// from a user error.
#include <catch2/catch.hpp>

#include "autograd/node.h"
#include "ember.h"
#include "kernels/backend.h"

using namespace ember;

TEST_CASE("an op records one node: what it computes with inside records nothing", "[dispatch][autograd]") {
  Tensor x = ones({2, 3}, Options().requires_grad());
  Tensor target = zeros({2, 3});
  Tensor loss = mse_loss(x, target);  // computed with sub, mul and mean inside
  auto node = loss.grad_fn();
  REQUIRE(node != nullptr);
  CHECK(node->name() == "MseLossBackward0");
  REQUIRE(node->next_edges.size() == 2);  // one edge per tensor argument: input, target
  CHECK(node->next_edges[0].node->name() == "torch::autograd::AccumulateGrad");
  CHECK(node->next_edges[1].node == nullptr);  // the target needs no gradient
}

TEST_CASE("an in-place op is checked before it writes anything", "[dispatch][autograd]") {
  Tensor leaf = ones({2}, Options().requires_grad());
  CHECK_THROWS_WITH(leaf.mul_(3), "a leaf Variable that requires grad is being used in an in-place operation.");
  CHECK(leaf.tolist_str() == "[1.0, 1.0]");
  CHECK(leaf._version() == 0);
}

TEST_CASE("the kernel table names the kernel a device is missing", "[dispatch]") {
  const kernels::KernelTable without_entries("CUDA");
  Tensor t = ones({1});
  CHECK_THROWS_WITH(without_entries.fill(t, 2), "ember: 'fill' has no CUDA kernel yet");
  CHECK(t.item<float>() == 1);
}

// kernels/kernel_list.h's lines, each device's table filled or not: a kernel added to the list but
// forgotten in a device's table (kernels/backend.cpp, cuda/kernel_table.cu) fails here.
std::vector<std::string> unfilled_slots(const kernels::KernelTable& table) {
  std::vector<std::string> unfilled;
#define EMBER_COLLECT_UNFILLED(name, result, parameters) \
  if (!table.name.available()) unfilled.push_back(#name);
  EMBER_KERNELS(EMBER_COLLECT_UNFILLED)
#undef EMBER_COLLECT_UNFILLED
  return unfilled;
}

TEST_CASE("every kernel in the list has an entry on the CPU and the checking device, and on CUDA in a build with CUDA",
          "[dispatch]") {
  CHECK(unfilled_slots(kernels::on(kCPU)).empty());
  CHECK(unfilled_slots(kernels::on(checked_device(0))).empty());
  const std::vector<std::string> cuda_unfilled = unfilled_slots(kernels::on(cuda_device(0)));
  if (cuda::is_built()) CHECK(cuda_unfilled.empty());
  else CHECK(cuda_unfilled.size() == unfilled_slots(kernels::KernelTable("CUDA")).size());  // no CUDA entry at all
}

TEST_CASE("an internal assertion is an engine bug, reported with where it failed", "[dispatch]") {
  auto broken_invariant = [] { EMBER_INTERNAL_ASSERT(1 + 1 == 3, "arithmetic is broken"); };
  CHECK_THROWS_AS(broken_invariant(), InternalError);
  CHECK_THROWS_WITH(broken_invariant(),
                    Catch::Contains("INTERNAL ASSERT FAILED at") && Catch::Contains("test_dispatch.cpp") &&
                        Catch::Contains("please report a bug to ember. 1 + 1 == 3 arithmetic is broken"));
}
