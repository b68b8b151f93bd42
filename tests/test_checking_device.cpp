// The checking device itself (engine/core/checking_device.h): its name, and its refusals. Its
// kernels are the CPU's behind a check of every tensor they are handed, and its copies are memcpy
// behind a check of each side, so a host-side mistake about devices fails here naming the kernel,
// the argument and both devices. What runs on it (every op, the training step, memory, layouts)
// is the device-generic suite, tests/device_cases.h.
#include <catch2/catch.hpp>

#include <cstdlib>

#include "api/new_tensors.h"
#include "core/checking_device.h"
#include "ember.h"
#include "kernels/backend.h"

using namespace ember;

TEST_CASE("the checking device is named, parsed and printed as PyTorch names a device", "[checked]") {
  CHECK(Device("checked") == checked_device(0));
  CHECK(Device("checked:1") == checked_device(1));
  CHECK(checked_device(1).str() == "checked:1");
  CHECK_FALSE(checked_device(0).is_cpu());
  CHECK_THROWS_WITH(Device("checked:x"),
                    "Expected one of cpu, cuda, checked device type at start of device string: checked:x");
}

TEST_CASE("a kernel on the checking device handed a CPU scalar's pointer names the kernel, argument and devices",
          "[checked][errors]") {
  // A planted mistake, the one ember's element-wise ops made with numbers: a 0-dim CPU tensor (a
  // wrapped number) broadcast and handed to a device's kernel, whose GPU twin would read a host
  // address.
  const Tensor x = ones({3}, Options(checked_device()));
  const Tensor number = internal::broadcast_to(internal::scalar(2, kFloat32), {3});
  const Tensor out = internal::new_empty({3}, kFloat32, checked_device());
  CHECK_THROWS_WITH(kernels::on(checked_device()).binary(kernels::BinaryOp::Mul, out, x, number, 1),
                    "Expected all tensors to be on the same device, but found at least two devices, checked:0 and "
                    "cpu! (when checking argument for argument b in kernel binary)");
  // An output made on the CPU is refused as well, whichever argument comes first.
  const Tensor cpu_out = internal::new_empty({3}, kFloat32);
  CHECK_THROWS_WITH(kernels::on(checked_device()).unary(kernels::UnaryOp::Exp, cpu_out, x, 0),
                    "Expected all tensors to be on the same device, but found at least two devices, checked:0 and "
                    "cpu! (when checking argument for argument out in kernel unary)");
}

TEST_CASE("a kernel on the checking device refuses bytes its allocator did not hand out", "[checked][errors]") {
  float host[4] = {1, 2, 3, 4};
  auto storage = std::make_shared<Storage>(host, sizeof host, checked_device(), [](void*) {});
  const Tensor impostor(std::make_shared<TensorImpl>(storage, Dims{4}, Dims{1}, 0, kFloat32, true));
  const Tensor out = internal::new_empty({4}, kFloat32, checked_device());
  CHECK_THROWS_WITH(kernels::on(checked_device()).copy(out, impostor),
                    "ember: argument src of kernel copy is on checked:0 but its bytes are not in a block of "
                    "checked:0's allocator");
  // A view reaching past its block is refused too: the block ends where the allocator says.
  const Tensor small = ones({4}, Options(checked_device()));
  const Tensor past_the_end(std::make_shared<TensorImpl>(*small.impl(), Dims{4}, Dims{1000}, 0, kFloat32));
  CHECK_THROWS_WITH(kernels::on(checked_device()).fill(past_the_end, 0),
                    "ember: argument dst of kernel fill is on checked:0 but its bytes are not in a block of "
                    "checked:0's allocator");
}

TEST_CASE("a copy to or from the checking device checks which side is its memory", "[checked][errors]") {
  const Tensor on_device = ones({2}, Options(checked_device()));
  float host[2] = {0, 0};
  using cuda::CopyKind;
  CHECK_THROWS_WITH(copy_bytes(checked_device(), host, on_device.raw_data(), 8, CopyKind::HostToDevice),
                    "ember: a copy on checked:0 was handed a destination that is not a block of checked:0's allocator");
  CHECK_THROWS_WITH(copy_bytes(checked_device(), on_device.raw_data(), on_device.raw_data(), 8, CopyKind::HostToDevice),
                    "ember: a copy on checked:0 was handed a host source that is a block of checked:0's allocator");
  copy_bytes(checked_device(), host, on_device.raw_data(), 8, CopyKind::DeviceToHost);
  CHECK((host[0] == 1 && host[1] == 1));
}

TEST_CASE("an empty tensor moves to and from the checking device, as to a GPU", "[checked]") {
  // An empty tensor may own no block at all; a copy of no bytes has nothing to check (cudaMemcpy
  // of 0 bytes succeeds too). Found by the sweep of split and diagonal cases with empty results.
  const Tensor moved = zeros({0, 3}, kFloat64).to(checked_device());
  CHECK(moved.device() == checked_device());
  CHECK(moved.sizes() == Dims{0, 3});
  CHECK(moved.to(kCPU).numel() == 0);
}
