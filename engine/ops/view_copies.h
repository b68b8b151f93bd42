// The *_copy ops, one template for all: `permute_copy(x, dims)` is permute's view, then a copy of
// it (aten::permute_copy > aten::permute, aten::clone in a profile). PyTorch generates them so that
// code without views (its functionalization, backends that cannot alias) has every view as an op
// of its own. The result owns its storage, as any clone, yet its gradient is the view's: its node
// is the view's node under the copy's name (autograd/view_copy_derivatives.h). A view file
// defines the copies of its views, so their structs stay private to it:
//   Tensor permute_copy(const Tensor& self, const Dims& dims) { return copy_of_view<Permute>(self, dims); }
#pragma once
#include <type_traits>
#include <vector>

#include "autograd/view_copy_derivatives.h"
#include "dispatch.h"

namespace ember {

template <typename View, typename... Args>
struct CopyOf : FunctionalOp {
  static constexpr const char* name = autograd::CopyName<View>::text.data();  // "aten::permute_copy"
  using Result = decltype(View::compute(std::declval<const Tensor&>(), std::declval<const Args&>()...));

  static Result compute(const Tensor& self, const Args&... args) {
    Result view = call<View>(self, args...);  // below autograd: its event, no node, no view record
    if constexpr (std::is_same_v<Result, Tensor>) {
      return view.clone();
    } else {
      std::vector<Tensor> copies;
      for (const Tensor& piece : view) copies.push_back(piece.clone());
      return copies;
    }
  }
  // The view's node, renamed; a view without one (detach) gives PyTorch's NotImplemented, and one
  // that only its copy differentiates (alias) names its copy's node.
  static auto save(const Result& result, const Tensor& self, const Args&... args) {
    if constexpr (requires { typename View::CopyNode; }) {
      return typename View::CopyNode{};
    } else if constexpr (Differentiable<View>) {
      using ViewNode = decltype(View::save(result, self, args...));
      return autograd::CopyBackward<ViewNode>{View::save(result, self, args...)};
    } else {
      return autograd::NotImplemented{name};
    }
  }
};

template <typename View, typename... Args>
auto copy_of_view(const Tensor& self, const Args&... args) {
  return call<CopyOf<View, Args...>>(self, args...);
}

}  // namespace ember
