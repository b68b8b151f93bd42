// Saving a tensor for backward: refuse inference tensors, remember the version, and keep an
// output as a plain alias so the node does not own the tensor that owns the node.
#include "saved_tensor.h"

#include "internal.h"

namespace ember::autograd {

SavedTensor::SavedTensor(const Tensor& t, bool is_output_, uint32_t output_nr_)
    : is_output(is_output_), output_nr(output_nr_) {
  if (!t.defined()) return;
  EMBER_CHECK(!t.is_inference(), "Inference tensors cannot be saved for backward. To work around you can make a "
                                 "clone to get a normal tensor and use it in autograd.");
  saved_version = t._version();
  tensor = is_output ? internal::alias(t) : t;
}

}  // namespace ember::autograd
