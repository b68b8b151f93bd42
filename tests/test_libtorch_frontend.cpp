// libtorch's C++ spellings of what ember already does (examples/libtorch compiles against ember
// with `namespace torch = ember;`): one size as a size list, TensorOptions and its helpers,
// accessors, index methods, element assignment, from_blob's short forms, toString, norm, eq, all,
// expand_as and saved_data's IValues. How tensors print is the programs' own test (their output
// against tests/fixtures/libtorch, examples/CMakeLists.txt).
#include <catch2/catch.hpp>

#include <sstream>

#include "ember.h"

using namespace ember;
using namespace ember::indexing;

TEST_CASE("one number is a list of one size, as libtorch's IntArrayRef", "[libtorch]") {
  CHECK(ones(5).sizes() == Dims{5});
  CHECK(zeros(3, kInt64).dtype() == kInt64);
  Tensor t = arange(6.).reshape({2, 3});
  CHECK(t.sum(1, true).sizes() == Dims{2, 1});
  CHECK(t.sum(1, true).tolist_str() == "[[3.0], [12.0]]");
  CHECK(t.sum(0).tolist_str() == "[3.0, 5.0, 7.0]");
  CHECK(t.reshape(-1).sizes() == Dims{6});
}

TEST_CASE("sizes print as libtorch prints an IntArrayRef", "[libtorch]") {
  std::ostringstream out;
  out << arange(6.).reshape({2, 3}).sizes() << " " << zeros({}).sizes() << " " << Dims{4};
  CHECK(out.str() == "[2, 3] [] [4]");
}

TEST_CASE("TensorOptions chain, and dtype(), device() and requires_grad() start a chain", "[libtorch]") {
  Tensor a = ones(3, dtype(kFloat64).requires_grad(true));
  CHECK((a.dtype() == kFloat64 && a.requires_grad()));
  Tensor b = full({2}, 4, TensorOptions().dtype(kInt64).layout(kStrided).device(kCPU));
  CHECK((b.dtype() == kInt64 && b.device() == kCPU && !b.requires_grad()));
  CHECK(ones(2, requires_grad()).requires_grad());
  CHECK(ones(2, device(kCPU).dtype(kBool)).dtype() == kBool);
  CHECK(Device(kCUDA, 1).str() == "cuda:1");
  CHECK((kFloat == kFloat32 && kDouble == kFloat64 && kLong == kInt64 && kHalf == kFloat16));
}

TEST_CASE("a tensor's options are its dtype and device, without requires_grad", "[libtorch]") {
  Tensor t = ones({2}, Options(kFloat64).device(checked_device()).requires_grad());
  Tensor alike = zeros({3}, t.options());
  CHECK((alike.dtype() == kFloat64 && alike.device() == checked_device() && !alike.requires_grad()));
}

TEST_CASE("toString names the tensor's backend and scalar type as libtorch does", "[libtorch]") {
  CHECK(ones(1).toString() == "CPUFloatType");
  CHECK(ones(1, kFloat64).toString() == "CPUDoubleType");
  CHECK(ones(1, kInt64).toString() == "CPULongType");
  CHECK(ones(1, kBool).toString() == "CPUBoolType");
  CHECK(ones(1, kBFloat16).toString() == "CPUBFloat16Type");
  CHECK(ones(1, Options(checked_device())).toString() == "PrivateUse1FloatType");
}

TEST_CASE("an accessor reads and writes elements through the tensor's strides", "[libtorch]") {
  Tensor t = arange(6.).reshape({2, 3});
  Tensor transposed = t.t();  // strides (1, 3); an accessor of a temporary does not compile, as in libtorch
  auto a = transposed.accessor<float, 2>();
  CHECK((a.size(0) == 3 && a.size(1) == 2 && a.stride(0) == 1 && a.stride(1) == 3));
  CHECK(a[2][1] == 5);
  a[0][1] = 30;
  CHECK(t.tolist_str() == "[[0.0, 1.0, 2.0], [30.0, 4.0, 5.0]]");
  auto row = t.accessor<float, 2>()[1];
  CHECK(row[2] == 5);
  Tensor first = t[0];
  CHECK(first.accessor<float, 1>()[1] == 1);
}

