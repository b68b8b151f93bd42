// Recording the graph: nodes, edges and histories.
#include "record.h"

#include <atomic>

#include "autograd_meta.h"
#include "grad_mode.h"

namespace ember::autograd {

namespace {

std::atomic<uint64_t> next_sequence_nr{0};

bool tracks_grad(const Tensor* t) { return t && t->defined() && t->requires_grad(); }

AutogradMeta& meta_of(const Tensor& t) {
  auto& meta = t.impl()->autograd_meta;
  if (!meta) meta = std::make_unique<AutogradMeta>();
  return *meta;
}

void add_input(Node& node, const Tensor* t) {
  if (t && t->defined()) {
    node.next_edges.push_back(tracks_grad(t) ? gradient_edge(*t) : Edge{});
    node.inputs.push_back({t->sizes(), t->dtype(), t->device()});
  } else {
    node.next_edges.push_back({});
    node.inputs.push_back({});
  }
}

std::shared_ptr<Node> new_node(Op op) {
  auto node = std::make_shared<Node>();
  node->op = op;
  node->sequence_nr = next_sequence_nr.fetch_add(1, std::memory_order_relaxed);
  return node;
}

Geometry geometry_of(const Tensor& t) { return {t.sizes(), t.strides(), t.storage_offset()}; }

}  // namespace

bool needs_grad(std::initializer_list<const Tensor*> inputs) {
  if (!GradMode::is_enabled()) return false;
  for (const Tensor* t : inputs)
    if (tracks_grad(t)) return true;
  return false;
}

bool needs_grad(const std::vector<Tensor>& inputs) {
  if (!GradMode::is_enabled()) return false;
  for (const Tensor& t : inputs)
    if (tracks_grad(&t)) return true;
  return false;
}

std::shared_ptr<Node> make_node(Op op, std::initializer_list<const Tensor*> inputs) {
  auto node = new_node(op);
  for (const Tensor* t : inputs) add_input(*node, t);
  return node;
}

std::shared_ptr<Node> make_node(Op op, const std::vector<Tensor>& inputs) {
  auto node = new_node(op);
  for (const Tensor& t : inputs) add_input(*node, &t);
  return node;
}

void set_history(const Tensor& output, const std::shared_ptr<Node>& node, uint32_t output_nr) {
  AutogradMeta& meta = meta_of(output);
  meta.grad_fn = node;
  meta.output_nr = output_nr;
  if (meta.is_view && !output.is_inference()) meta.view_version = output._version();
}

std::shared_ptr<Node> as_strided_node(const Tensor& view, const Tensor& base) {
  auto node = new_node(Op::AsStrided);
  add_input(*node, &base);
  node->args.view = geometry_of(view);
  node->args.base = geometry_of(base);
  return node;
}

std::shared_ptr<Node> current_grad_fn(const Tensor& t) {
  AutogradMeta* meta = t.impl()->autograd_meta.get();
  if (!meta) return nullptr;
  if (meta->is_view && meta->grad_fn && !t.is_inference() && t._version() != meta->view_version) {
    // The base (or a sibling view) was changed in place: this view's recorded history no longer
    // describes its values. Like PyTorch, take it afresh from the base's current history.
    meta->grad_fn = as_strided_node(t, meta->view_base);
    meta->output_nr = 0;
    meta->view_version = t._version();
  }
  return meta->grad_fn;
}

Edge gradient_edge(const Tensor& t) {
  AutogradMeta* meta = t.impl()->autograd_meta.get();
  if (!meta) return {};
  if (auto grad_fn = current_grad_fn(t)) return {grad_fn, meta->output_nr};
  // A view made where no graph was recorded (no_grad) of a base that requires grad: its gradient
  // goes to the base through an as_strided node.
  if (meta->is_view && meta->view_base.requires_grad()) return {as_strided_node(t, meta->view_base), 0};
  if (!meta->requires_grad) return {};
  std::lock_guard<std::mutex> lock(meta->mutex);
  std::shared_ptr<Node> accumulator = meta->grad_accumulator.lock();
  if (!accumulator) {
    accumulator = new_node(Op::AccumulateGrad);
    accumulator->sequence_nr = UINT64_MAX;  // run as soon as ready, like PyTorch
    accumulator->leaf = t.impl_ptr();
    accumulator->inputs.push_back({t.sizes(), t.dtype(), t.device()});
    meta->grad_accumulator = accumulator;
  }
  return {accumulator, 0};
}

}  // namespace ember::autograd
