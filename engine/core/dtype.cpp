// Element-type tables. promote_types follows PyTorch's promotion lattice: bool < integers <
// floating; among integers the wider wins (uint8 with int8 gives int16), among floats the wider
// one wins, with the special case that bfloat16 and float16 (neither contains the other) promote
// to float32.
#include "dtype.h"

#include <atomic>
#include <ostream>

#include "error.h"

namespace ember {

std::string to_string(DType dtype) {
  switch (dtype) {
    case DType::Float32: return "torch.float32";
    case DType::Float64: return "torch.float64";
    case DType::BFloat16: return "torch.bfloat16";
    case DType::Float16: return "torch.float16";
    case DType::Int64: return "torch.int64";
    case DType::Bool: return "torch.bool";
    case DType::UInt8: return "torch.uint8";
    case DType::Int8: return "torch.int8";
    case DType::Int16: return "torch.int16";
    case DType::Int32: return "torch.int32";
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
    case DType::UInt8: return "Byte";
    case DType::Int8: return "Char";
    case DType::Int16: return "Short";
    case DType::Int32: return "Int";
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
    case DType::UInt8: return "unsigned char";
    case DType::Int8: return "signed char";
    case DType::Int16: return "short int";
    case DType::Int32: return "int";
  }
  return "?";
}

DType promote_types(DType a, DType b) {
  if (a == b) return a;
  if (a == DType::Bool) return b;
  if (b == DType::Bool) return a;
  if (is_integral(a, false) && is_integral(b, false)) {
    // The wider integer wins; uint8 with int8 (neither holds the other) meet in int16.
    if (a == DType::UInt8 || b == DType::UInt8) {
      const DType other = a == DType::UInt8 ? b : a;
      return other == DType::Int8 ? DType::Int16 : other;
    }
    return element_size(a) > element_size(b) ? a : b;
  }
  if (is_integral(a, false)) return b;  // b is floating here
  if (is_integral(b, false)) return a;
  if (a == DType::Float64 || b == DType::Float64) return DType::Float64;
  return DType::Float32;  // float32 with a half type, or bfloat16 with float16
}

namespace {
std::atomic<DType> default_dtype{DType::Float32};
}

DType get_default_dtype() { return default_dtype.load(std::memory_order_relaxed); }

void set_default_dtype(DType dtype) {
  if (!is_floating_point(dtype)) throw TypeError("only floating-point types are supported as the default type");
  default_dtype.store(dtype, std::memory_order_relaxed);
}

}  // namespace ember

namespace ember {
std::string legacy_type_name(DType dtype, bool is_cuda) {
  // bfloat16 has no legacy Python type (no torch.BFloat16Tensor): PyTorch prints the backend's type.
  if (dtype == kBFloat16) return is_cuda ? "CUDABFloat16Type" : "CPUBFloat16Type";
  return std::string(is_cuda ? "torch.cuda." : "torch.") + scalar_type_name(dtype) + "Tensor";
}
}  // namespace ember
