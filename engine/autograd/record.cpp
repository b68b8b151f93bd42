// Recording the graph: nodes, edges and histories.
#include "record.h"

#include "core/dispatch_trace.h"

#include "autograd_meta.h"
#include "inplace.h"

namespace ember::autograd {

namespace {

// Per thread, as PyTorch's at::sequence_number (a graph recorded by two threads mixes two
// numberings there too); a counter shared by threads would cost every node a locked instruction.
thread_local uint64_t sequence_counter = 0;

AutogradMeta& meta_of(const Tensor& t) {
  auto& meta = t.impl()->autograd_meta;
  if (!meta) meta.reset(new AutogradMeta());
  return *meta;
}

}  // namespace

Geometry geometry_of(const Tensor& t) { return {t.sizes(), t.strides(), t.storage_offset()}; }

uint64_t next_sequence_nr() { return sequence_counter++; }

void add_input(Node& node, const Tensor& t) {
  if (!t.defined()) {
    node.next_edges.push_back({});
    node.inputs.push_back({});
    return;
  }
  node.next_edges.push_back(t.requires_grad() ? gradient_edge(t) : Edge{});
  node.inputs.push_back({t.sizes(), t.dtype(), t.device()});
}

void attach_retains_grad_hook(const Tensor& t, Node& node) {
  AutogradMeta& meta = *t.impl()->autograd_meta;
  auto& hooks = node.tensor_hooks(meta.output_nr);
  add_hook(hooks, TensorHook([weak = std::weak_ptr<TensorImpl>(t.impl_ptr())](const Tensor& grad) {
             auto impl = weak.lock();
             if (!grad.defined() || !impl) return Tensor();
             Tensor& kept = impl->autograd_meta->grad;
             const bool accumulates = kept.defined();
             kept = accumulates ? kept + grad : grad.is_contiguous() ? grad.clone() : grad.contiguous();
             if (trace::enabled()) [[unlikely]]
               trace::say("retain_grad: ", trace::name_of(Tensor(impl)), ".grad = ", trace::name_of(kept),
                          accumulates ? " (its .grad plus the gradient)" : " (a copy of the gradient)");
             return Tensor();
           }));
  meta.retains_grad_hook = hooks->next_id - 1;
}

namespace {
// A tensor that retains its grad and gets a new grad_fn takes its retain_grad hook along, as
// PyTorch's update_cpp_hooks_on_new_gradfn: off the old grad_fn here, onto the new one once set.
// Its other hooks stay with the old grad_fn.
void take_off_retains_grad_hook(const AutogradMeta& meta) {
  if (!meta.retains_grad || !meta.grad_fn || meta.output_nr >= meta.grad_fn->tensor_pre_hooks.size()) return;
  if (const auto& hooks = meta.grad_fn->tensor_pre_hooks[meta.output_nr])
    std::erase_if(hooks->hooks, [&](const auto& entry) { return entry.first == meta.retains_grad_hook; });
}
}  // namespace

void set_history(const Tensor& output, const std::shared_ptr<Node>& node, uint32_t output_nr) {
  AutogradMeta& meta = meta_of(output);
  take_off_retains_grad_hook(meta);
  meta.grad_fn = node;
  meta.output_nr = output_nr;
  if (meta.retains_grad) attach_retains_grad_hook(output, *node);
  meta.sizes_when_recorded.reset();
  if (meta.is_view && !output.is_inference()) meta.view_version = output._version();
}

void save_result(Node& node, const Tensor& self) {
  std::visit(
      [&](auto& backward) {
        if constexpr (requires { backward.result; }) {
          backward.result = SavedTensor::output(self);
          backward.result.set_node_name(backward.name);
        }
      },
      node.fn);
}

std::shared_ptr<Node> as_strided_node(const Tensor& view, const Tensor& base) {
  auto node = new_node(AsStridedBackward0{geometry_of(view), geometry_of(base)});
  add_input(*node, base);
  return node;
}

std::shared_ptr<Node> current_grad_fn(const Tensor& t) {
  AutogradMeta* meta = t.impl()->autograd_meta.get();
  if (!meta) return nullptr;
  if (!meta->is_view || t.is_inference() || t._version() == meta->view_version) return meta->grad_fn;
  if (!meta->grad_fn && !meta->view_base.requires_grad()) return nullptr;
  // The base (or a sibling view) was changed in place: this view's recorded history no longer
  // describes its values. Like PyTorch, take it afresh from the base's current history, unless
  // the view was made under no_grad or inference mode (then which history it should have is
  // ambiguous, and PyTorch refuses).
  check_view_rebase(*meta, /*indirect=*/true);
  take_off_retains_grad_hook(*meta);
  meta->grad_fn = as_strided_node(t, meta->view_base);
  meta->output_nr = 0;
  if (meta->retains_grad) attach_retains_grad_hook(t, *meta->grad_fn);
  meta->sizes_when_recorded.reset();
  meta->view_version = t._version();
  return meta->grad_fn;
}

Edge gradient_edge(const Tensor& t) {
  AutogradMeta* meta = t.impl()->autograd_meta.get();
  if (!meta) return {};
  if (auto grad_fn = current_grad_fn(t)) return {grad_fn, meta->output_nr};
  // A leaf's gradient goes to its AccumulateGrad node, if it requires grad itself. A view made
  // under no_grad of a tensor that requires grad "requires grad" too, but has neither: as in
  // PyTorch, no gradient flows through it to its base.
  if (!meta->requires_grad) return {};
  if (meta->borrowed_grad_accumulator) return {meta->borrowed_grad_accumulator, 0};
  std::call_once(meta->grad_accumulator_made, [&] {
    meta->grad_accumulator = std::make_unique<Node>(AccumulateGrad{t.impl_ptr()});
    meta->grad_accumulator->sequence_nr = UINT64_MAX;  // run as soon as ready, and take no number, like PyTorch
    meta->grad_accumulator->inputs.push_back({t.sizes(), t.dtype(), t.device()});
  });
  // Owns the leaf, points at its node (shared_ptr's aliasing constructor).
  return {std::shared_ptr<Node>(t.impl_ptr(), meta->grad_accumulator.get()), 0};
}

}  // namespace ember::autograd
