// The steps an op records inside its own event, named as the ATen ops PyTorch's kernels call.
// Why: ATen builds many ops out of others (clone is empty_like + copy_, transpose is an
// as_strided view, relu is clamp_min), and PyTorch's profiler shows each inner call nested in the
// op, so the composite's self time holds only its own work and the copy shows as aten::copy_.
// ember's ops take the same steps, but through internal helpers that skip the dispatcher (an inner
// step records no autograd node and sees no autocast). Opening a step's event around such a helper
//
//   profiler::OpEvent<profiler::steps::Copy> step(out, self);   // "aten::copy_" around the copy
//   kernels::on(self.device()).copy(out, self);
//
// makes ember's profile read like PyTorch's and costs what the dispatcher's own event costs: one
// predictable branch while no profiler runs. A step is recorded only where ember really does that
// step; where ember's kernel fuses what ATen calls separately, PyTorch's inner call is missing from
// ember's profile, and the one table of such differences is documented_differences.h.
//
// Each step says how it moves memory as an op of its kind would (recording's Traffic): a view or
// an allocation moves no bytes, copy_ reads its source and overwrites its destination, clamp_min
// reads its input and writes what it allocates.
#pragma once
#include "profiler.h"

namespace ember::profiler::steps {

struct AsStrided {  // the view every ATen view op but view/_reshape_alias makes
  static constexpr const char* name = "aten::as_strided";
  static constexpr detail::Traffic kind = detail::Traffic::None;
};
struct Empty {
  static constexpr const char* name = "aten::empty";
  static constexpr detail::Traffic kind = detail::Traffic::None;
};
struct EmptyLike {
  static constexpr const char* name = "aten::empty_like";
  static constexpr detail::Traffic kind = detail::Traffic::None;
};
struct EmptyStrided {
  static constexpr const char* name = "aten::empty_strided";
  static constexpr detail::Traffic kind = detail::Traffic::None;
};
struct Copy {
  static constexpr const char* name = "aten::copy_";
  static constexpr detail::Traffic kind = detail::Traffic::InPlace;
};
struct ClampMin {  // PyTorch 1.13's CPU relu is clamp_min(self, 0)
  static constexpr const char* name = "aten::clamp_min";
  static constexpr detail::Traffic kind = detail::Traffic::Functional;
};
struct ClampMinInPlace {  // and its relu_ is clamp_min_(self, 0)
  static constexpr const char* name = "aten::clamp_min_";
  static constexpr detail::Traffic kind = detail::Traffic::InPlace;
};
struct Detach {  // the event PyTorch's autograd kernel of detach opens around the alias it makes
  static constexpr const char* name = "detach";
  static constexpr detail::Traffic kind = detail::Traffic::None;
};

// The factories' own events, around the steps they record inside as ATen's do: rand is
// empty + uniform_, zeros empty + zero_, ones and full empty + fill_, and the *_like ones the same
// with empty_like > empty_strided for empty. Their bytes are their steps'.
template <const char* Name>
struct Factory {
  static constexpr const char* name = Name;
  static constexpr detail::Traffic kind = detail::Traffic::None;
};
inline constexpr char kRand[] = "aten::rand", kRandn[] = "aten::randn", kZeros[] = "aten::zeros",
                      kOnes[] = "aten::ones", kFull[] = "aten::full", kRandLike[] = "aten::rand_like",
                      kRandnLike[] = "aten::randn_like", kZerosLike[] = "aten::zeros_like",
                      kFullLike[] = "aten::full_like";

// An argument that is not a tensor or a number (a size list, a dtype, None): PyTorch records it
// with shape [] and type "", as record_shapes shows the factory calls' six arguments. It also
// stands for the options an ember op takes no value for (ones_like's dtype, layout, ...), so that
// the op's event lists PyTorch's arguments.
struct Unrecorded {};
inline constexpr Unrecorded unset;  // one such argument

}  // namespace ember::profiler::steps
