// addcmul and addcdiv: self + value * tensor1 * tensor2 and self + value * tensor1 / tensor2 in one
// pass. PyTorch's optimizers are written with them (Adam's exp_avg_sq.addcmul_(grad, grad, 1 -
// beta2), param.addcdiv_(exp_avg, denom, -step_size)), and their kernels round in a way no chain
// of separate ops does: addcmul's last multiply and add are one fused multiply-add
// (kernels/element_math.h). So ember's optimizers step to PyTorch's bits through these.
#include <type_traits>

#include "api/new_tensors.h"
#include "core/memory_overlap.h"
#include "device_checks.h"
#include "dispatch.h"
#include "kernels/backend.h"
#include "shape_rules.h"
#include "type_promotion.h"

namespace ember {

using namespace autograd;  // the backward nodes
using kernels::TernaryOp;

namespace {

const char* name_of(TernaryOp op) { return op == TernaryOp::Addcmul ? "addcmul" : "addcdiv"; }

// PyTorch's refusals, in its order: integer division (its meta function, before anything else);
// then, once the operands are checked, its kernels' dtypes (no bool), and the value converted to
// the compute dtype as its kernels convert it.
void check_division(TernaryOp op, const Tensor& tensor1, const Tensor& tensor2) {
  EMBER_CHECK(op != TernaryOp::Addcdiv || tensor1.is_floating_point() || tensor2.is_floating_point(),
              "Integer division with addcdiv is no longer supported, and in a future  release addcdiv will perform "
              "a true division of tensor1 and tensor2. The historic addcdiv behavior can be implemented as (input + "
              "value * torch.trunc(tensor1 / tensor2)).to(input.dtype) for integer inputs and as (input + value * "
              "tensor1 / tensor2) for float inputs. The future addcdiv behavior is just the latter implementation: "
              "(input + value * tensor1 / tensor2), for all dtypes.");
}
void check_kernel(TernaryOp op, DType result, Scalar value, Device device) {
  EMBER_CHECK(result != kBool, "\"", name_of(op), device.is_cpu() ? "_cpu_out" : "_cuda",
              "\" not implemented for 'Bool'");
  internal::check_fits(value, internal::compute_dtype(result));
}

// The operands as the kernel takes them: each in the result's dtype first (TensorIterator's cast,
// which rounds a float32 operand of a bfloat16 result), then in the compute dtype, broadcast.
Tensor operand(const Tensor& t, DType result, const Dims& shape) {
  const Tensor in_result = internal::converted(t, result);
  return internal::broadcast_to(internal::converted(in_result, internal::compute_dtype(result)), shape);
}

Tensor compute_ternary(TernaryOp op, const Tensor& self, const Tensor& tensor1, const Tensor& tensor2, Scalar value) {
  check_division(op, tensor1, tensor2);
  const Device device = internal::common_device({self, tensor1, tensor2});
  if (self.device() != device || tensor1.device() != device || tensor2.device() != device) [[unlikely]]  // by value
    return compute_ternary(op, internal::on_device(self, device), internal::on_device(tensor1, device),
                           internal::on_device(tensor2, device), value);
  const DType result = internal::result_type({self, tensor1, tensor2});
  check_kernel(op, result, value, device);
  const Dims shape = broadcast_shapes(broadcast_shapes(self.sizes(), tensor1.sizes()), tensor2.sizes());
  Tensor out = internal::new_elementwise_output(shape, internal::compute_dtype(result), device, self, tensor1, tensor2);
  kernels::on(device).ternary(op, out, operand(self, result, shape), operand(tensor1, result, shape),
                              operand(tensor2, result, shape), value);
  return internal::converted(out, result);
}

// self += value * tensor1 (op) tensor2, after TensorIterator's checks in its order: overlap, shape,
// then whether the result's dtype may be written into self's. (The else branch's check_division
// and device checks pass again: they already did.)
void compute_ternary_in_place(TernaryOp op, const Tensor& self, const Tensor& tensor1, const Tensor& tensor2,
                              Scalar value) {
  check_division(op, tensor1, tensor2);
  const Device device = internal::common_device({self, tensor1, tensor2});
  if (self.device() != device) internal::device_mismatch(device, self.device());  // self is the output
  if (tensor1.device() != device || tensor2.device() != device) [[unlikely]]      // by value
    return compute_ternary_in_place(op, self, internal::on_device(tensor1, device),
                                    internal::on_device(tensor2, device), value);
  internal::check_writable(self, tensor1);
  internal::check_writable(self, tensor2);
  const Dims shape = broadcast_shapes(broadcast_shapes(self.sizes(), tensor1.sizes()), tensor2.sizes());
  EMBER_CHECK(shape == self.sizes(), "output with shape ", to_string(self.sizes()),
              " doesn't match the broadcast shape ", to_string(shape));
  const DType result = internal::result_type({self, tensor1, tensor2});
  internal::check_can_cast(result, self.dtype());
  check_kernel(op, result, value, self.device());
  const kernels::KernelTable& kernels = kernels::on(self.device());
  if (self.dtype() == result && internal::compute_dtype(result) == result)
    kernels.ternary(op, self, self, operand(tensor1, result, shape), operand(tensor2, result, shape), value);
  else kernels.copy(self, compute_ternary(op, self, tensor1, tensor2, value));
}

// What the nodes keep, as PyTorch saves them: tensor1 only for tensor2's gradient; tensor2 for
// tensor1's gradient, and always for addcdiv, whose tensor2 gradient reads it too (PyTorch keeps it
// even when only self requires grad). In place, a saved tensor that is self is saved as the node's
// output (Note [Saving an output]), so that using it after the write is refused, as in PyTorch.
template <typename Backward>
Backward saved_operands(const Tensor& tensor1, const Tensor& tensor2, Scalar value, const Tensor& self = {}) {
  auto saved = [&](const Tensor& t, bool needed) {
    if (!needed) return SavedTensor();
    return t.is_same(self) ? SavedTensor::output(t, 0) : SavedTensor(t);
  };
  const bool divides = std::is_same_v<Backward, AddcdivBackward0>;
  SavedTensor saved_tensor2 = saved(tensor2, divides || tensor1.requires_grad());  // PyTorch saves tensor2 first
  SavedTensor saved_tensor1 = saved(tensor1, tensor2.requires_grad());
  return {std::move(saved_tensor1), std::move(saved_tensor2), value};
}

struct Addcmul : FunctionalOp {
  static constexpr const char* name = "aten::addcmul";
  static Tensor compute(const Tensor& self, const Tensor& tensor1, const Tensor& tensor2, Scalar value) {
    return compute_ternary(TernaryOp::Addcmul, self, tensor1, tensor2, value);
  }
  static AddcmulBackward0 save(const Tensor&, const Tensor&, const Tensor& t1, const Tensor& t2, Scalar value) {
    return saved_operands<AddcmulBackward0>(t1, t2, value);
  }
};
struct Addcdiv : FunctionalOp {
  static constexpr const char* name = "aten::addcdiv";
  static Tensor compute(const Tensor& self, const Tensor& tensor1, const Tensor& tensor2, Scalar value) {
    return compute_ternary(TernaryOp::Addcdiv, self, tensor1, tensor2, value);
  }
  static AddcdivBackward0 save(const Tensor&, const Tensor&, const Tensor& t1, const Tensor& t2, Scalar value) {
    return saved_operands<AddcdivBackward0>(t1, t2, value);
  }
};
struct AddcmulInPlace : InPlaceOp {
  static constexpr const char* name = "aten::addcmul_";
  static void compute(const Tensor& self, const Tensor& tensor1, const Tensor& tensor2, Scalar value) {
    compute_ternary_in_place(TernaryOp::Addcmul, self, tensor1, tensor2, value);
  }
  static AddcmulBackward0 save(const Tensor& self, const Tensor& t1, const Tensor& t2, Scalar value) {
    return saved_operands<AddcmulBackward0>(t1, t2, value, self);
  }
};
struct AddcdivInPlace : InPlaceOp {
  static constexpr const char* name = "aten::addcdiv_";
  static void compute(const Tensor& self, const Tensor& tensor1, const Tensor& tensor2, Scalar value) {
    compute_ternary_in_place(TernaryOp::Addcdiv, self, tensor1, tensor2, value);
  }
  static AddcdivBackward0 save(const Tensor& self, const Tensor& t1, const Tensor& t2, Scalar value) {
    return saved_operands<AddcdivBackward0>(t1, t2, value, self);
  }
};

}  // namespace

Tensor addcmul(const Tensor& self, const Tensor& tensor1, const Tensor& tensor2, Scalar value) {
  return call<Addcmul>(self, tensor1, tensor2, value);
}
Tensor addcdiv(const Tensor& self, const Tensor& tensor1, const Tensor& tensor2, Scalar value) {
  return call<Addcdiv>(self, tensor1, tensor2, value);
}
Tensor& Tensor::addcmul_(const Tensor& tensor1, const Tensor& tensor2, Scalar value) {
  call<AddcmulInPlace>(*this, tensor1, tensor2, value);
  return *this;
}
Tensor& Tensor::addcdiv_(const Tensor& tensor1, const Tensor& tensor2, Scalar value) {
  call<AddcdivInPlace>(*this, tensor1, tensor2, value);
  return *this;
}

}  // namespace ember