TEST_CASE("an accessor checks dtype, dimensions and device once, with libtorch's messages", "[libtorch]") {
  Tensor t = zeros({2, 3});
  CHECK_THROWS_WITH((t.accessor<double, 2>()), "expected scalar type Double but found Float");
  CHECK_THROWS_WITH((t.accessor<float, 3>()), "TensorAccessor expected 3 dims but tensor has 2");
  Tensor on_device = zeros({2}, Options(checked_device()));
  CHECK_THROWS_WITH((on_device.accessor<float, 1>()), "accessor() reads CPU memory, but the tensor is on checked:0");
}

TEST_CASE("index and index_put_ as methods are the indexing functions", "[libtorch]") {
  Tensor t = arange(12).reshape({3, 4});
  CHECK(t.index({Slice(), 1}).tolist_str() == "[1, 5, 9]");
  CHECK(t.index({Slice(1, None), Slice(None, None, 2)}).tolist_str() == "[[4, 6], [8, 10]]");
  CHECK(t.index({None, Ellipsis}).sizes() == Dims{1, 3, 4});
  CHECK(t.index({Slice(), 1}).is_alias_of(t));
  t.index_put_({0, Slice(0, 2)}, 100);
  t.index_put_({Slice(), 3}, full({3}, 7, kInt64));
  CHECK(t.tolist_str() == "[[100, 100, 2, 7], [4, 5, 6, 7], [8, 9, 10, 7]]");
  CHECK_THROWS_WITH(t.index({0, 0, 0}), "too many indices for tensor of dimension 2");
}

TEST_CASE("a number assigned to an element of a temporary view fills that element", "[libtorch]") {
  Tensor t = zeros({2, 3});
  t[1][2] = 7;
  t[0] = 1.5;
  CHECK(t.tolist_str() == "[[1.5, 1.5, 1.5], [0.0, 0.0, 7.0]]");
  CHECK(t._version() == 2);
}

TEST_CASE("from_blob without a deleter borrows the bytes, and with one it calls it once at the end", "[libtorch]") {
  float data[] = {1, 2, 3, 4, 5, 6};
  Tensor t = from_blob(data, {2, 3});
  CHECK(t.strides() == Dims{3, 1});
  data[4] = 50;
  CHECK(t[1][1].item<float>() == 50);
  int calls = 0;
  {
    auto* owned = new double[2]{0.5, 1.5};
    Tensor u = from_blob(
        owned, 2,
        [&](void* p) {
          delete[] static_cast<double*>(p);
          ++calls;
        },
        kFloat64);
    Tensor view = u[1];
    u = Tensor();
    CHECK(calls == 0);  // the view still holds the bytes
    CHECK(view.item<double>() == 1.5);
  }
  CHECK(calls == 1);
}

TEST_CASE("cpu() and cuda() move a tensor as to() does", "[libtorch]") {
  Tensor t = ones(2);
  CHECK(t.cpu().is_same(t));
  CHECK(ones(2, Options(checked_device())).cpu().device() == kCPU);
}

TEST_CASE("norm is the p-norm of all elements, as torch.norm", "[libtorch]") {
  Tensor t = tensor({3, -4});
  CHECK(t.norm().item<float>() == 5);
  CHECK(t.norm(1).item<float>() == 7);
  CHECK(t.norm(INFINITY).item<float>() == 4);
  CHECK(t.norm(0).item<float>() == 2);
  CHECK(tensor({3, 4}, kFloat64).norm(3).dtype() == kFloat64);
  Tensor x = tensor({3, -4}, requires_grad());
  x.norm().backward();
  CHECK(x.grad().tolist_str() == "[0.6000000238418579, -0.800000011920929]");  // PyTorch's [0.6, -0.8] in float32
  CHECK_THROWS_WITH(arange(3).norm(),
                    "norm(): input dtype should be either floating point or complex. Got Long instead.");
}

