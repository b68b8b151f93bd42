// `tensor op number`: add, sub, mul and div with a number, rsub, and their in-place forms. As
// PyTorch's Python binding does, the number is the op's second input, a 0-dim "wrapped number"
// tensor that needs no gradient: the node is the tensor-tensor op's (MulBackward0, saving the
// number as that tensor when a gradient reads it) with an empty edge for the number. libtorch's
// C++ overloads taking a Scalar record *Backward1 nodes instead (README: differences).
#include "dispatch.h"
#include "elementwise.h"
#include "new_tensors.h"
#include "type_promotion.h"

namespace ember {

using namespace autograd;  // the backward nodes
using kernels::BinaryOp;

namespace {

struct NumberOp : FunctionalOp {
  static constexpr bool number_is_an_input = true;
};
struct NumberInPlaceOp : InPlaceOp {
  static constexpr bool number_is_an_input = true;
};
struct AddNumber : NumberOp {
  static constexpr const char* name = "aten::add";
  static Tensor compute(const Tensor& a, Scalar b) { return elementwise::binary_with_number(BinaryOp::Add, a, b); }
  static AddBackward0 save(const Tensor&, const Tensor&, Scalar) { return {1}; }
};
struct SubNumber : NumberOp {
  static constexpr const char* name = "aten::sub";
  static Tensor compute(const Tensor& a, Scalar b) { return elementwise::binary_with_number(BinaryOp::Sub, a, b); }
  static SubBackward0 save(const Tensor&, const Tensor&, Scalar) { return {1}; }
};
struct MulNumber : NumberOp {
  static constexpr const char* name = "aten::mul";
  static Tensor compute(const Tensor& a, Scalar b) { return elementwise::binary_with_number(BinaryOp::Mul, a, b); }
  static MulBackward0 save(const Tensor&, const Tensor& a, Scalar b) {
    return {{}, elementwise::wrapped_number(BinaryOp::Mul, a, b)};
  }
};
struct DivNumber : NumberOp {
  static constexpr const char* name = "aten::div";
  static Tensor compute(const Tensor& a, Scalar b) { return elementwise::binary_with_number(BinaryOp::Div, a, b); }
  static DivBackward0 save(const Tensor&, const Tensor& a, Scalar b) {
    return {{}, elementwise::wrapped_number(BinaryOp::Div, a, b)};
  }
};
struct Rsub : FunctionalOp {  // b - a
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
struct AddNumberInPlace : NumberInPlaceOp {
  static constexpr const char* name = "aten::add_";
  static void compute(const Tensor& self, Scalar other) {
    elementwise::binary_with_number_in_place(BinaryOp::Add, self, other);
  }
  static AddBackward0 save(const Tensor&, Scalar) { return {1}; }
};
struct SubNumberInPlace : NumberInPlaceOp {
  static constexpr const char* name = "aten::sub_";
  static void compute(const Tensor& self, Scalar other) {
    elementwise::binary_with_number_in_place(BinaryOp::Sub, self, other);
  }
  static SubBackward0 save(const Tensor&, Scalar) { return {1}; }
};
struct MulNumberInPlace : NumberInPlaceOp {
  static constexpr const char* name = "aten::mul_";
  static void compute(const Tensor& self, Scalar other) {
    elementwise::binary_with_number_in_place(BinaryOp::Mul, self, other);
  }
  static MulBackward0 save(const Tensor& self, Scalar other) {
    return {{}, internal::scalar(other, internal::compute_dtype(self.dtype()), self.device())};
  }
};
struct DivNumberInPlace : NumberInPlaceOp {
  static constexpr const char* name = "aten::div_";
  static void compute(const Tensor& self, Scalar other) {
    elementwise::binary_with_number_in_place(BinaryOp::Div, self, other);
  }
  static DivBackward0 save(const Tensor& self, Scalar other) {
    return {{}, internal::scalar(other, internal::compute_dtype(self.dtype()), self.device())};
  }
};
}  // namespace

Tensor add(const Tensor& a, Scalar b) { return call<AddNumber>(a, b); }
Tensor sub(const Tensor& a, Scalar b) { return call<SubNumber>(a, b); }
Tensor mul(const Tensor& a, Scalar b) { return call<MulNumber>(a, b); }
Tensor div(const Tensor& a, Scalar b) { return call<DivNumber>(a, b); }
Tensor rsub(const Tensor& a, Scalar b) { return call<Rsub>(a, b); }

// ---- in-place methods ----
Tensor& Tensor::add_(Scalar other) {
  call<AddNumberInPlace>(*this, other);
  return *this;
}
Tensor& Tensor::sub_(Scalar other) {
  call<SubNumberInPlace>(*this, other);
  return *this;
}
Tensor& Tensor::mul_(Scalar other) {
  call<MulNumberInPlace>(*this, other);
  return *this;
}
Tensor& Tensor::div_(Scalar other) {
  call<DivNumberInPlace>(*this, other);
  return *this;
}
}  // namespace ember
