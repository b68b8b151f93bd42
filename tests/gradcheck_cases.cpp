// The gradcheck programs (see gradcheck_cases.h). Each is a small composition of ops; sampling
// programs reseed the generator on every call so that finite differences see the same draws.
#include "gradcheck_cases.h"

#include <cmath>

#include "autograd/node.h"

using namespace ember;
using V = std::vector<Tensor>;

namespace {

Tensor cosine_leaf(const Dims& sizes, DType dtype = kFloat64, double scale = 0.1) {
  std::vector<double> values(product(sizes));
  for (size_t i = 0; i < values.size(); ++i) values[i] = scale * std::cos(0.3 + 1.3 * static_cast<double>(i));
  Tensor t = from_vector(values, sizes, dtype);
  t.requires_grad_();
  return t;
}

// Five values from 0.25 to 0.75 (0.5 + cos(phase + step i) / 4): inside the domain of every op of
// core/op_list.h, and two leaves of different phases never equal.
Tensor domain_leaf(double phase, double step = 1.3) {
  std::vector<double> values(5);
  for (size_t i = 0; i < values.size(); ++i) values[i] = 0.5 + 0.25 * std::cos(phase + step * static_cast<double>(i));
  Tensor t = from_vector(values, {5}, kFloat64);
  t.requires_grad_();
  return t;
}

// sum(t * t * w), w = 1, 2, ... over t's elements: a different weight for each element, so that a
// formula that puts a gradient in the wrong place fails.
Tensor weighted_squares(const Tensor& t) {
  return (t * t * (arange(t.numel(), kFloat64).reshape(t.sizes()) + 1)).sum();
}

// Every *_copy op of a [3, 4] x and a [3, 1] y, summed (each of its nodes in one program).
Tensor every_view_copy(const Tensor& x, const Tensor& y) {
  std::vector<Tensor> copies{expand_copy(y, {2, 3, 4}),
                             permute_copy(x, {1, 0}),
                             view_copy(x, {4, 3}),
                             select_copy(x, 1, 2),
                             slice_copy(x, 1, 1, 4, 2),
                             transpose_copy(x, 0, 1),
                             t_copy(x),
                             squeeze_copy(y),
                             squeeze_copy(y, 1),
                             unsqueeze_copy(x, 0),
                             diagonal_copy(x, 1),
                             as_strided_copy(x, {2, 2}, {1, 4}, 1),
                             alias_copy(x),
                             unfold_copy(x, 1, 2, 1),
                             _reshape_alias_copy(x, {4, 3}, {3, 1})};
  for (const std::vector<Tensor>& pieces : {unbind_copy(x, 1), split_copy(x, 2), split_with_sizes_copy(x, {1, 3}, 1)})
    copies.insert(copies.end(), pieces.begin(), pieces.end());
  Tensor total = weighted_squares(copies[0]);
  for (size_t i = 1; i < copies.size(); ++i) total = total + weighted_squares(copies[i]);
  return total;
}

// A custom function in C++ (autograd/function.h): x^3, its backward written with ops from what it
// saved, so that it can be differentiated again.
struct Cube : autograd::Function<Cube> {
  static Tensor forward(autograd::AutogradContext* ctx, const Tensor& x) {
    ctx->save_for_backward({x});
    return x * x * x;
  }
  static std::vector<Tensor> backward(autograd::AutogradContext* ctx, const std::vector<Tensor>& grads) {
    const Tensor x = ctx->get_saved_variables()[0];
    return {grads[0] * 3 * x * x};
  }
};

}  // namespace

