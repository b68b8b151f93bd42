// `tensor op number`: add, sub, mul and div with a number, rsub, and their in-place forms, each
// through one of two doors that compute alike and differ in the node they record:
// - C++ (libtorch's Scalar overloads, `x * 2`): the number is an argument, not an input; the node is
//   MulBackward1, with one next function and the number kept as a plain value.
// - Python (ember::wrapped_number, what the binding calls): as PyTorch's argument parser does, the
//   number becomes the op's second input, a 0-dim "wrapped number" tensor that needs no gradient; the
//   node is the tensor-tensor op's (MulBackward0, saving the number as that tensor) with an empty edge.
#include "api/new_tensors.h"
#include "dispatch.h"
#include "elementwise.h"
#include "type_promotion.h"

namespace ember {

using namespace autograd;  // the backward nodes
using kernels::BinaryOp;

namespace {

// Wrapped: Python's number, an input of the op (with an empty edge) that the tensor-tensor node
// saves as a 0-dim tensor. Not wrapped: C++'s Scalar, no input, and libtorch's *Backward1 node.
template <bool wrapped>
struct NumberOp : FunctionalOp {
  static constexpr bool number_is_an_input = wrapped;
};
template <bool wrapped>
struct NumberInPlaceOp : InPlaceOp {
  static constexpr bool number_is_an_input = wrapped;
};
template <bool wrapped>
struct AddNumber : NumberOp<wrapped> {
  static constexpr const char* name = "aten::add";
  static Tensor compute(const Tensor& a, Scalar b) { return elementwise::binary_with_number(BinaryOp::Add, a, b); }
  static auto save(const Tensor&, const Tensor&, Scalar) {
    if constexpr (wrapped) return AddBackward0{1};
    else return AddBackward1{};
  }
};
template <bool wrapped>
struct SubNumber : NumberOp<wrapped> {
  static constexpr const char* name = "aten::sub";
  static Tensor compute(const Tensor& a, Scalar b) { return elementwise::binary_with_number(BinaryOp::Sub, a, b); }
  static auto save(const Tensor&, const Tensor&, Scalar) {
    if constexpr (wrapped) return SubBackward0{1};
    else return SubBackward1{};
  }
};
template <bool wrapped>
struct MulNumber : NumberOp<wrapped> {
  static constexpr const char* name = "aten::mul";
  static Tensor compute(const Tensor& a, Scalar b) { return elementwise::binary_with_number(BinaryOp::Mul, a, b); }
  static auto save(const Tensor&, const Tensor& a, Scalar b) {
    if constexpr (wrapped) return MulBackward0{{}, elementwise::wrapped_number(BinaryOp::Mul, a, b)};
    else return MulBackward1{b};
  }
};
template <bool wrapped>
struct DivNumber : NumberOp<wrapped> {
  static constexpr const char* name = "aten::div";
  static Tensor compute(const Tensor& a, Scalar b) { return elementwise::binary_with_number(BinaryOp::Div, a, b); }
  static auto save(const Tensor&, const Tensor& a, Scalar b) {
    if constexpr (wrapped) return DivBackward0{{}, elementwise::wrapped_number(BinaryOp::Div, a, b)};
    else return DivBackward1{b};
  }
};
struct FloorDivideNumber : FunctionalOp {
  static constexpr const char* name = "aten::floor_divide";
  static Tensor compute(const Tensor& a, Scalar b) {
    return elementwise::binary_with_number(BinaryOp::FloorDivide, a, b);
  }
  static NotImplemented save(const Tensor&, const Tensor&, Scalar) { return {"aten::floor_divide"}; }
};
struct RemainderNumber : FunctionalOp {
  static constexpr const char* name = "aten::remainder";
  static Tensor compute(const Tensor& a, Scalar b) {
    return elementwise::binary_with_number(BinaryOp::Remainder, a, b);
  }
  static RemainderBackward0 save(const Tensor&, const Tensor&, Scalar) { return {}; }
};
struct Rsub : FunctionalOp {  // b - a, in Python and C++ alike
  static constexpr const char* name = "aten::rsub";
  static Tensor compute(const Tensor& a, Scalar b) {
    elementwise::check_bool_subtraction(BinaryOp::Sub, a.dtype(), b.kind());
    const DType result = internal::result_type(a, b);
    const Tensor number = internal::scalar(b, internal::compute_dtype(result), a.device());
    return elementwise::compute_binary(BinaryOp::Sub, number, a, 1, result);
  }
  static RsubBackward1 save(const Tensor&, const Tensor&, Scalar) { return {1}; }
};

// ---- in place ----
template <bool wrapped>
struct AddNumberInPlace : NumberInPlaceOp<wrapped> {
  static constexpr const char* name = "aten::add_";
  static void compute(const Tensor& self, Scalar other) {
    elementwise::binary_with_number_in_place(BinaryOp::Add, self, other);
  }
  static auto save(const Tensor&, Scalar) {
    if constexpr (wrapped) return AddBackward0{1};
    else return AddBackward1{};
  }
};
template <bool wrapped>
struct SubNumberInPlace : NumberInPlaceOp<wrapped> {
  static constexpr const char* name = "aten::sub_";
  static void compute(const Tensor& self, Scalar other) {
    elementwise::binary_with_number_in_place(BinaryOp::Sub, self, other);
  }
  static auto save(const Tensor&, Scalar) {
    if constexpr (wrapped) return SubBackward0{1};
    else return SubBackward1{};
  }
};
template <bool wrapped>
struct MulNumberInPlace : NumberInPlaceOp<wrapped> {
  static constexpr const char* name = "aten::mul_";
  static void compute(const Tensor& self, Scalar other) {
    elementwise::binary_with_number_in_place(BinaryOp::Mul, self, other);
  }
  static auto save(const Tensor& self, Scalar other) {
    if constexpr (wrapped)
      return MulBackward0{{}, internal::scalar(other, internal::compute_dtype(self.dtype()), self.device())};
    else return MulBackward1{other};
  }
};
template <bool wrapped>
struct DivNumberInPlace : NumberInPlaceOp<wrapped> {
  static constexpr const char* name = "aten::div_";
  static void compute(const Tensor& self, Scalar other) {
    elementwise::binary_with_number_in_place(BinaryOp::Div, self, other);
  }
  static auto save(const Tensor& self, Scalar other) {
    if constexpr (wrapped)
      return DivBackward0{{}, internal::scalar(other, internal::compute_dtype(self.dtype()), self.device())};
    else return DivBackward1{other};
  }
};
}  // namespace

Tensor add(const Tensor& a, Scalar b) { return call<AddNumber<false>>(a, b); }
Tensor sub(const Tensor& a, Scalar b) { return call<SubNumber<false>>(a, b); }
Tensor mul(const Tensor& a, Scalar b) { return call<MulNumber<false>>(a, b); }
Tensor div(const Tensor& a, Scalar b) { return call<DivNumber<false>>(a, b); }
Tensor rsub(const Tensor& a, Scalar b) { return call<Rsub>(a, b); }
Tensor floor_divide(const Tensor& a, Scalar b) { return call<FloorDivideNumber>(a, b); }
Tensor remainder(const Tensor& a, Scalar b) { return call<RemainderNumber>(a, b); }

// ---- in-place methods ----
namespace {
template <typename Op>
Tensor& in_place(Tensor& self, Scalar other) {
  call<Op>(self, other);
  return self;
}
}  // namespace

Tensor& Tensor::add_(Scalar other) { return in_place<AddNumberInPlace<false>>(*this, other); }
Tensor& Tensor::sub_(Scalar other) { return in_place<SubNumberInPlace<false>>(*this, other); }
Tensor& Tensor::mul_(Scalar other) { return in_place<MulNumberInPlace<false>>(*this, other); }
Tensor& Tensor::div_(Scalar other) { return in_place<DivNumberInPlace<false>>(*this, other); }

namespace wrapped_number {
Tensor add(const Tensor& a, Scalar b) { return call<AddNumber<true>>(a, b); }
Tensor sub(const Tensor& a, Scalar b) { return call<SubNumber<true>>(a, b); }
Tensor mul(const Tensor& a, Scalar b) { return call<MulNumber<true>>(a, b); }
Tensor div(const Tensor& a, Scalar b) { return call<DivNumber<true>>(a, b); }
Tensor& add_(Tensor& self, Scalar other) { return in_place<AddNumberInPlace<true>>(self, other); }
Tensor& sub_(Tensor& self, Scalar other) { return in_place<SubNumberInPlace<true>>(self, other); }
Tensor& mul_(Tensor& self, Scalar other) { return in_place<MulNumberInPlace<true>>(self, other); }
Tensor& div_(Tensor& self, Scalar other) { return in_place<DivNumberInPlace<true>>(self, other); }
}  // namespace wrapped_number
}  // namespace ember
