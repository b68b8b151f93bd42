// Element types and the rules that combine them. Names follow PyTorch: the printed dtype
// (`torch.float32`), the scalar-type name used in error texts (`Float`), and the legacy type
// string used in autograd messages (`torch.FloatTensor`).
#pragma once
#include <cstdint>
#include <iosfwd>
#include <string>

namespace ember {

enum class DType : uint8_t { Float32, Float64, BFloat16, Float16, Int64, Bool };

inline constexpr DType kFloat32 = DType::Float32;
inline constexpr DType kFloat64 = DType::Float64;
inline constexpr DType kBFloat16 = DType::BFloat16;
inline constexpr DType kFloat16 = DType::Float16;
inline constexpr DType kInt64 = DType::Int64;
inline constexpr DType kBool = DType::Bool;
// libtorch's other names for them (torch::kFloat, torch::kDouble, torch::kLong, torch::kHalf).
inline constexpr DType kFloat = kFloat32, kDouble = kFloat64, kLong = kInt64, kHalf = kFloat16;

// Inline: asked on every op's path (an output's bytes, a data pointer, a dtype rule).
constexpr int64_t element_size(DType dtype) {
  switch (dtype) {
    case DType::Float32: return 4;
    case DType::Float64: return 8;
    case DType::BFloat16: return 2;
    case DType::Float16: return 2;
    case DType::Int64: return 8;
    case DType::Bool: return 1;
  }
  return 0;
}
constexpr bool is_floating_point(DType dtype) {
  return dtype == DType::Float32 || dtype == DType::Float64 || dtype == DType::BFloat16 || dtype == DType::Float16;
}
// "torch.float32"
std::string to_string(DType dtype);
// "Float", "Double", "BFloat16", "Half", "Long", "Bool" (c10::ScalarType names).
const char* scalar_type_name(DType dtype);
// Prints scalar_type_name, as libtorch prints a ScalarType (`std::cout << t.dtype()` shows "Float").
std::ostream& operator<<(std::ostream& out, DType dtype);
// "float", "double", "c10::BFloat16", "c10::Half", "long int", "bool": the C++ type names c10's
// TypeMeta prints (profiler traces' input types, "from is out of bounds for float", out= dtypes).
const char* type_meta_name(DType dtype);
// The smallest dtype both a and b convert to without losing category (torch.promote_types).
DType promote_types(DType a, DType b);

}  // namespace ember

namespace ember {
// The legacy tensor-type name autograd and expand messages print: "torch.FloatTensor",
// "torch.cuda.FloatTensor", "torch.LongTensor", ... and "CPUBFloat16Type" for bfloat16.
std::string legacy_type_name(DType dtype, bool is_cuda);
}  // namespace ember
