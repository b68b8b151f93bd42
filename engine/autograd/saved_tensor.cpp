// Saving a tensor for backward: refuse inference tensors, remember the version, keep an output as
// a plain alias (Note [Saving an output]); unpacking checks both things that can go wrong since.
#include "saved_tensor.h"

#include "autograd_meta.h"
#include "node.h"
#include "ops/new_tensors.h"

namespace ember::autograd {

namespace {

void check_can_save(const Tensor& t) {
  EMBER_CHECK(!t.is_inference(), "Inference tensors cannot be saved for backward. To work around you can make a "
                                 "clone to get a normal tensor and use it in autograd.");
}

}  // namespace

SavedTensor::SavedTensor(const Tensor& input) {
  if (!input.defined()) return;
  check_can_save(input);
  tensor_ = input;
  saved_version_ = input._version();
}

SavedTensor SavedTensor::output(const Tensor& result, uint32_t output_nr) {
  check_can_save(result);
  SavedTensor saved;
  saved.tensor_ = internal::alias(result);  // detach() without an aten::detach event, as PyTorch saves
  saved.saved_version_ = result._version();
  saved.is_output_ = true;
  saved.output_nr_ = output_nr;
  return saved;
}

void SavedTensor::release() {
  tensor_ = Tensor();
  released_ = true;
}

Tensor SavedTensor::unpack() const {
  EMBER_CHECK(!released_,
              "Trying to backward through the graph a second time (or directly access saved tensors after they have "
              "already been freed). Saved intermediate values of the graph are freed when you call .backward() or "
              "autograd.grad(). Specify retain_graph=True if you need to backward through the graph a second time or "
              "if you need to access saved tensors after calling backward.");
  const Tensor& t = tensor_;
  if (!t.defined()) return t;
  const uint32_t current = t._version();
  if (current == saved_version_) return t;
  std::string message = str_cat("one of the variables needed for gradient computation has been modified by an "
                                "inplace operation: [",
                                legacy_type_name(t.dtype(), t.device().is_cuda()), " ", to_string(t.sizes()), "]");
  if (is_output_) message += str_cat(", which is output ", output_nr_, " of ", node_name_, ",");
  else if (auto fn = t.grad_fn())
    message += str_cat(", which is output ", t.impl()->autograd_meta->output_nr, " of ", fn->name(), ",");
  message += str_cat(" is at version ", current, "; expected version ", saved_version_,
                     " instead. Hint: enable anomaly detection to find the operation that failed to compute its "
                     "gradient, with torch.autograd.set_detect_anomaly(True).");
  throw Error(message);
}

}  // namespace ember::autograd
