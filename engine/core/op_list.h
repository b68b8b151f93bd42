// The ops of a family with one signature, each declared once, as PyTorch's native_functions.yaml
// declares its ops: a line here gives the op every frontend, so none can be forgotten. From it come
// its C++ function (api/ops.h), its Tensor method (core/tensor.h, ops/tensor_methods.cpp), its
// Python function and method (python/src/math.cpp), its fixture runner entry (tests/op_runner.cpp)
// and a gradcheck program (tests/gradcheck_cases.cpp). Plain X-macro lists, as kernels/kernel_list.h:
// each user defines the one-line macro it needs and expands the list with it.
//
// The op itself stays where its family lives: its struct in ops/pointwise.cpp, its node in
// autograd/pointwise_derivatives.h, its formula for one element in kernels/element_math.h.
#pragma once

// UNARY(name, Name, result, cast_policy):
//   Tensor name(const Tensor& self), t.name(), torch.name(input) and Tensor.name(). Its op struct
//   Name ("aten::name") runs UnaryOp::Name (kernels/element_math.h) and records NameBackward0,
//   saving what that node's EMBER_SAVED_TENSORS names: the input (`self`), the output (`result`)
//   or nothing.
//   result       FloatingResult: an integer or bool input gives float32 (torch.exp);
//                InputDType: the input's dtype (torch.sign);
//                OwnStruct: its struct is written out in ops/pointwise.cpp (it refuses a bool
//                input with a text of its own, or records a profiler step)
//   cast_policy  what autocast does to its input (autocast/autocast.h)
#define EMBER_UNARY_OPS(UNARY)                                                   \
  UNARY(neg, Neg, OwnStruct, None)                                               \
  UNARY(exp, Exp, FloatingResult, Fp32) /* Fp32: PyTorch's CUDA list */          \
  UNARY(log, Log, FloatingResult, Fp32)                                          \
  UNARY(sqrt, Sqrt, FloatingResult, None)                                        \
  UNARY(relu, Relu, OwnStruct, None)                                             \
  UNARY(sigmoid, Sigmoid, FloatingResult, None)                                  \
  UNARY(tanh, Tanh, FloatingResult, None)                                        \
  UNARY(sign, Sign, InputDType, None) /* -1, 0 or 1 (0 for NaN); a bool stays */ \
  UNARY(abs, Abs, OwnStruct, None)                                               \
  UNARY(reciprocal, Reciprocal, FloatingResult, Fp32) /* 1 / x */

// BINARY(name): Tensor name(const Tensor& self, const Tensor& other), t.name(other),
//   torch.name(input, other) and Tensor.name(other), broadcast and promoted. Their structs are in
//   their family's file (atan2, floor_divide, remainder: ops/pointwise.cpp; maximum, minimum:
//   ops/clamp.cpp).
#define EMBER_BINARY_OPS(BINARY)                                             \
  BINARY(atan2)   /* the angle of the point (other, self) */                 \
  BINARY(maximum) /* the larger of the two; NaN if either is */              \
  BINARY(minimum)                                                            \
  BINARY(floor_divide) /* Python's //: rounded toward -inf; no derivative */ \
  BINARY(remainder)    /* Python's %: the sign of `other` */
