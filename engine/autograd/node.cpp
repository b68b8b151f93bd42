// A node's name, formula and release, each one std::visit over the node's backward function (a
// node kind without `apply` in derivatives.h does not compile), the fix-up of every gradient the
// engine passes on, and the walk that lists what a graph keeps saved (what a kept loss costs).
#include "node.h"

#include "autograd_meta.h"

#include <algorithm>
#include <string_view>
#include <unordered_set>

namespace ember::autograd {

namespace {
template <size_t... I>
std::vector<std::string> names_of(std::index_sequence<I...>) {
  return {std::variant_alternative_t<I, BackwardFunction>::name...};
}
}  // namespace

std::vector<std::string> all_node_names() {
  return names_of(std::make_index_sequence<std::variant_size_v<BackwardFunction>>());
}

namespace {
const std::shared_ptr<Node> no_node;
thread_local const std::shared_ptr<Node>* running = &no_node;
}  // namespace

const std::shared_ptr<Node>& running_node() { return *running; }
RunningNode::RunningNode(const std::shared_ptr<Node>& node) : previous_(running) { running = &node; }
RunningNode::~RunningNode() { running = previous_; }

std::string Node::name() const {
  if (const auto* custom = std::get_if<CustomFunction>(&fn)) return custom->backward->name;
  return std::visit([](const auto& fn) { return std::string(fn.name); }, fn);
}

Grads Node::apply(const std::vector<Tensor>& grad_outputs, const std::vector<bool>& wanted) const {
  return std::visit(
      [&](const auto& backward) {
        if constexpr (requires { backward.takes_all_outputs; }) {
          return backward.apply(grad_outputs, Needs{wanted});
        } else {  // a formula of one output, run when its gradient is defined
          if (!grad_outputs[0].defined()) return Grads(next_edges.size());
          return backward.apply(grad_outputs[0], Needs{wanted});
        }
      },
      fn);
}

Grads Node::apply(const Tensor& grad_output) const {
  std::vector<bool> wanted(next_edges.size());
  for (size_t i = 0; i < next_edges.size(); ++i) wanted[i] = next_edges[i].node != nullptr;
  std::vector<Tensor> grad_outputs(num_outputs);
  grad_outputs[0] = grad_output;
  return apply(grad_outputs, wanted);
}

namespace {

// `each(name, saved)` for every tensor `fn` saved, named as its EMBER_SAVED_TENSORS says.
template <typename Each>
void for_each_saved(BackwardFunction& fn, Each each) {
  if (auto* custom = std::get_if<CustomFunction>(&fn)) {
    for (SavedTensor& saved : custom->backward->saved) each("saved_tensors", saved);
    return;
  }
  std::visit(
      [&](auto& backward) {
        using Backward = std::decay_t<decltype(backward)>;
        if constexpr (requires { Backward::saved_names; }) {
          std::string_view names = Backward::saved_names;  // "self, other", as the macro's arguments were written
          auto next_name = [&names] {
            names.remove_prefix(std::min(names.find_first_not_of(' '), names.size()));
            const size_t end = std::min(names.find(','), names.size());
            const std::string_view name = names.substr(0, end);
            names.remove_prefix(std::min(end + 1, names.size()));  // past the comma
            return name;
          };
          std::apply([&](auto&... saved) { (each(next_name(), saved), ...); }, backward.saved());
        }
      },
      fn);
  if (auto* copy_slices = std::get_if<CopySlices>(&fn))  // the op it wraps keeps them
    for_each_saved(copy_slices->fn->fn, each);
}

}  // namespace

void Node::release() {
  for_each_saved(fn, [](std::string_view, SavedTensor& saved) { saved.release(); });
  if (auto* custom = std::get_if<CustomFunction>(&fn)) custom->backward->has_freed_buffers = true;
}

std::vector<std::pair<std::string, SavedTensor*>> Node::named_saved_tensors() {
  std::vector<std::pair<std::string, SavedTensor*>> found;
  for_each_saved(fn, [&](std::string_view name, SavedTensor& saved) { found.emplace_back(name, &saved); });
  return found;
}

namespace {

// The tensors `node` still holds for its formula, each as `read` gives it.
template <typename Read>
std::vector<Tensor> saved_by(Node& node, Read read) {
  std::vector<Tensor> tensors;
  for (const auto& [name, saved] : node.named_saved_tensors()) {
    if (saved->is_released()) continue;
    if (Tensor t = read(*saved); t.defined()) tensors.push_back(t);
  }
  return tensors;
}

}  // namespace

std::vector<Tensor> Node::saved_tensors() {
  return saved_by(*this, [](const SavedTensor& saved) { return saved.unpack(); });
}

std::vector<SavedInGraph> saved_tensors_in_graph(const Tensor& root) {
  std::vector<SavedInGraph> found;
  std::vector<Node*> to_visit;
  std::unordered_set<Node*> seen;
  if (auto node = root.grad_fn()) to_visit.push_back(node.get());
  while (!to_visit.empty()) {
    Node* node = to_visit.back();
    to_visit.pop_back();
    if (!seen.insert(node).second) continue;
    // What it holds, read without unpack()'s version check: a tensor changed in place is still kept alive.
    for (Tensor& t : saved_by(*node, [](const SavedTensor& saved) { return saved.held(); }))
      found.push_back({node->name(), t});
    for (auto it = node->next_edges.rbegin(); it != node->next_edges.rend(); ++it)
      if (it->node) to_visit.push_back(it->node.get());
  }
  return found;
}

namespace {
// Whether `sizes` broadcasts to `target` (so a gradient of `target`'s sizes sums down to it).
bool expandable_to(const Dims& sizes, const Dims& target) {
  if (sizes.size() > target.size()) return false;
  for (int64_t i = 1; i <= sizes.size(); ++i) {
    const int64_t want = sizes[sizes.size() - i], have = target[target.size() - i];
    if (want != have && want != 1) return false;
  }
  return true;
}
}  // namespace

Tensor match_input(Tensor grad, const InputMeta& input, const Node& node, size_t index) {
  if (!grad.defined()) return grad;
  if (grad.sizes() != input.sizes) {
    EMBER_CHECK(expandable_to(input.sizes, grad.sizes()), "Function ", node.name(),
                " returned an invalid gradient at index ", index, " - got ", to_string(grad.sizes()),
                " but expected shape compatible with ", to_string(input.sizes));
    grad = sum_to(grad, input.sizes);
  }
  if (grad.dtype() != input.dtype) grad = grad.to(input.dtype);
  if (grad.device() != input.device) grad = grad.to(input.device);
  return grad;
}

Tensor fit_root_gradient(const Tensor& root, Tensor gradient, size_t index) {
  const AutogradMeta* meta = root.impl()->autograd_meta.get();
  if (!gradient.defined() || !meta || !meta->sizes_when_recorded) return gradient;
  const Dims& recorded = *meta->sizes_when_recorded;
  EMBER_CHECK(expandable_to(recorded, gradient.sizes()), "invalid gradient at index ", index, " - got ",
              to_string(gradient.sizes()), " but expected shape compatible with ", to_string(recorded));
  return gradient.sizes() == recorded ? gradient : sum_to(gradient, recorded);
}

}  // namespace ember::autograd
