// What keeps a tensor's layout, on every device: clone (MemoryFormat::Preserve lays the copy out
// like its source and copies with the device's strided copy kernel, never through the host) and a
// leaf's .grad (PyTorch's gradient layout contract, engine/autograd/accumulate_grad.cpp: laid out
// like the leaf when the leaf is dense; the incoming gradient kept, at version 0, only when nothing
// else holds it and it already has that layout; else copied into that layout with copy_, whose
// write makes it version 1). The rules are the engine's, shared by the devices, so the same checks
// run on the CPU, on the checking device and, where there is one, on the GPU.
#include <catch2/catch.hpp>

#include "device_cases.h"

using namespace ember;

namespace {

const Dims kTransposed{1, 3};  // the strides of a [3, 4] tensor laid out as the transpose of a [4, 3] one

void check_clone_keeps_layout(Device device) {
  const Tensor host = arange(12.).reshape({4, 3});
  const Tensor transposed = host.to(device).t();
  profiler::Profiler prof;
  const Tensor copy = transposed.clone();
  prof.stop();
  CHECK(copy.device() == device);
  CHECK(copy.strides() == kTransposed);
  CHECK_FALSE(copy.is_alias_of(transposed));
  CHECK(equal(copy.to(kCPU), host.t()));
  // One op, the clone and what it calls (as ATen's: empty_strided, then copy_); nothing crossed to
  // another device on the way.
  for (const profiler::Event& event : prof.events().events()) {
    INFO(event.name);
    CHECK((event.name == "aten::clone" || event.name == "aten::empty_strided" || event.name == "aten::copy_"));
  }
  const Tensor packed = transposed.clone(MemoryFormat::Contiguous);
  CHECK(packed.is_contiguous());
  CHECK(equal(packed.to(kCPU), host.t()));
}

// A [3, 4] leaf on `device` laid out transposed.
Tensor transposed_leaf(Device device) {
  Tensor leaf = randn({4, 3}).to(device).t().detach();
  leaf.requires_grad_(true);
  return leaf;
}

void check_gradient_layout_contract(Device device) {
  manual_seed(0);
  SECTION("an expanded gradient (sum's) is copied into the leaf's layout: version 1, then 2 after another") {
    Tensor leaf = transposed_leaf(device);
    leaf.sum().backward();
    CHECK(leaf.grad().device() == device);
    CHECK(leaf.grad().strides() == kTransposed);
    CHECK(leaf.grad()._version() == 1);
    CHECK(equal(leaf.grad().to(kCPU), ones({3, 4})));
    leaf.sum().backward();  // accumulated in place
    CHECK(leaf.grad().strides() == kTransposed);
    CHECK(leaf.grad()._version() == 2);
    CHECK(equal(leaf.grad().to(kCPU), full({3, 4}, 2.0)));
  }
  SECTION("a gradient the caller still holds is copied, even in the leaf's layout") {
    Tensor leaf = transposed_leaf(device);
    const Tensor held = randn({4, 3}).to(device).t();
    leaf.clone().backward(held);  // clone's backward hands the gradient on as it is
    CHECK(leaf.grad().strides() == kTransposed);
    CHECK(leaf.grad()._version() == 1);
    CHECK_FALSE(leaf.grad().is_alias_of(held));
    CHECK(equal(leaf.grad().to(kCPU), held.to(kCPU)));
  }
  SECTION("a fresh gradient in the leaf's layout that nothing else holds is kept: version 0") {
    Tensor leaf = transposed_leaf(device);
    const Tensor weights = randn({4, 3}).to(device).t();  // laid out like the leaf
    (leaf * weights).sum().backward();                    // mul's gradient follows the weights' layout
    CHECK(leaf.grad().strides() == kTransposed);
    CHECK(leaf.grad()._version() == 0);
    CHECK(equal(leaf.grad().to(kCPU), weights.to(kCPU)));
  }
  SECTION("a leaf that is not dense gets a row-major gradient") {
    Tensor leaf = ones({3}).to(device).expand({4, 3}).detach();  // rows overlap: stride 0
    leaf.requires_grad_(true);
    leaf.sum().backward();
    CHECK(leaf.grad().strides() == Dims{3, 1});
    CHECK(equal(leaf.grad().to(kCPU), ones({4, 3})));
  }
}

}  // namespace

TEST_CASE("a clone keeps its source's strides and device", "[autograd][layout]") { check_clone_keeps_layout(kCPU); }

DEVICE_TEST_CASE("a device clone keeps the strides and stays on the device, as PyTorch's does", "[layout]") {
  check_clone_keeps_layout(device);
}

TEST_CASE("a leaf's .grad follows PyTorch's gradient layout contract", "[autograd][layout]") {
  check_gradient_layout_contract(kCPU);
}

DEVICE_TEST_CASE("a device leaf's .grad follows the same layout contract and versions as on the CPU", "[autograd]") {
  check_gradient_layout_contract(device);
}
