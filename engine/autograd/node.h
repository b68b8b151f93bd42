// The autograd graph. Each recorded op becomes a Node: which op it was (the key into the formula
// table in formulas.cpp), the tensors it saved for backward, the plain arguments its formula needs,
// and one edge per input pointing at the node that will receive that input's gradient.
// Leaves that require grad are reached through an AccumulateGrad node that adds into `.grad`.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ops.h"
#include "saved_tensor.h"
#include "tensor.h"

namespace ember::autograd {

// One entry per differentiable op. Names map to PyTorch's node names in node.cpp.
enum class Op : uint8_t {
  AccumulateGrad,
  Add, Sub, Mul, Div, AddScalar, SubScalar, MulScalar, DivScalar, RsubScalar, Neg,
  Exp, Log, Sqrt, PowScalar, Relu, Sigmoid, Tanh, Where,
  Sum, SumDims, Mean, MeanDims, MaxAll, MinAll, MaxDim, MinDim,
  Mm, Addmm, Bmm, Dot, Mv,
  Softmax, LogSoftmax, LayerNorm, MseLoss, NllLoss,
  Cat, Stack, ToDtype, ToDevice, Clone,
  View, ReshapeAlias, UnsafeView, Expand, Select, Slice, Transpose, T, Permute, Squeeze, SqueezeDim, Unsqueeze,
  AsStrided, Fill, Zero, Copy, CopySlices,
  Uniform, Normal, Bernoulli, BernoulliScalar, Random,
};

struct Node;

// Where an input's gradient goes: input slot `input_nr` of `node` (null: no gradient needed).
struct Edge {
  std::shared_ptr<Node> node;
  uint32_t input_nr = 0;
};

// A layout in storage elements: what as_strided takes.
struct Geometry {
  Dims sizes;
  Dims strides;
  int64_t offset = 0;
};

// Plain arguments a formula needs besides saved tensors; each op sets only the fields it uses
// (formulas.cpp is the one reader).
struct NodeArgs {
  Scalar alpha = 1.0;      // add/sub/addmm alpha; the number of a tensor-scalar mul/div
  Scalar beta = 1.0;       // addmm
  double exponent = 0;     // pow
  int64_t dim = 0;         // the dimension of select, slice, softmax, max, cat, stack
  int64_t index = 0;       // select
  int64_t start = 0;       // slice
  int64_t end = 0;         // slice
  int64_t step = 1;        // slice
  bool keepdim = false;    // reductions
  Dims dims;               // reduced dims; transpose's two dims; permute's order
  Dims sizes;              // the input's sizes (reductions, expand, views, nll_loss)
  Geometry view;           // as_strided / CopySlices: the view's layout in its base's storage
  Geometry base;           // ... and the base's own layout
  Reduction reduction = Reduction::Mean;  // losses
  int64_t ignore_index = -100;            // nll_loss
  int64_t target_count = 0;               // nll_loss: targets not ignored (the mean's divisor)
  Device device;                          // to(device): where the input was
  std::vector<Dims> input_sizes;          // cat: each input's sizes, to split the gradient
};

// What backward needs to know about each input to hand it a gradient of the right kind: the
// engine reduces a broadcast gradient to `sizes` and casts it to `dtype` (PyTorch's InputMetadata).
struct InputMeta {
  Dims sizes;
  DType dtype = kFloat32;
  Device device;
};

struct Node {
  Op op;
  uint64_t sequence_nr = 0;  // creation order: among ready nodes, later ones run first
  uint32_t num_outputs = 1;
  std::vector<Edge> next_edges;  // one per input of the forward op
  std::vector<InputMeta> inputs;  // one per input of the forward op
  std::vector<SavedTensor> saved;
  NodeArgs args;
  std::shared_ptr<TensorImpl> leaf;  // AccumulateGrad only: the leaf it accumulates into
  std::shared_ptr<Node> inner;       // CopySlices only: the in-place op's own node
  bool released = false;             // saved tensors freed by a backward without retain_graph

  // PyTorch's node name: "AddmmBackward0", "torch::autograd::AccumulateGrad", ...
  std::string name() const;
  // Unpacks saved tensor i, checking its version (PyTorch's in-place modification error).
  Tensor saved_tensor(size_t i) const;
};

}  // namespace ember::autograd
