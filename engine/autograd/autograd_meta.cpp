// Where an AutogradMeta is freed: the one place that sees its whole type on behalf of the core's
// TensorImpl (core/tensor_impl.h, AutogradMetaDeleter).
#include "autograd_meta.h"

#include "node.h"

namespace ember::autograd {

AutogradMeta::AutogradMeta() = default;
AutogradMeta::~AutogradMeta() = default;

void AutogradMetaDeleter::operator()(AutogradMeta* meta) const { delete meta; }

}  // namespace ember::autograd
