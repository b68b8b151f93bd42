// Recording the graph: nodes, edges and histories.
#include "record.h"

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

void set_history(const Tensor& output, const std::shared_ptr<Node>& node) {
  AutogradMeta& meta = meta_of(output);
  meta.grad_fn = node;
  meta.output_nr = 0;
  meta.sizes_when_recorded.reset();
  if (meta.is_view && !output.is_inference()) meta.view_version = output._version();
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
  check_view_rebase(meta->creation_meta, /*indirect=*/true);
  meta->grad_fn = as_strided_node(t, meta->view_base);
  meta->output_nr = 0;
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
  std::lock_guard<std::mutex> lock(meta->mutex);
  std::shared_ptr<Node> accumulator = meta->grad_accumulator.lock();
  if (!accumulator) {
    accumulator = std::make_shared<Node>(AccumulateGrad{t.impl_ptr()});
    accumulator->sequence_nr = UINT64_MAX;  // run as soon as ready, and take no number, like PyTorch
    accumulator->inputs.push_back({t.sizes(), t.dtype(), t.device()});
    meta->grad_accumulator = accumulator;
  }
  return {accumulator, 0};
}

}  // namespace ember::autograd
