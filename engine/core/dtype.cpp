// Element-type tables. promote_types follows PyTorch's promotion lattice for the six dtypes
// ember has: bool < int64 < floating, and among floats the wider one wins, with the special case
// that bfloat16 and float16 (neither contains the other) promote to float32.
#include "dtype.h"

#include <ostream>

namespace ember {

std::string to_string(DType dtype) {
  switch (dtype) {
    case DType::Float32: return "torch.float32";
    case DType::Float64: return "torch.float64";
    case DType::BFloat16: return "torch.bfloat16";
    case DType::Float16: return "torch.float16";
    case DType::Int64: return "torch.int64";
    case DType::Bool: return "torch.bool";
  }
  return "?";
}

const char* scalar_type_name(DType dtype) {
  switch (dtype) {
    case DType::Float32: return "Float";
    case DType::Float64: return "Double";
    case DType::BFloat16: return "BFloat16";
    case DType::Float16: return "Half";
    case DType::Int64: return "Long";
    case DType::Bool: return "Bool";
  }
  return "?";
}

std::ostream& operator<<(std::ostream& out, DType dtype) { return out << scalar_type_name(dtype); }

const char* type_meta_name(DType dtype) {
  switch (dtype) {
    case DType::Float32: return "float";
    case DType::Float64: return "double";
    case DType::BFloat16: return "c10::BFloat16";
    case DType::Float16: return "c10::Half";
    case DType::Int64: return "long int";
    case DType::Bool: return "bool";
  }
  return "?";
}

DType promote_types(DType a, DType b) {
  if (a == b) return a;
  if (a == DType::Bool) return b;
  if (b == DType::Bool) return a;
  if (a == DType::Int64) return b;  // b is floating here
  if (b == DType::Int64) return a;
  if (a == DType::Float64 || b == DType::Float64) return DType::Float64;
  return DType::Float32;  // float32 with a half type, or bfloat16 with float16
}

}  // namespace ember

namespace ember {
std::string legacy_type_name(DType dtype, bool is_cuda) {
  // bfloat16 has no legacy Python type (no torch.BFloat16Tensor): PyTorch prints the backend's type.
  if (dtype == kBFloat16) return is_cuda ? "CUDABFloat16Type" : "CPUBFloat16Type";
  return std::string(is_cuda ? "torch.cuda." : "torch.") + scalar_type_name(dtype) + "Tensor";
}
}  // namespace ember
