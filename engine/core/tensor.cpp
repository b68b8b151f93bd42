// The Tensor handle's own methods: the layout queries and checks that need no op. What a tensor
// can do (its method forms, operators, copies) is op code, in ops/.
#include "tensor.h"

namespace ember {

int64_t Tensor::size(int64_t d) const {
  EMBER_CHECK(dim() > 0, "Dimension specified as ", d, " but tensor has no dimensions");
  return sizes()[wrap_dim(d, dim())];
}
int64_t Tensor::stride(int64_t d) const {
  EMBER_CHECK(dim() > 0, "Dimension specified as ", d, " but tensor has no dimensions");
  return strides()[wrap_dim(d, dim())];
}

void Tensor::throw_undefined() {
  throw Error("ember: this Tensor is undefined (default-constructed, or the .grad() of a tensor before backward)");
}

void Tensor::check_dtype(DType expected) const {
  EMBER_CHECK(dtype() == expected, "expected scalar type ", scalar_type_name(expected), " but found ",
              scalar_type_name(dtype()));
}

void Tensor::check_accessor(DType expected, size_t dims) const {
  EMBER_CHECK(device().is_cpu(), "accessor() reads CPU memory, but the tensor is on ", device().str());
  check_dtype(expected);
  EMBER_CHECK(dim() == static_cast<int64_t>(dims), "TensorAccessor expected ", dims, " dims but tensor has ", dim());
}

// libtorch's name for a tensor's kind, its backend and scalar type: "CPUFloatType", "CUDALongType".
std::string Tensor::toString() const {
  const Device d = device();
  const char* backend = d.is_cpu() ? "CPU" : d.is_cuda() ? "CUDA" : "PrivateUse1";
  return std::string(backend) + scalar_type_name(dtype()) + "Type";
}

}  // namespace ember
