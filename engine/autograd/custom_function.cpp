// A custom function's outputs, saved tensors and backward (see custom_function.h), following
// PyTorch 1.13's custom_function.cpp (_process_backward_mode_ad) and python_function.cpp (PyNode::apply).
#include "custom_function.h"

#include <algorithm>

#include "api/new_tensors.h"
#include "autograd_meta.h"
#include "core/grad_mode.h"
#include "core/warning.h"
#include "inplace.h"
#include "node.h"
#include "record.h"

namespace ember::autograd {

namespace {

bool contains(const std::vector<Tensor>& tensors, const Tensor& t) {
  return std::any_of(tensors.begin(), tensors.end(), [&](const Tensor& u) { return u.defined() && u.is_same(t); });
}

// An input returned as it is: a view of itself, so that it can have a history of its own, made in
// no_grad mode as the forward ran.
Tensor view_of_itself(const Tensor& t) {
  NoGradGuard no_grad;
  return t.view(t.sizes());
}

void set_creation_meta(const Tensor& t, CreationMeta creation_meta) {
  if (t._is_view()) t.impl()->autograd_meta->creation_meta = creation_meta;
}

// A dirty input: modified in place by the forward, so the node becomes its history.
void rebase_dirty_input(const Tensor& t, const std::shared_ptr<Node>& node, uint32_t output_nr, bool is_input,
                        size_t outputs) {
  EMBER_CHECK(!(t.is_leaf() && t.requires_grad()),
              "a leaf Variable that requires grad has been used in an in-place operation.");
  if (!is_input)
    warn("Only input Tensors should be given to ctx.mark_dirty(). If a Tensor is not an input, there is no need to "
         "pass it to mark_dirty().");
  EMBER_CHECK(!(t._is_view() && outputs > 1),
              "If your Function modifies inplace an input that is a view of another Tensor, your Function cannot "
              "return more than one Tensor. This is not supported by the current autograd engine. You should either "
              "make sure the input is not a view (using .clone() for example) or make your Function only return one "
              "Tensor (potentially splitting it into two Functions: one doing the inplace that returns a single "
              "Tensor and a second one that does the other operations). You can ask on the forum "
              "https://discuss.pytorch.org/ if you need help to do this change.");
  if (AutogradMeta* meta = t.impl()->autograd_meta.get()) {
    meta->grad = Tensor();
    meta->hooks.reset();
  }
  if (node) rebase_history(t, node, output_nr);
}

}  // namespace

std::shared_ptr<Node> make_custom_node(std::shared_ptr<CustomBackward> backward, const std::vector<Tensor>& inputs) {
  backward->evaluate_function_name = "autograd::engine::evaluate_function: " + backward->name;
  auto node = new_node(CustomFunction{std::move(backward)});
  for (const Tensor& input : inputs) add_input(*node, input);
  return node;
}

std::vector<Tensor> wrap_outputs(const std::shared_ptr<Node>& node, const std::vector<Tensor>& inputs,
                                 const std::vector<Tensor>& dirty, const std::vector<Tensor>& non_differentiable,
                                 const std::vector<Tensor>& raw_outputs) {
  std::vector<Tensor> outputs;
  size_t differentiable_outputs = 0;
  if (node) {
    node->num_outputs = static_cast<uint32_t>(raw_outputs.size());
    std::get<CustomFunction>(node->fn).backward->outputs.resize(raw_outputs.size());
  }
  for (uint32_t i = 0; i < raw_outputs.size(); ++i) {
    Tensor t = raw_outputs[i];
    if (!t.defined()) {
      outputs.push_back(t);
      continue;
    }
    if (node) std::get<CustomFunction>(node->fn).backward->outputs[i] = InputMeta{t.sizes(), t.dtype(), t.device()};
    const bool is_input = contains(inputs, t);
    const bool is_modified = contains(dirty, t);
    const bool is_differentiable = node && !contains(non_differentiable, t) && t.is_floating_point();
    if (!is_differentiable) {
      if (!t.requires_grad()) {
        if (is_input) t = view_of_itself(t);
      } else if (is_input) {
        t = t.detach();
      } else if (!t._is_view()) {
        t.detach_();
      }
    } else if (is_modified) {
      rebase_dirty_input(t, node, i, is_input, raw_outputs.size());
    } else if (is_input) {
      t = view_of_itself(t);
      set_history(t, node, i);
    } else {
      set_history(t, node, i);
    }
    if (!(is_input && is_modified)) set_creation_meta(t, CreationMeta::InCustomFunction);
    if (is_differentiable) ++differentiable_outputs;
    outputs.push_back(t);
  }
  // Several differentiable outputs: none of the views among them may be modified in place.
  if (differentiable_outputs > 1)
    for (const Tensor& t : outputs)
      if (t.defined() && t._is_view() && t.grad_fn()) set_creation_meta(t, CreationMeta::MultiOutputNode);
  for (const Tensor& t : dirty)
    EMBER_CHECK(contains(raw_outputs, t),
                "Some elements marked as dirty during the forward method were not returned as output. The inputs "
                "that are modified inplace must all be outputs of the Function.");
  return outputs;
}

void save_for_backward(Node& node, CustomBackward& backward, const std::vector<Tensor>& to_save) {
  backward.saved.clear();
  for (const Tensor& t : to_save) {
    if (!t.defined()) {
      backward.saved.emplace_back();
      continue;
    }
    const AutogradMeta* meta = t.impl()->autograd_meta.get();
    const bool is_output = meta && meta->grad_fn.get() == &node;
    backward.saved.push_back(is_output ? SavedTensor::output(t, meta->output_nr) : SavedTensor(t));
    backward.saved.back().set_node_name(backward.name.c_str());
  }
}

std::vector<Tensor> saved_tensors(const std::shared_ptr<Node>& node, const CustomBackward& backward) {
  EMBER_CHECK(!backward.has_freed_buffers,
              "Trying to backward through the graph a second time (or directly access saved tensors after they have "
              "already been freed). Saved intermediate values of the graph are freed when you call .backward() or "
              "autograd.grad(). Specify retain_graph=True if you need to backward through the graph a second time or "
              "if you need to access saved tensors after calling backward.");
  std::vector<Tensor> tensors;
  for (const SavedTensor& saved : backward.saved) tensors.push_back(saved.unpack_for(node));
  return tensors;
}

Grads CustomFunction::apply(const std::vector<Tensor>& grad_outputs, Needs) const {
  std::vector<Tensor> given = grad_outputs;
  if (backward->materialize_grads) {  // zeros for an output tensor that got no gradient
    for (size_t i = 0; i < given.size() && i < backward->outputs.size(); ++i) {
      const std::optional<InputMeta>& output = backward->outputs[i];
      if (!given[i].defined() && output) given[i] = zeros(output->sizes, Options(output->dtype).device(output->device));
    }
  }
  std::vector<Tensor> returned = backward->backward(given);
  const size_t arguments = backward->is_tensor_arg.size();
  // Too many gradients are fine when the extra ones are all undefined (PyTorch truncates them).
  if (returned.size() > arguments &&
      std::all_of(returned.begin() + arguments, returned.end(), [](const Tensor& t) { return !t.defined(); }))
    returned.resize(arguments);
  EMBER_CHECK(returned.size() == arguments, "function ", backward->name,
              " returned an incorrect number of gradients (expected ", arguments, ", got ", returned.size(), ")");
  Grads grads;
  for (size_t i = 0; i < arguments; ++i) {
    if (backward->is_tensor_arg[i]) {
      grads.push_back(returned[i]);
    } else {
      EMBER_CHECK(!returned[i].defined(), "function ", backward->name,
                  " returned a gradient different than None at position ", i + 1,
                  ", but the corresponding forward input was not a Variable");
    }
  }
  return grads;
}

}  // namespace ember::autograd