TEST_CASE("eq, all and expand_as as methods", "[libtorch]") {
  Tensor x = tensor({1, 2, 3});
  CHECK(x.eq(x.detach()).all().item<bool>());
  CHECK(x.eq(2).tolist_str() == "[False, True, False]");
  CHECK(x.eq(tensor({1, 0, 3})).all().dtype() == kBool);
  CHECK_FALSE(x.eq(tensor({1, 0, 3})).all().item<bool>());
  CHECK(tensor({1}).expand_as(zeros({2, 3})).sizes() == Dims{2, 3});
}

TEST_CASE("saved_data reads back as libtorch's IValue, std::any underneath", "[libtorch]") {
  autograd::IValue d = 2.5, i = int64_t{3}, small = 4, b = true, t = ones(2);
  CHECK((d.toDouble() == 2.5 && i.toInt() == 3 && small.toInt() == 4 && b.toBool()));
  CHECK(t.toTensor().numel() == 2);
  CHECK(std::any_cast<double>(d) == 2.5);
  CHECK_THROWS_WITH(i.toDouble(), "Expected Double but got Int");
  CHECK_THROWS_WITH(autograd::IValue().toTensor(), "Expected Tensor but got None");
  CHECK_THROWS_WITH(autograd::IValue(std::string("x")).toInt(), "Expected Int but got another type");
}

TEST_CASE("a number in C++ records libtorch's *Backward1 node, and Python's wrapped number *Backward0", "[libtorch]") {
  const Tensor x = tensor({1.0, 2.0}).requires_grad_();
  const Tensor times_three = x * 3;
  CHECK(times_three.grad_fn()->name() == "MulBackward1");
  CHECK(times_three.grad_fn()->next_functions().size() == 1);  // the number is no input
  CHECK(times_three.grad_fn()->saved_tensors().empty());       // and is kept as a plain value
  const Tensor wrapped = wrapped_number::mul(x, 3);            // what Python's `x * 3` calls
  CHECK(wrapped.grad_fn()->name() == "MulBackward0");
  CHECK(wrapped.grad_fn()->next_functions().size() == 2);  // the second edge, the number's, empty
  CHECK((x + 2).grad_fn()->name() == "AddBackward1");
  CHECK((x - 2).grad_fn()->name() == "SubBackward1");
  CHECK((x / 2).grad_fn()->name() == "DivBackward1");
  Tensor y = x * 1;
  CHECK(y.mul_(2).grad_fn()->name() == "MulBackward1");
  (times_three + x / 4).sum().backward();
  CHECK(x.grad().to_vector<double>() == std::vector<double>{3.25, 3.25});
}

TEST_CASE("number - tensor and number / tensor fill a tensor like it, then subtract or divide in place", "[libtorch]") {
  const Tensor x = tensor({1.0, 4.0}).requires_grad_();
  const Tensor difference = 2 - x, quotient = 2 / x;
  CHECK(difference.grad_fn()->name() == "SubBackward0");  // libtorch's TensorOperators.h
  CHECK(quotient.grad_fn()->name() == "DivBackward0");
  CHECK(difference.to_vector<double>() == std::vector<double>{1.0, -2.0});
  CHECK(quotient.to_vector<double>() == std::vector<double>{2.0, 0.5});
  (difference + quotient).sum().backward();
  CHECK(x.grad().to_vector<double>() == std::vector<double>{-3.0, -1.125});  // -1 - 2 / x²
  const Tensor integers = tensor({1, 2});
  CHECK((2.5 - integers).to_vector<int64_t>() == std::vector<int64_t>{1, 0});  // the fill takes x's dtype
}

