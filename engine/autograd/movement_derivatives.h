// The backward nodes of the ops that join, copy, move or overwrite tensors, one group of
// derivatives.h's nodes kept in a file of its own (derivatives.h lists the sections): each gives every input its share
// of the gradient unchanged, or none where the op overwrote the values.
#pragma once
#include "api/ops.h"
#include "formula_helpers.h"

namespace ember::autograd {

// ---- joining, copies, moves ----
struct CatBackward0 {  // each input gets its slice of g
  static constexpr const char* name = "CatBackward0";
  int64_t dim = 0;
  std::vector<Dims> tensors_sizes;
  Grads apply(const Tensor& g, Needs) const;
};
struct StackBackward0 {
  static constexpr const char* name = "StackBackward0";
  int64_t dim = 0;
  Grads apply(const Tensor& g, Needs) const {
    Grads grads;
    for (int64_t i = 0; i < g.size(dim); ++i) grads.push_back(g.select(dim, i));
    return grads;
  }
};
struct ToCopyBackward0 {  // to(dtype) / to(device): the engine casts and moves g back
  static constexpr const char* name = "ToCopyBackward0";
  Grads apply(const Tensor& g, Needs) const { return {g}; }
};
struct CloneBackward0 {
  static constexpr const char* name = "CloneBackward0";
  Grads apply(const Tensor& g, Needs) const { return {g}; }
};

// ---- in-place ops: the overwritten values no longer depend on what self held ----
struct FillBackward2 {
  static constexpr const char* name = "FillBackward2";
  Grads apply(const Tensor& g, Needs) const { return {zeros_like(g)}; }
};
struct ZeroBackward0 : FillBackward2 {
  static constexpr const char* name = "ZeroBackward0";
};
struct UniformBackward0 : FillBackward2 {
  static constexpr const char* name = "UniformBackward0";
};
struct NormalBackward0 : FillBackward2 {
  static constexpr const char* name = "NormalBackward0";
};
struct BernoulliBackward0 : FillBackward2 {  // bernoulli(p): samples do not depend on p smoothly
  static constexpr const char* name = "BernoulliBackward0";
};
struct BernoulliBackward2 : FillBackward2 {  // bernoulli_(p) in place
  static constexpr const char* name = "BernoulliBackward2";
};
struct RandomBackward0 : FillBackward2 {
  static constexpr const char* name = "RandomBackward0";
};
struct CopyBackwards {  // self.copy_(src): src's gradient is g, self's old values get none
  static constexpr const char* name = "torch::autograd::CopyBackwards";
  Grads apply(const Tensor& g, Needs) const { return {zeros_like(g), g}; }
};

// ---- ops PyTorch gives no derivative (derivatives.yaml's not_implemented): set_, detach_copy ----
// The forward runs and records this node, so its result requires grad; backward through it fails.
struct NotImplemented {
  static constexpr const char* name = "NotImplemented";
  const char* op = "";  // as PyTorch names it in the text: "set_", "aten::detach_copy"
  Grads apply(const Tensor&, Needs) const { throw Error(str_cat("derivative for ", op, " is not implemented")); }
};

// This section's nodes, for BackwardFunction (derivatives.h).
using MovementNodes = NodeList<CatBackward0, StackBackward0, ToCopyBackward0, CloneBackward0, FillBackward2,
                               ZeroBackward0, UniformBackward0, NormalBackward0, BernoulliBackward0, BernoulliBackward2,
                               RandomBackward0, CopyBackwards, NotImplemented>;

}  // namespace ember::autograd
