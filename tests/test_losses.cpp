// The losses of class-index targets with all their options, through the C++ door, against PyTorch
// 1.13 (tests/fixtures/losses.json, tools/fixtures/losses.py): nll_loss and cross_entropy with a
// class weight, on inputs [C], [N, C] and [N, C, d1, ...], with ignore_index and label_smoothing,
// called as libtorch's functional forms and modules are; their values and gradients (bit for bit
// where PyTorch's nll_loss sums alone), their nodes, their event trees and the texts and kinds of
// the errors. The Python door is python/tests/test_losses.py.
#include <catch2/catch.hpp>

#include "device_cases.h"
#include "fixture.h"
#include "gradcheck_cases.h"
#include "profiler_trees.h"

using namespace ember;
using fixture::json;
namespace F = nn::functional;

namespace {

const json& losses_fixture() { return fixture::load("losses.json"); }

Reduction reduction_of(const std::string& name) {
  if (name == "none") return kNone;
  if (name == "sum") return kSum;
  return kMean;
}

// A case's call, as torch.nn.functional makes it, on tensors already made.
Tensor class_index_loss(const json& c, const Tensor& input, const Tensor& target, const Tensor& weight) {
  const Reduction reduction = reduction_of(c["reduction"]);
  if (c["fn"] == "nll_loss")
    return F::nll_loss(input, target,
                       F::NLLLossFuncOptions().weight(weight).reduction(reduction).ignore_index(c["ignore_index"]));
  return F::cross_entropy(input, target,
                          F::CrossEntropyFuncOptions()
                              .weight(weight)
                              .reduction(reduction)
                              .ignore_index(c["ignore_index"])
                              .label_smoothing(c["label_smoothing"]));
}

// The same call made by the module of its loss.
Tensor class_index_module_loss(const json& c, const Tensor& input, const Tensor& target, const Tensor& weight) {
  const Reduction reduction = reduction_of(c["reduction"]);
  if (c["fn"] == "nll_loss")
    return nn::NLLLoss(nn::NLLLossOptions().weight(weight).reduction(reduction).ignore_index(c["ignore_index"]))(
        input, target);
  return nn::CrossEntropyLoss(nn::CrossEntropyLossOptions()
                                  .weight(weight)
                                  .reduction(reduction)
                                  .ignore_index(c["ignore_index"])
                                  .label_smoothing(c["label_smoothing"]))(input, target);
}

Tensor class_weight(const json& c, Device device = kCPU) {
  return c["weight"].is_null() ? Tensor() : fixture::make(c["weight"], false, nullptr, device);
}

// PyTorch's nll_loss sums its terms in one order (its cascade), which ember's kernel follows: its
// float32 and float64 results are PyTorch's bits. cross_entropy's log_softmax, bfloat16 and label
// smoothing's sums are compared within the suite's tolerance.
bool bit_for_bit(const json& c) { return c["fn"] == "nll_loss" && c["input"]["dtype"] != "bfloat16"; }

std::string compared_with_pytorch(const json& c, const Tensor& actual, const json& expected) {
  return bit_for_bit(c) ? fixture::compare_exact(actual, expected) : fixture::compare(actual, expected);
}

std::string node_name(const std::shared_ptr<autograd::Node>& node) { return node ? node->name() : "null"; }

std::string first_next_node_name(const Tensor& t) {
  const auto node = t.grad_fn();
  if (!node || node->next_edges.empty() || !node->next_edges[0].node) return "null";
  return node->next_edges[0].node->name();
}

// The kind of exception `call` raises, as Python names it: IndexError, ValueError or RuntimeError.
std::string raised_exception_kind(const std::function<void()>& call, std::string& message) {
  try {
    call();
  } catch (const IndexError& e) {
    message = e.what();
    return "IndexError";
  } catch (const ValueError& e) {
    message = e.what();
    return "ValueError";
  } catch (const Error& e) {
    message = e.what();
    return "RuntimeError";
  }
  return "nothing";
}

}  // namespace