const std::vector<GradcheckCase>& gradcheck_cases() {
  static const std::vector<GradcheckCase> cases = [] {
    std::vector<GradcheckCase> written{
        {"arithmetic and exp", [](const V& v) { return (v[0] * v[1] + v[0] / (v[1] * v[1] + 1)).exp(); },
         [] {
           return V{cosine_leaf({2, 3}), cosine_leaf({3}, kFloat64, 0.5)};
         }},
        {"tanh, sigmoid, pow, relu", [](const V& v) { return v[0].tanh().sigmoid().pow(3) - v[0].relu(); },
         [] {
           return V{cosine_leaf({4, 2})};
         }},
        {"log and sqrt", [](const V& v) { return (v[0] * v[0] + 1).log().sqrt(); }, [] { return V{cosine_leaf({5})}; }},
        {"addmm with alpha and beta", [](const V& v) { return addmm(v[2], v[0], v[1], 0.5, 2.0); },
         [] {
           return V{cosine_leaf({3, 4}), cosine_leaf({4, 2}), cosine_leaf({2})};
         }},
        {"matmul folding 3-D @ 2-D", [](const V& v) { return matmul(v[0], v[1]); },
         [] {
           return V{cosine_leaf({2, 3, 4}), cosine_leaf({4, 5})};
         }},
        {"matmul broadcasting batches", [](const V& v) { return matmul(v[0], v[1]); },
         [] {
           return V{cosine_leaf({2, 1, 3, 4}), cosine_leaf({5, 4, 2})};
         }},
        {"matmul 1-D @ 3-D", [](const V& v) { return matmul(v[0], v[1]); },
         [] {
           return V{cosine_leaf({4}), cosine_leaf({3, 4, 2})};
         }},
        {"softmax and log_softmax", [](const V& v) { return softmax(v[0], 1) * log_softmax(v[0], 0); },
         [] {
           return V{cosine_leaf({3, 4})};
         }},
        {"layer_norm with weight and bias", [](const V& v) { return layer_norm(v[0], {4}, v[1], v[2]); },
         [] {
           return V{cosine_leaf({3, 4}, kFloat64, 1.0), cosine_leaf({4}), cosine_leaf({4})};
         }},
        {"mse_loss broadcasting", [](const V& v) { return mse_loss(v[0], v[1]); },
         [] {
           return V{cosine_leaf({3, 4}), cosine_leaf({4})};
         }},
        {"cross_entropy",
         [](const V& v) {
           return cross_entropy(v[0], from_vector(std::vector<int64_t>{1, 0, 3}, {3}));
         },
         [] {
           return V{cosine_leaf({3, 4})};
         }},
        {"cross_entropy of a 4-D input and nll_loss of a 3-D one, weighted, with ignore_index and smoothing",
         [](const V& v) {
           const Tensor weight = tensor({0.5, 1.0, 2.0}, kFloat64);
           const Tensor images = from_vector(std::vector<int64_t>{0, 2, 1, -100, 2, 2, 0, 1}, {2, 2, 2});
           const Tensor rows = from_vector(std::vector<int64_t>{1, 0, 2, 2}, {2, 2});
           return cross_entropy(v[0], images, weight) + nll_loss_nd(v[1], rows, weight, kSum) +
                  cross_entropy(v[1], rows, weight, kMean, 1, 0.2);
         },
         [] {
           return V{cosine_leaf({2, 3, 2, 2}), cosine_leaf({2, 3, 2}, kFloat64, 0.5)};
         }},
        {"max over a dim of a cat",
         [](const V& v) {
           return max(cat({v[0].t(), v[1]}, 1), 1, true).values * v[0].sum({0}).unsqueeze(1);
         },
         [] {
           return V{cosine_leaf({2, 3}), cosine_leaf({3, 2}, kFloat64, 0.05)};
         }},
        {"stack of permuted views, expanded",
         [](const V& v) {
           return stack({v[0].permute({1, 0}), v[0].t()}, 2).expand({2, 3, 2, 2});
         },
         [] {
           return V{cosine_leaf({2, 3})};
         }},
        {"where and mean over a dim", [](const V& v) { return where(v[0] > v[1], v[0], v[1]).mean({1}); },
         [] {
           return V{cosine_leaf({2, 3}), cosine_leaf({3}, kFloat64, 0.05)};
         }},
        {"sub with alpha, neg, rsub",
         [](const V& v) { return sub(v[0], v[1], 2.5) - (-v[0]) / 3.0 + rsub(v[1], 2.0) - 0.5; },
         [] {
           return V{cosine_leaf({2, 3}), cosine_leaf({2, 3}, kFloat64, 0.05)};
         }},
        {"mm and linear",
         [](const V& v) { return v[0].mm(v[1]) + linear(v[0], v[1].t()) + linear(v[0], v[1].t(), v[2]); },
         [] {
           return V{cosine_leaf({2, 3}), cosine_leaf({3, 4}), cosine_leaf({4})};
         }},
        {"dot and mv", [](const V& v) { return matmul(v[0], v[1]) * matmul(v[1], v[1].sum({1})).sum(); },
         [] {
           return V{cosine_leaf({3}), cosine_leaf({3, 3})};
         }},
        {"max, min and sums",
         [](const V& v) { return v[0].max() * v[0].min() + v[0].sum({0}).sum() + min(v[0], 1).values.sum(); },
         [] {
           return V{cosine_leaf({3, 4})};
         }},
        {"select, narrow, slice, reshape, view",
         [](const V& v) {
           return v[0].select(1, 2) * v[0].narrow(1, 0, 2).sum({1}) +
                  v[0].slice(1, 1, 4, 2).reshape({-1}).view({3, 2}).sum({1});
         },
         [] {
           return V{cosine_leaf({3, 4})};
         }},
        {"unsqueeze, squeeze, flatten, clone",
         [](const V& v) { return v[0].unsqueeze(1).squeeze(1).squeeze().flatten().clone().contiguous(); },
         [] {
           return V{cosine_leaf({2, 1, 3})};
         }},
        // float32 rounds each evaluation by about 1e-8 here: a wider step keeps the differences
        // above that (error about 1e-8 / 1e-3).
        {"to another dtype and back", [](const V& v) { return v[0].to(kFloat32).to(kFloat64) * 1.5; },
         [] { return V{cosine_leaf({3})}; }, 1e-3, 1e-5, 1e-5},
        {"an in-place op on a strided view",
         [](const V& v) {
           Tensor y = v[0] * 1;
           y.slice(1, 0, 3, 2).mul_(v[1]);
           return y;
         },
         [] {
           return V{cosine_leaf({3, 4}), cosine_leaf({3, 2})};
         }},
        {"a view used after an in-place op on it, transposed",
         [](const V& v) {
           Tensor y = v[0] * 1;
           Tensor row = y.transpose(0, 1).select(0, 1);
           row.add_(v[1]);
           return row * y.sum();
         },
         [] {
           return V{cosine_leaf({3, 4}), cosine_leaf({3})};
         }},
        {"fill_, zero_ and copy_ into parts of a result",
         [](const V& v) {
           Tensor y = v[0] * 2;
           y.select(0, 0).fill_(0.5);
           y.select(0, 1).zero_();
           y.select(0, 2).copy_(v[1]);
           return y * v[0];
         },
         [] {
           return V{cosine_leaf({3, 4}), cosine_leaf({4})};
         }},
        {"in-place sampling replaces the values it overwrites",
         [](const V& v) {
           manual_seed(7);
           Tensor a = v[0] * 1, b = v[0] * 1, c = v[0] * 1, d = v[0] * 1, e = v[0] * 1, f = v[0] * 1;
           uniform_(a);
           normal_(b);
           bernoulli_(c, 0.5);
           random_(d, 0, 5);
           e.random_(5);
           f.random_();  // up to 2^24 for float32, 2^53 for float64: scaled down
           return (a + b + c + d + e + f * 1e-16) * v[0] + bernoulli(v[0].sigmoid()) * v[0];
         },
         [] {
           return V{cosine_leaf({2, 3})};
         }},
        {"abs, sign and clamps",
         [](const V& v) {
           return v[0].abs() * v[0].sign() + v[0].clamp(-0.05, 0.05) + v[0].clamp_min(-0.02) * v[0].clamp_max(0.03);
         },
         [] {
           return V{cosine_leaf({2, 3})};
         }},
        {"remainder by a number and by a tensor",
         [](const V& v) { return remainder(v[0], 0.7) * remainder(v[0] + 2, v[1] + 1.5); },
         [] {
           return V{cosine_leaf({2, 3}), cosine_leaf({3}, kFloat64, 0.05)};
         }},
        {"atan2 of a broadcast pair", [](const V& v) { return atan2(v[0], v[1] + 0.5); },
         [] {
           return V{cosine_leaf({2, 3}), cosine_leaf({3}, kFloat64, 0.05)};
         }},
        {"maximum and minimum", [](const V& v) { return maximum(v[0], v[1]) * minimum(v[0], v[1]); },
         [] {
           return V{cosine_leaf({2, 3}), cosine_leaf({3}, kFloat64, 0.05)};
         }},
        {"addcmul and addcdiv",
         [](const V& v) { return addcmul(v[0], v[1], v[2], 0.5) * addcdiv(v[0], v[1], v[2] + 2, 2.0); },
         [] {
           return V{cosine_leaf({2, 3}), cosine_leaf({3}, kFloat64, 0.5), cosine_leaf({2, 3}, kFloat64, 0.3)};
         }},
        {"mean of all elements and dot", [](const V& v) { return matmul(v[0], v[1]) * v[0].mean(); },
         [] {
           return V{cosine_leaf({3}), cosine_leaf({3}, kFloat64, 0.5)};
         }},
        // Gradients used as values (autograd::grad with create_graph): the ops formulas call are
        // then recorded too (ThresholdBackwardBackward0, NllLossBackwardBackward0, NllLoss2DBackwardBackward0).
        {"relu's gradient, differentiated",
         [](const V& v) {
           const Tensor g = autograd::grad({(v[0].relu() * v[1]).sum()}, {v[0]}, {}, std::nullopt, true)[0];
           return g * v[1];
         },
         [] {
           return V{cosine_leaf({2, 3}), cosine_leaf({2, 3}, kFloat64, 0.5)};
         }},
        // Ops with several outputs: every piece takes part, so each output's gradient is checked.
        {"unbind, split, split_with_sizes and chunk",
         [](const V& v) {
           const V rows = unbind(v[0], 0), halves = split(v[0], 2, 1), parts = split_with_sizes(v[0], {1, 3}, 1),
                   quarters = chunk(v[0], 4, 1);
           return rows[0] * rows[1] + cat({halves[1], halves[0]}, 1) * parts[1].sum() + quarters[3] * parts[0];
         },
         [] {
           return V{cosine_leaf({2, 4})};
         }},
        {"unsafe_split, unsafe_split_with_sizes and unsafe_chunk",
         [](const V& v) {
           const V a = unsafe_split(v[0], 1, 0), b = unsafe_split_with_sizes(v[0], {2, 1}, 1),
                   c = unsafe_chunk(v[0], 3, 1);
           return a[0] * a[1] + (b[0] * c[2]).sum();
         },
         [] {
           return V{cosine_leaf({2, 3})};
         }},
        {"diagonal and var_mean",
         [](const V& v) {
           auto [var, mean] = var_mean(v[0] * v[0], Dims{1});
           return diagonal(v[0], 1) * var + mean.sum();
         },
         [] {
           return V{cosine_leaf({3, 4}, kFloat64, 1.0)};
         }},
        {"in-place views: transpose_, t_, unsqueeze_, squeeze_, as_strided_",
         [](const V& v) {
           Tensor y = v[0] * v[0];
           y.transpose_(0, 1).t_().unsqueeze_(0).unsqueeze_(2).squeeze_().squeeze_(0);
           y.as_strided_({2, 2}, {1, 3}, 1);
           return y * v[0].narrow(1, 0, 2);
         },
         [] {
           return V{cosine_leaf({2, 3})};
         }},
        {"unfold: overlapping windows, windows with gaps, a 0-dim input",
         [](const V& v) {
           return v[0].unfold(1, 3, 1).sum({2}) * v[0].unfold(1, 2, 2).sum({-1}).sum() + v[1].unfold(0, 1, 1);
         },
         [] {
           return V{cosine_leaf({2, 5}), cosine_leaf({})};
         }},
        {"the *_copy ops, each through its view's formula", [](const V& v) { return every_view_copy(v[0], v[1]); },
         [] {
           return V{cosine_leaf({3, 4}), cosine_leaf({3, 1})};
         }},
        {"a custom function (autograd::Function)", [](const V& v) { return Cube::apply(v[0] + 1) * v[0]; },
         [] { return V{cosine_leaf({4})}; }},
        {"nll_loss2d's gradient, differentiated",
         [](const V& v) {
           const Tensor target = from_vector(std::vector<int64_t>{0, 2, 1, 1}, {1, 2, 2});
           const Tensor loss = nll_loss2d(v[0] * v[0], target, tensor({0.5, 1.0, 2.0}, kFloat64)) * v[1].sum();
           return autograd::grad({loss}, {v[0]}, {}, std::nullopt, true)[0] * v[0];
         },
         [] {
           return V{cosine_leaf({1, 3, 2, 2}), cosine_leaf({2}, kFloat64, 0.5)};
         }},
        {"cross_entropy's gradient, differentiated",
         [](const V& v) {
           const Tensor loss = cross_entropy(v[0], from_vector(std::vector<int64_t>{1, 0, 3}, {3})) * v[1].sum();
           return autograd::grad({loss}, {v[0]}, {}, std::nullopt, true)[0] * v[0];
         },
         [] {
           return V{cosine_leaf({3, 4}), cosine_leaf({2}, kFloat64, 0.5)};
         }},
    };
    // One program per op of core/op_list.h, on inputs inside every op's domain and away from its
    // kinks (0.25 to 0.75, the two inputs of a binary op never equal).
#define EMBER_UNARY_PROGRAM(name, ...) \
  written.push_back({#name, [](const V& v) { return name(v[0]); }, [] { return V{domain_leaf(0.3)}; }});
    // floor_divide has no derivative (its node is NotImplemented, as PyTorch's): no program.
#define EMBER_BINARY_PROGRAM(name)                                          \
  if (std::string_view(#name) != "floor_divide")                            \
    written.push_back({#name, [](const V& v) { return name(v[0], v[1]); },  \
                       [] {                                                 \
                         return V{domain_leaf(0.3), domain_leaf(1.1, 0.7)}; \
                       }});
    EMBER_UNARY_OPS(EMBER_UNARY_PROGRAM)
    EMBER_BINARY_OPS(EMBER_BINARY_PROGRAM)
    return written;
  }();
  return cases;
}

void collect_node_names(const Tensor& t, std::set<std::string>& names) {
  std::vector<std::shared_ptr<autograd::Node>> stack{t.grad_fn()};
  std::set<const autograd::Node*> seen;
  while (!stack.empty()) {
    std::shared_ptr<autograd::Node> node = stack.back();
    stack.pop_back();
    if (!node || !seen.insert(node.get()).second) continue;
    names.insert(node->name());
    if (std::holds_alternative<autograd::CustomFunction>(node->fn)) names.insert("CustomFunction");
    if (const auto* copy_slices = std::get_if<autograd::CopySlices>(&node->fn)) stack.push_back(copy_slices->fn);
    for (const autograd::Edge& edge : node->next_edges) stack.push_back(edge.node);
  }
}
