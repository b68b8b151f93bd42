// A node's name, formula and release, each one std::visit over the node's backward function (a
// node kind without `apply` in derivatives.h does not compile), and the fix-up of every gradient
// the engine passes on.
#include "node.h"

namespace ember::autograd {

std::string Node::name() const {
  return std::visit([](const auto& fn) { return std::string(fn.name); }, fn);
}

Grads Node::apply(const Tensor& grad_output) const {
  if (!grad_output.defined()) return Grads(next_edges.size());
  std::vector<bool> wanted(next_edges.size());
  for (size_t i = 0; i < next_edges.size(); ++i) wanted[i] = next_edges[i].node != nullptr;
  return std::visit([&](const auto& backward) { return backward.apply(grad_output, Needs{wanted}); }, fn);
}

void Node::release() {
  std::visit([](auto& backward) { std::apply([](auto&... saved) { (saved.release(), ...); }, backward.saved()); }, fn);
  if (auto* copy_slices = std::get_if<CopySlices>(&fn)) copy_slices->fn->release();
}

Tensor match_input(Tensor grad, const InputMeta& input, const Node& node) {
  if (!grad.defined()) return grad;
  if (grad.sizes() != input.sizes) {
    bool expandable = grad.dim() >= input.sizes.size();
    for (int64_t i = 1; expandable && i <= input.sizes.size(); ++i) {
      const int64_t want = input.sizes[input.sizes.size() - i], have = grad.size(grad.dim() - i);
      expandable = want == have || want == 1;
    }
    EMBER_CHECK(expandable, "Function ", node.name(), " returned an invalid gradient - got ", to_string(grad.sizes()),
                " but expected shape compatible with ", to_string(input.sizes));
    grad = sum_to(grad, input.sizes);
  }
  if (grad.dtype() != input.dtype) grad = grad.to(input.dtype);
  if (grad.device() != input.device) grad = grad.to(input.device);
  return grad;
}

}  // namespace ember::autograd