TEST_CASE("each loss call gives PyTorch's value, gradient and nodes", "[losses]") {
  REQUIRE(losses_fixture()["calls"].size() >= 50);
  for (const json& c : losses_fixture()["calls"]) {
    INFO(c["name"].get<std::string>());
    Tensor base;
    const Tensor input = fixture::make(c["input"], true, &base);
    const Tensor target = fixture::make(c["target"]);
    const Tensor loss = class_index_loss(c, input, target, class_weight(c));
    CHECK(compared_with_pytorch(c, loss, c["output"]) == "");
    CHECK(node_name(loss.grad_fn()) == c["grad_fn"].get<std::string>());
    CHECK(first_next_node_name(loss) == (c["grad_fn_next"].is_null() ? "null" : c["grad_fn_next"].get<std::string>()));
    loss.backward(fixture::make(c["grad_output"]));
    if (!c["grad"].is_null()) {
      CHECK(compared_with_pytorch(c, base.grad(), c["grad"]) == "");
      continue;
    }
    // PyTorch 1.13's nll_loss2d_backward refuses a non-contiguous input ("grad_input must be
    // contiguous"); ember's gradient is that of the same loss of a contiguous copy.
    INFO("PyTorch: " << c["backward_error"].get<std::string>());
    const Tensor copy = input.detach().contiguous().requires_grad_();
    class_index_loss(c, copy, target, class_weight(c)).backward(fixture::make(c["grad_output"]));
    const Tensor through_view = autograd::grad({class_index_loss(c, input, target, class_weight(c))}, {input},
                                               {fixture::make(c["grad_output"])})[0];
    CHECK(equal(through_view, copy.grad()));
  }
}

TEST_CASE("a loss module gives its function's value, and keeps its class weight as the buffer 'weight'",
          "[losses][nn]") {
  for (const json& c : losses_fixture()["calls"]) {
    INFO(c["name"].get<std::string>());
    const Tensor input = fixture::make(c["input"]), target = fixture::make(c["target"]);
    CHECK(allclose(class_index_module_loss(c, input, target, class_weight(c)),
                   class_index_loss(c, input, target, class_weight(c)), 0, 0, true));
  }
  const Tensor weight = tensor({1.0, 2.0, 3.0});
  nn::CrossEntropyLoss weighted(nn::CrossEntropyLossOptions().weight(weight).label_smoothing(0.1));
  REQUIRE(weighted->named_buffers().size() == 1);
  CHECK((weighted->named_buffers()[0].key() == "weight" && weighted->named_buffers()[0].value().is_same(weight)));
  CHECK(nn::NLLLoss()->named_buffers().empty());  // PyTorch's None buffer, which no list shows
  weighted->to(kFloat64);                         // the buffer moves, and the loss reads the buffer
  CHECK(weighted(randn({2, 3}, kFloat64), from_vector<int64_t>({0, 2}, {2})).dtype() == kFloat64);
  CHECK(nn::MSELoss(kSum)->options.reduction() == kSum);  // one reduction is MSELossOptions, as libtorch's
  CHECK(nn::CrossEntropyLoss()->options.ignore_index() == -100);
}

TEST_CASE("each refused loss call raises PyTorch's text, as the Python exception PyTorch raises", "[losses][errors]") {
  int checked = 0;
  for (const json& e : losses_fixture()["errors"]) {
    const std::string reduction = e["reduction"];
    if (reduction != "none" && reduction != "mean" && reduction != "sum") continue;  // a Python string: its test
    INFO(e["name"].get<std::string>());
    Tensor input = zeros(fixture::dims_arg(e["input"]["shape"]), fixture::parse_dtype(e["input"]["dtype"]));
    if (e["input_requires_grad"].get<bool>()) input.requires_grad_();
    const Tensor target = fixture::make(e["target"]);
    Tensor weight = e["weight"].is_null() ? Tensor() : fixture::make(e["weight"]);
    if (e["weight_requires_grad"].get<bool>()) weight.requires_grad_();
    std::string message;
    CHECK(raised_exception_kind([&] { (void)class_index_loss(e, input, target, weight); }, message) ==
          e["type"].get<std::string>());
    CHECK(message == e["message"].get<std::string>());
    ++checked;
  }
  CHECK(checked >= 40);
}

TEST_CASE("a weight that requires grad is refused only while grad mode is on, as PyTorch's autograd refuses it",
          "[losses][errors]") {
  const Tensor weight = ones({3}, Options().requires_grad());
  const Tensor log_probs = log_softmax(randn({2, 3}), 1), target = from_vector<int64_t>({0, 2}, {2});
  CHECK_THROWS_AS(nll_loss(log_probs, target, weight), Error);
  NoGradGuard no_grad;
  CHECK(equal(nll_loss(log_probs, target, weight), nll_loss(log_probs, target, weight.detach())));
}

