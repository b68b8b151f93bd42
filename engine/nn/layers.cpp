// The small modules: Dropout's argument check, LayerNorm, and the containers.
#include "activation.h"
#include "containers.h"
#include "dropout.h"
#include "layer_norm.h"
#include "ops/printing.h"

namespace ember::nn {

DropoutImpl::DropoutImpl(double p) : p_(p) {
  EMBER_CHECK(p >= 0 && p <= 1, "dropout probability has to be between 0 and 1, but got ",
              internal::python_float_repr(p));
}

LayerNormImpl::LayerNormImpl(const Dims& normalized_shape, double eps, bool elementwise_affine)
    : normalized_shape_(normalized_shape),
      eps_(eps) {
  register_parameter("weight", elementwise_affine ? ones(normalized_shape) : Tensor());
  register_parameter("bias", elementwise_affine ? zeros(normalized_shape) : Tensor());
}

Tensor LayerNormImpl::forward(const Tensor& input) {
  return layer_norm(input, normalized_shape_, weight(), bias(), eps_);
}

void ChildList::push_back(std::shared_ptr<Module> module) {
  register_module(std::to_string(children().size()), std::move(module));
}

// torch's Sequential.insert: the last one moves up a place, and so on down to `index`.
void ChildList::insert(size_t index, std::shared_ptr<Module> module) {
  const size_t n = size();
  EMBER_CHECK(index <= n, "Index out of range");
  if (index == n) return push_back(std::move(module));
  push_back((*this)[n - 1]);
  for (size_t i = n - 1; i > index; --i) replace_module(std::to_string(i), (*this)[i - 1]);
  replace_module(std::to_string(index), std::move(module));
}

// torch's `del seq[i]`: the module goes, and those after it move down a place.
std::shared_ptr<Module> ChildList::pop(size_t index) {
  const size_t n = size();
  if (index >= n) throw IndexError(str_cat("index ", index, " is out of range"));
  std::shared_ptr<Module> popped = (*this)[index];
  for (size_t i = index; i + 1 < n; ++i) replace_module(std::to_string(i), (*this)[i + 1]);
  unregister_module(std::to_string(n - 1));
  return popped;
}

Tensor SequentialImpl::forward(const Tensor& input) {
  Tensor x = input;
  for (const auto& child : children()) x = child->forward(x);
  return x;
}

Tensor ModuleListImpl::forward(const Tensor&) {
  throw Error("Module [ModuleList] is missing the required \"forward\" function");
}

}  // namespace ember::nn
