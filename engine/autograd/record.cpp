// Recording the graph: nodes, edges, histories, and PyTorch's rules for in-place ops.
#include "record.h"

#include <atomic>

#include "autograd_meta.h"
#include "grad_mode.h"
#include "inference_mode.h"

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
}

Edge gradient_edge(const Tensor& t) {
  AutogradMeta* meta = t.impl()->autograd_meta.get();
  if (!meta) return {};
  if (meta->grad_fn) return {meta->grad_fn, meta->output_nr};
  if (meta->is_view && meta->view_base.defined() && meta->view_base.requires_grad()) {
    // A view made where no graph was recorded (no_grad): its gradient goes to the base through
    // an as_strided node, as PyTorch regenerates the view's grad_fn lazily.
    auto node = new_node(Op::AsStrided);
    add_input(*node, &meta->view_base);
    node->args.sizes = t.sizes();
    node->args.strides = t.strides();
    node->args.offset = t.storage_offset() - meta->view_base.storage_offset();
    return {node, 0};
  }
  if (!meta->requires_grad) return {};
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

void record_view(const Tensor& view, const Tensor& base) {
  AutogradMeta* base_meta = base.impl()->autograd_meta.get();
  const Tensor& root = base_meta && base_meta->is_view ? base_meta->view_base : base;
  if (!root.requires_grad()) return;
  AutogradMeta& meta = meta_of(view);
  meta.is_view = true;
  meta.view_base = root;
  meta.creation_meta = InferenceMode::is_enabled()  ? CreationMeta::InferenceMode
                       : !GradMode::is_enabled()    ? CreationMeta::NoGradMode
                       : base_meta && base_meta->is_view ? base_meta->creation_meta
                                                          : CreationMeta::Default;
}

void check_inplace(const Tensor& self) {
  EMBER_CHECK(!self.is_inference() || InferenceMode::is_enabled(),
              "Inplace update to inference tensor outside InferenceMode is not allowed.You can make a clone to get a "
              "normal tensor before doing inplace update.See https://github.com/pytorch/rfcs/pull/17 for more "
              "details.");
  if (!GradMode::is_enabled() || !self.requires_grad()) return;
  const AutogradMeta& meta = *self.impl()->autograd_meta;
  if (meta.is_view) {
    EMBER_CHECK(meta.creation_meta != CreationMeta::NoGradMode,
                "A view was created in no_grad mode and is being modified inplace with grad mode enabled. Given that "
                "this use case is ambiguous and error-prone, it is forbidden. You can clarify your code by moving "
                "both the view and the inplace either both inside the no_grad block (if you don't want the inplace "
                "to be tracked) or both outside (if you want the inplace to be tracked).");
    EMBER_CHECK(meta.creation_meta != CreationMeta::InferenceMode,
                "A view was created in inference mode and is being modified inplace in normal mode. Given that this "
                "use case is ambiguous and error-prone, it is forbidden. You can clarify your code by moving both the "
                "view and the inplace either both inside the inference_mode block (if you don't want the inplace to "
                "be tracked) or both outside (if you want the inplace to be tracked).");
    EMBER_CHECK(!meta.view_base.is_leaf(),
                "a view of a leaf Variable that requires grad is being used in an in-place operation.");
  }
  EMBER_CHECK(!self.is_leaf(), "a leaf Variable that requires grad is being used in an in-place operation.");
}

void finish_inplace(const Tensor& self, const std::shared_ptr<Node>& node) {
  self.impl()->storage->version_counter.bump();
  if (!node) return;
  AutogradMeta& meta = meta_of(self);
  if (!meta.is_view) {
    set_history(self, node);  // the tensor's history now ends in the in-place op
    return;
  }
  // In-place on a view: the base's history becomes CopySlices (the op applied to the view's
  // region of the base's gradient), and the view becomes an as_strided view of the new base.
  const Tensor& base = meta.view_base;
  auto copy_slices = new_node(Op::CopySlices);
  add_input(*copy_slices, &base);
  for (size_t i = 1; i < node->next_edges.size(); ++i) {
    copy_slices->next_edges.push_back(node->next_edges[i]);
    copy_slices->inputs.push_back(node->inputs[i]);
  }
  copy_slices->inner = node;
  copy_slices->args.sizes = self.sizes();
  copy_slices->args.strides = self.strides();
  copy_slices->args.offset = self.storage_offset() - base.storage_offset();
  set_history(base, copy_slices);
  auto as_strided = new_node(Op::AsStrided);
  add_input(*as_strided, &base);
  as_strided->args = copy_slices->args;
  set_history(self, as_strided);
}

}  // namespace ember::autograd