TEST_CASE("each profiled loss call records PyTorch's event tree", "[losses][profiler]") {
  using namespace profiler_trees;
  int compared_trees = 0;
  for (const json& c : losses_fixture()["calls"]) {
    if (c["tree"].is_null()) continue;
    INFO(c["name"].get<std::string>());
    const Tensor input = fixture::make(c["input"]), target = fixture::make(c["target"]), weight = class_weight(c);
    profiler::Profiler prof({.record_shapes = true});
    (void)class_index_loss(c, input, target, weight);
    prof.stop();
    // cross_entropy's log_softmax lists its dtype as a third argument in PyTorch: its shapes differ.
    const WithShapes shapes = c["fn"] == "nll_loss" ? WithShapes::Yes : WithShapes::No;
    const std::vector<Node> ember = ember_tree(prof.events(), shapes), pytorch = pytorch_tree(c["tree"], shapes);
    INFO("ember:\n" << printed(ember) << "PyTorch 1.13, without the documented differences:\n" << printed(pytorch));
    CHECK(ember == pytorch);
    ++compared_trees;
  }
  CHECK(compared_trees >= 10);
}

TEST_CASE("nll_loss's gradient is differentiated again, through NllLossBackwardBackward0 or its 2-D twin",
          "[losses][autograd]") {
  for (const Dims& sizes : {Dims{3, 4}, Dims{2, 4, 2, 3}}) {
    const Tensor x = randn(sizes, Options().requires_grad()), s = scalar_tensor(1.5).requires_grad_();
    const Tensor target = sizes.size() == 2 ? from_vector<int64_t>({0, 3, 1}, {3}) : zeros({2, 2, 3}, kInt64);
    const auto options = F::NLLLossFuncOptions().weight(tensor({0.5, 1.0, 2.0, 4.0}));
    // s L(x * x): its gradient is 2 x s G, G = dL/dy at y = x * x, whose sum has the gradient sum(2 x G) in s.
    const Tensor grad = autograd::grad({F::nll_loss(x * x, target, options) * s}, {x}, {}, true, true)[0];
    std::set<std::string> nodes;
    collect_node_names(grad, nodes);
    CHECK(nodes.count(sizes.size() == 2 ? "NllLossBackwardBackward0" : "NllLoss2DBackwardBackward0") == 1);
    const Tensor y = (x * x).detach().requires_grad_();
    const Tensor g = autograd::grad({F::nll_loss(y, target, options)}, {y})[0];
    CHECK(allclose(autograd::grad({grad.sum()}, {s})[0], (2 * x * g).sum()));
  }
}

DEVICE_TEST_CASE("the class-index losses run on the device, their weight there too", "[losses]") {
  for (const json& c : losses_fixture()["calls"]) {
    if (c["input"]["dtype"] == "bfloat16" || c["grad"].is_null()) continue;
    INFO(c["name"].get<std::string>());
    Tensor base;
    const Tensor input = fixture::make(c["input"], true, &base, device);
    const Tensor loss = class_index_loss(c, input, fixture::make(c["target"]).to(device), class_weight(c, device));
    CHECK(loss.device() == device);
    // The GPU sums the reduced loss in the CPU's order: the same bits; its gradient alike.
    CHECK(compared_with_pytorch(c, loss.to(kCPU), c["output"]) == "");
    loss.backward(fixture::make(c["grad_output"]).to(device));
    CHECK(compared_with_pytorch(c, base.grad().to(kCPU), c["grad"]) == "");
  }
}

DEVICE_TEST_CASE("a target out of range on the device raises PyTorch's IndexError", "[losses][errors]") {
  const Tensor x = zeros({2, 3}, Options(device));
  const Tensor target = from_vector<int64_t>({0, 5}, {2}).to(device);
  CHECK_THROWS_AS(nll_loss(x, target), IndexError);
  CHECK_THROWS_WITH(nll_loss(x, target, {}, kNone), "Target 5 is out of bounds.");
  CHECK_THROWS_WITH(nll_loss(x, target, ones({3}, Options(device))), "Target 5 is out of bounds.");
}