namespace {
// libtorch's way to write a module: its own forward, taking the tensor by value, and a holder.
struct TwoLinearsImpl : nn::Module {
  TwoLinearsImpl() : first(register_module("first", nn::Linear(3, 4))) {
    second = register_module("second", nn::Linear(4, 2));
  }
  Tensor forward(Tensor x) { return second(first(x)); }
  nn::Linear first, second{nullptr};
};
TORCH_MODULE(TwoLinears);
}  // namespace

TEST_CASE("a holder shares its module: copies, register_module's result and -> reach the same one", "[libtorch]") {
  TwoLinears model;
  CHECK(model->named_children().size() == 2);
  CHECK(model->parameters().size() == 4);
  CHECK(model->second->weight().is_same(model->parameters()[2]));  // register_module returned the module itself
  TwoLinears copy = model;
  CHECK(copy.get() == model.get());
  const Tensor x = ones({5, 3});
  CHECK(equal(model(x), model->forward(x)));  // the holder calls the Impl's own forward
  CHECK(model(x).sizes() == Dims{5, 2});
}

TEST_CASE("an empty holder is refused when used, with libtorch's message", "[libtorch]") {
  nn::Linear empty{nullptr};
  CHECK(empty.is_empty());
  CHECK_THROWS_WITH(empty->weight(), "Accessing empty ModuleHolder");
  CHECK_THROWS_WITH(empty(ones({2, 2})), "Accessing empty ModuleHolder");
}

TEST_CASE("a module with only its own forward cannot run inside a Sequential", "[libtorch]") {
  nn::Sequential sequential{nn::Linear(3, 3)};
  sequential->push_back(std::make_shared<TwoLinearsImpl>());
  CHECK_THROWS_WITH(sequential(ones({1, 3})), "this Module has no forward(const Tensor&) to call: a module that a "
                                              "Sequential or Python calls overrides it");
}

TEST_CASE("optimizer options chain and read back by name, as libtorch's", "[libtorch]") {
  const optim::SGDOptions sgd = optim::SGDOptions(0.1).momentum(0.9).weight_decay(1e-4).nesterov(true);
  CHECK((sgd.lr() == 0.1 && sgd.momentum() == 0.9 && sgd.weight_decay() == 1e-4 && sgd.nesterov()));
  CHECK(sgd.dampening() == 0);
  const optim::AdamOptions adam = optim::AdamOptions(1e-2).betas({0.5, 0.75}).weight_decay(0);
  CHECK((adam.lr() == 1e-2 && std::get<0>(adam.betas()) == 0.5 && adam.betas()[1] == 0.75 && adam.eps() == 1e-8));
  CHECK(optim::AdamWOptions().weight_decay() == 1e-2);  // torch's AdamW default
  Tensor w = ones({2}, Options().requires_grad());
  optim::SGD plain({w}, 0.5);  // a number is the learning rate, as libtorch's SGDOptions(double) allows
  (w * w).sum().backward();
  plain.step();
  CHECK(w.to_vector<float>() == std::vector<float>{0.0f, 0.0f});  // 1 - 0.5 * 2
}

TEST_CASE("torch::nn::functional names the ops the modules call", "[libtorch]") {
  namespace F = nn::functional;
  const Tensor x = tensor({-1.0, 2.0, 3.0, -4.0}).view({2, 2});
  CHECK(equal(F::relu(x), relu(x)));
  CHECK(equal(F::softmax(x, 1), softmax(x, 1)));
  CHECK(F::mse_loss(x, zeros({2, 2})).item<double>() == 7.5);  // (1 + 4 + 9 + 16) / 4
  CHECK(equal(F::dropout(x, 0.5, /*training=*/false), x));
}

TEST_CASE("named_parameters' items read as libtorch's key() and value(), or as pairs", "[libtorch]") {
  nn::Linear fc(3, 2);
  const NamedTensors named = fc->named_parameters();
  REQUIRE(named.size() == 2);
  CHECK((named[0].key() == "weight" && named[1].key() == "bias"));
  CHECK(named[0].value().is_same(fc->weight()));
  const auto& [name, tensor] = named[1];
  CHECK((name == "bias" && tensor.is_same(fc->bias())));
}
