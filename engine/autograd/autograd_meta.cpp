// Where an AutogradMeta is freed: the one place that sees its whole type on behalf of the core's
// TensorImpl (core/tensor_impl.h, AutogradMetaDeleter).
#include "autograd_meta.h"

namespace ember::autograd {

void AutogradMetaDeleter::operator()(AutogradMeta* meta) const { delete meta; }

}  // namespace ember::autograd
