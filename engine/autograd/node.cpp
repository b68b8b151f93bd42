// Node names (PyTorch's, so graphs and profiles read the same) and unpacking saved tensors with
// the version check.
#include "node.h"

#include "autograd_meta.h"

namespace ember::autograd {

std::string Node::name() const {
  switch (op) {
    case Op::AccumulateGrad: return "torch::autograd::AccumulateGrad";
    case Op::Add: case Op::AddScalar: return "AddBackward0";
    case Op::Sub: case Op::SubScalar: return "SubBackward0";
    case Op::Mul: case Op::MulScalar: return "MulBackward0";
    case Op::Div: case Op::DivScalar: return "DivBackward0";
    case Op::RsubScalar: return "RsubBackward1";
    case Op::Neg: return "NegBackward0";
    case Op::Exp: return "ExpBackward0";
    case Op::Log: return "LogBackward0";
    case Op::Sqrt: return "SqrtBackward0";
    case Op::PowScalar: return "PowBackward0";
    case Op::Relu: return "ReluBackward0";
    case Op::Sigmoid: return "SigmoidBackward0";
    case Op::Tanh: return "TanhBackward0";
    case Op::Where: return "WhereBackward0";
    case Op::Sum: return "SumBackward0";
    case Op::SumDims: return "SumBackward1";
    case Op::Mean: return "MeanBackward0";
    case Op::MeanDims: return "MeanBackward1";
    case Op::MaxAll: return "MaxBackward1";
    case Op::MinAll: return "MinBackward1";
    case Op::MaxDim: return "MaxBackward0";
    case Op::MinDim: return "MinBackward0";
    case Op::Mm: return "MmBackward0";
    case Op::Addmm: return "AddmmBackward0";
    case Op::Bmm: return "BmmBackward0";
    case Op::Dot: return "DotBackward0";
    case Op::Mv: return "MvBackward0";
    case Op::Softmax: return "SoftmaxBackward0";
    case Op::LogSoftmax: return "LogSoftmaxBackward0";
    case Op::LayerNorm: return "NativeLayerNormBackward0";
    case Op::MseLoss: return "MseLossBackward0";
    case Op::NllLoss: return "NllLossBackward0";
    case Op::Cat: return "CatBackward0";
    case Op::Stack: return "StackBackward0";
    case Op::ToDtype: case Op::ToDevice: return "ToCopyBackward0";
    case Op::Clone: return "CloneBackward0";
    case Op::View: return "ViewBackward0";
    case Op::ReshapeAlias: return "ReshapeAliasBackward0";
    case Op::UnsafeView: return "UnsafeViewBackward0";
    case Op::Expand: return "ExpandBackward0";
    case Op::Select: return "SelectBackward0";
    case Op::Slice: return "SliceBackward0";
    case Op::Transpose: return "TransposeBackward0";
    case Op::T: return "TBackward0";
    case Op::Permute: return "PermuteBackward0";
    case Op::Squeeze: return "SqueezeBackward0";
    case Op::SqueezeDim: return "SqueezeBackward1";
    case Op::Unsqueeze: return "UnsqueezeBackward0";
    case Op::AsStrided: return "AsStridedBackward0";
    case Op::Fill: return "FillBackward0";
    case Op::Zero: return "ZeroBackward0";
    case Op::Copy: return "CopyBackwards";
    case Op::CopySlices: return "CopySlices";
    case Op::Uniform: return "UniformBackward0";
    case Op::Normal: return "NormalBackward0";
    case Op::Bernoulli: return "BernoulliBackward0";
    case Op::BernoulliScalar: return "BernoulliBackward2";
    case Op::Random: return "RandomBackward0";
  }
  return "UnknownBackward";
}

Tensor Node::saved_tensor(size_t i) const {
  EMBER_CHECK(!released,
              "Trying to backward through the graph a second time (or directly access saved tensors after they have "
              "already been freed). Saved intermediate values of the graph are freed when you call .backward() or "
              "autograd.grad(). Specify retain_graph=True if you need to backward through the graph a second time or "
              "if you need to access saved tensors after calling backward.");
  const SavedTensor& saved_entry = saved.at(i);
  const Tensor& t = saved_entry.tensor;
  if (!t.defined()) return t;
  const uint32_t current = t._version();
  if (current != saved_entry.saved_version) {
    std::string message = str_cat("one of the variables needed for gradient computation has been modified by an "
                                  "inplace operation: [", legacy_type_name(t.dtype(), t.device().is_cuda()), " ",
                                  to_string(t.sizes()), "]");
    if (saved_entry.is_output) message += str_cat(", which is output ", saved_entry.output_nr, " of ", name(), ",");
    else if (auto fn = t.grad_fn()) message += str_cat(", which is output ", t.impl()->autograd_meta->output_nr, " of ", fn->name(), ",");
    message += str_cat(" is at version ", current, "; expected version ", saved_entry.saved_version,
                       " instead. Hint: enable anomaly detection to find the operation that failed to compute its "
                       "gradient, with torch.autograd.set_detect_anomaly(True).");
    throw Error(message);
  }
  return t;
}

}  // namespace ember::autograd
