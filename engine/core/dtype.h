// Element types and the rules that combine them. Names follow PyTorch: the printed dtype
// (`torch.float32`), the scalar-type name used in error texts (`Float`), and the legacy type
// string used in autograd messages (`torch.FloatTensor`).
#pragma once
#include <cstdint>
#include <iosfwd>
#include <string>

namespace ember {

// PyTorch's dtypes minus complex and quantized. The integer types wider or narrower than int64 are
// stored as themselves and computed in int64 (internal::compute_dtype), which wraps on overflow
// exactly as PyTorch's own int8/int16/int32/uint8 kernels do.
enum class DType : uint8_t { Float32, Float64, BFloat16, Float16, Int64, Bool, UInt8, Int8, Int16, Int32 };

inline constexpr DType kFloat32 = DType::Float32;
inline constexpr DType kFloat64 = DType::Float64;
inline constexpr DType kBFloat16 = DType::BFloat16;
inline constexpr DType kFloat16 = DType::Float16;
inline constexpr DType kInt64 = DType::Int64;
inline constexpr DType kBool = DType::Bool;
inline constexpr DType kUInt8 = DType::UInt8;
inline constexpr DType kInt8 = DType::Int8;
inline constexpr DType kInt16 = DType::Int16;
inline constexpr DType kInt32 = DType::Int32;
// libtorch's other names for them (torch::kFloat, torch::kDouble, torch::kLong, torch::kHalf, ...).
inline constexpr DType kFloat = kFloat32, kDouble = kFloat64, kLong = kInt64, kHalf = kFloat16;
inline constexpr DType kByte = kUInt8, kChar = kInt8, kShort = kInt16, kInt = kInt32;

// Inline: asked on every op's path (an output's bytes, a data pointer, a dtype rule).
constexpr int64_t element_size(DType dtype) {
  switch (dtype) {
    case DType::Float32: return 4;
    case DType::Float64: return 8;
    case DType::BFloat16: return 2;
    case DType::Float16: return 2;
    case DType::Int64: return 8;
    case DType::Bool: return 1;
    case DType::UInt8: return 1;
    case DType::Int8: return 1;
    case DType::Int16: return 2;
    case DType::Int32: return 4;
  }
  return 0;
}
constexpr bool is_floating_point(DType dtype) {
  return dtype == DType::Float32 || dtype == DType::Float64 || dtype == DType::BFloat16 || dtype == DType::Float16;
}
// c10's isIntegralType(dtype, includeBool): the five integer types, and bool when asked.
constexpr bool is_integral(DType dtype, bool include_bool) {
  return dtype == DType::UInt8 || dtype == DType::Int8 || dtype == DType::Int16 || dtype == DType::Int32 ||
         dtype == DType::Int64 || (include_bool && dtype == DType::Bool);
}
// "torch.float32"
std::string to_string(DType dtype);
// "Float", "Double", "BFloat16", "Half", "Long", "Bool", "Byte", "Char", "Short", "Int" (c10::ScalarType names).
const char* scalar_type_name(DType dtype);
// Prints scalar_type_name, as libtorch prints a ScalarType (`std::cout << t.dtype()` shows "Float").
std::ostream& operator<<(std::ostream& out, DType dtype);
// "float", "double", "c10::BFloat16", "c10::Half", "long int", "bool", "unsigned char", ...: the C++ type names c10's
// TypeMeta prints (profiler traces' input types, "from is out of bounds for float", out= dtypes).
const char* type_meta_name(DType dtype);
// The smallest dtype both a and b convert to without losing category (torch.promote_types).
DType promote_types(DType a, DType b);

// torch.set_default_dtype / get_default_dtype: the dtype of float factories and Python floats
// (float32 unless changed). PyTorch keeps it process-wide, not per thread; so does ember.
DType get_default_dtype();
// PyTorch accepts any floating dtype; anything else: "only floating-point types are supported as the
// default type" (a TypeError in Python).
void set_default_dtype(DType dtype);

}  // namespace ember

namespace ember {
// The legacy tensor-type name autograd and expand messages print: "torch.FloatTensor",
// "torch.cuda.FloatTensor", "torch.LongTensor", ... and "CPUBFloat16Type" for bfloat16.
std::string legacy_type_name(DType dtype, bool is_cuda);
}  // namespace ember
