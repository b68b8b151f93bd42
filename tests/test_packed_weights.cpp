// Packed weights (kernels/packed_weights.h): a weight multiplied again unchanged is read from a
// copy in oneDNN's preferred layout, and an in-place change, which bumps the weight's version
// counter, retires that copy. The tests ask for packing into any layout oneDNN prefers over the
// weight's own, so that they pack on every CPU (by default only blocked layouts are packed, and an
// AVX2 CPU's oneDNN prefers a plain one).
#include <catch2/catch.hpp>

#include "ember.h"
#include "kernels/packed_weights.h"

using namespace ember;
using kernels::cpu::WeightPacking;

namespace {

struct PackIntoAnyOtherLayout {
  const WeightPacking before = kernels::cpu::weight_packing();
  PackIntoAnyOtherLayout() { kernels::cpu::set_weight_packing(WeightPacking::IntoAnyOtherLayout); }
  ~PackIntoAnyOtherLayout() { kernels::cpu::set_weight_packing(before); }
};

// linear(x, w, b) without packing: the weight read from a fresh copy of its values, used once.
Tensor unpacked_reference(const Tensor& x, nn::Linear& layer) {
  NoGradGuard no_grad;
  return addmm(layer->bias(), x, layer->weight().clone().t());
}

// Products of 64 x 256 x 128 multiply-adds: far past the tiny products that skip oneDNN.
constexpr int64_t kBatch = 64, kIn = 256, kOut = 128;

}  // namespace

TEST_CASE("a weight multiplied again unchanged is packed once, and the packed copy is reused", "[packed_weights]") {
  PackIntoAnyOtherLayout packing;
  manual_seed(0);
  nn::Linear layer(kIn, kOut);
  const Tensor x = randn({kBatch, kIn});
  NoGradGuard no_grad;
  const int64_t packings = kernels::cpu::weight_packings();
  const Tensor first = layer(x);  // a first use: the weight as it is
  CHECK(kernels::cpu::weight_packings() == packings);
  const Tensor second = layer(x);  // the same weight again: packed now
  CHECK(kernels::cpu::weight_packings() == packings + 1);
  const Tensor third = layer(x);  // and the packed copy is reused
  CHECK(kernels::cpu::weight_packings() == packings + 1);
  CHECK(allclose(second, first, 1e-5, 1e-6));
  CHECK(equal(third, second));
}

TEST_CASE("an in-place change to a weight retires its packed copy: the next forward reads the new values",
          "[packed_weights]") {
  PackIntoAnyOtherLayout packing;
  manual_seed(0);
  nn::Linear layer(kIn, kOut);
  const Tensor x = randn({kBatch, kIn});
  NoGradGuard no_grad;
  layer(x);
  const Tensor before_change = layer(x);  // read from the packed copy
  const int64_t packings = kernels::cpu::weight_packings();

  layer->weight().mul_(-0.5);  // what an optimizer step does: an in-place op, which bumps the version
  const Tensor expected = unpacked_reference(x, layer);
  const Tensor next = layer(x);
  CHECK(kernels::cpu::weight_packings() == packings);  // a first use of the new version: not packed
  CHECK(allclose(next, expected, 1e-5, 1e-6));
  CHECK_FALSE(allclose(next, before_change, 1e-2, 1e-2));
  const Tensor repacked = layer(x);  // the new values, packed
  CHECK(kernels::cpu::weight_packings() == packings + 1);
  CHECK(allclose(repacked, expected, 1e-5, 1e-6));
}

TEST_CASE("a packed copy is counted in memory_allocated and freed with its weight", "[packed_weights]") {
  PackIntoAnyOtherLayout packing;
  manual_seed(0);
  const Tensor x = randn({kBatch, kIn});
  const int64_t start = memory_allocated();
  {
    nn::Linear layer(kIn, kOut);
    NoGradGuard no_grad;
    layer(x);
    const int64_t unpacked = memory_allocated();
    layer(x);
    // The second output is freed at once; what stays is the copy of the 128 x 256 float weight.
    CHECK(memory_allocated() == unpacked + kOut * kIn * 4);
  }
  CHECK(memory_allocated() == start);
}

TEST_CASE("a training loop packs nothing: each step changes the weights after one use", "[packed_weights]") {
  PackIntoAnyOtherLayout packing;
  manual_seed(0);
  nn::Sequential model{nn::Linear(kIn, kOut), nn::ReLU(), nn::Linear(kOut, kOut)};
  optim::SGD sgd(model->parameters(), optim::SGDOptions(0.01));
  const Tensor x = randn({kBatch, kIn});
  const int64_t packings = kernels::cpu::weight_packings();
  for (int step = 0; step < 3; ++step) {
    sgd.zero_grad();
    model(x).sum().backward();
    sgd.step();
  }
  CHECK(kernels::cpu::weight_packings() == packings);
}

// Each product shape keeps its primitive and memory objects (kernels/matmul.cpp); every call
// points them at its own operands, so products of one shape in a row never read a previous call's.
TEST_CASE("products of one shape in a row each read their own operands and bias", "[packed_weights]") {
  manual_seed(0);
  const Tensor bias = randn({kOut});
  for (int round = 0; round < 3; ++round) {
    const Tensor x = randn({kBatch, kIn}), w = randn({kOut, kIn});
    const Tensor product = addmm(bias, x, w.t());
    const Tensor in_double = addmm(bias.to(kFloat64), x.to(kFloat64), w.to(kFloat64).t());
    CHECK(allclose(product, in_double.to(kFloat32), 1e-4, 1e-4));
    CHECK(allclose(mm(x, w.t()), mm(x.to(kFloat64), w.to(kFloat64).t()).to(kFloat32), 1e-4, 1e-4));
  }
}
