// The dispatcher: the one path every op call takes, PyTorch's dispatch order in miniature.
//
//   Tensor addmm(...) { return call<Addmm>(self, mat1, mat2, beta, alpha); }
//
// runs, in this order:
//   1. profiler  - record an event named Op::name ("aten::addmm") while a profiler runs (profiler.h)
//   2. autocast  - inside an AutocastGuard, cast the tensor arguments per Op::cast_policy
//                  (autocast.h); the calls made inside the op see autocast off, as PyTorch
//                  excludes its Autocast key
//   3. compute   - Op::compute: argument checks with PyTorch's texts, the output, the kernel
//                  chosen per device (kernels/backend.h); see Note [Compute under no_grad]
//   4. autograd  - when grad mode is on and a tensor argument requires grad, record the node
//                  Op::save returns (derivatives.h), with one edge per tensor argument.
// While a graph capture runs on the thread (capture/capture.h, ember::compile's first half), call
// also writes each top-level call into the graph (captured_call); with neither a capture nor the
// dispatch trace on, watching costs one load (dispatch_observers).
// In-place and view ops take their own branch of step 4 (PyTorch's ADInplaceOrView, inplace.h):
// an in-place op is checked before it writes, saves what it needs before it writes (mul_ keeps
// self's old value), then bumps the version counter and rewrites the history; a view records its
// base. Ops without a derivative (comparisons, argmax) have no `save`.
//
// An op is a small struct:
//   struct Addmm : FunctionalOp {            // kind: FunctionalOp, ViewOp or InPlaceOp
//     static constexpr const char* name = "aten::addmm";
//     static constexpr CastPolicy cast_policy = CastPolicy::LowerPrecision;
//     static Tensor compute(const Tensor& self, const Tensor& mat1, ...);
//     static AddmmBackward0 save(const Tensor& result, const Tensor& self, const Tensor& mat1, ...);
//   };
// (An in-place op's save takes no result: it runs before the op writes.)
// Composite ops (linear, matmul, cross_entropy, dropout) are CompositeOps: their compute calls
// public ops, which record their own nodes, as PyTorch's CompositeImplicitAutograd ops do; the
// dispatcher runs only the profiler and autocast layers for them.
//
// Note [Compute under no_grad]
// Op::compute runs below autograd (autograd::BelowAutograd: grad mode off, views not recorded), so
// whatever it calls records nothing: one op records exactly one node, its own, and a result it
// reshapes from a temporary is not a view. Primitives that build on each other call each other's
// compute.
//
// Note [Inference tensors skip autograd]
// Inside InferenceMode, an op whose tensor arguments are all inference tensors runs its compute and
// nothing else: no grad check, no BelowAutograd guard, no version bump, no view record. PyTorch's
// dispatcher does the same, since inference tensors lack the Autograd and ADInplaceOrView keys;
// it is the per-op work InferenceMode saves over no_grad (with the version counter an inference
// tensor does not allocate, version_counter.h).
//
// Note [Integers never require grad]
// Only floating-point tensors take part in autograd. An op whose result is an integer or bool
// tensor records no node even when an input requires grad (`(x * 2).to(kInt64)`, `x.argmax()`),
// and an in-place op writing an integer tensor (`int_tensor.copy_(x)`) gives it no history.
#pragma once
#include <algorithm>
#include <type_traits>
#include <utility>

#include "api/ops.h"
#include "autocast/autocast.h"
#include "autograd/inplace.h"
#include "autograd/record.h"
#include "autograd/trace_lines.h"
#include "capture/capture.h"
#include "core/dispatch_trace.h"
#include "core/grad_mode.h"
#include "profiler/profiler.h"

namespace ember {

enum class OpKind { Functional, View, InPlace, Composite };

// What an op struct inherits to say which kind it is; cast_policy defaults to None.
struct FunctionalOp {
  static constexpr OpKind kind = OpKind::Functional;
  static constexpr CastPolicy cast_policy = CastPolicy::None;
};
struct ViewOp : FunctionalOp {
  static constexpr OpKind kind = OpKind::View;
};
struct InPlaceOp : FunctionalOp {
  static constexpr OpKind kind = OpKind::InPlace;
  // copy_ applies autograd's in-place rules only when self's dtype can have a gradient (PyTorch's
  // copy_ in VariableTypeManual): an integer no_grad view may copy a tensor that requires grad.
  static constexpr bool rules_need_floating_self = false;
};
struct CompositeOp : FunctionalOp {
  static constexpr OpKind kind = OpKind::Composite;
};

// The tensor an op's node is attached to: the result itself, max(dim)'s values, or the `output`
// of an op whose compute also returns what its backward reuses (layer_norm's mean and rstd).
template <typename Result>
const Tensor& differentiable_output(const Result& result) {
  if constexpr (std::is_same_v<Result, Tensor>) return result;
  else if constexpr (std::is_same_v<Result, ValuesIndices>) return result.values;
  else return result.output;
}

template <typename Op>
concept Differentiable = requires {
  &Op::save;
};

// A node for Op: make_node's edge per tensor argument, and an empty one for a number that PyTorch's
// Python binding passes as a tensor (`x * 2`: MulBackward0 has two next functions, the second None).
template <typename Op, typename Backward, typename... Args>
std::shared_ptr<autograd::Node> node_for(Backward backward, const Args&... args) {
  auto node = autograd::make_node(std::move(backward), args...);
  if constexpr (requires { Op::number_is_an_input; })
    if constexpr (Op::number_is_an_input) autograd::add_input(*node, Tensor());
  if (autograd::is_anomaly_enabled()) [[unlikely]]
    autograd::record_forward_trace(*node, Op::name);
  return node;
}

// An op with several outputs (unbind, split, var_mean) returns them as a vector.
template <typename Result>
constexpr bool multiple_outputs = std::is_same_v<Result, std::vector<Tensor>>;

// Step 4's node: one per op call, whatever the number of outputs (output i of the node is result i).
template <typename Op, typename Result, typename... Args>
void record_node(const Result& result, const Args&... args) {
  if constexpr (multiple_outputs<Result>) {
    if (std::none_of(result.begin(), result.end(), [](const Tensor& t) { return t.is_floating_point(); })) return;
    auto node = node_for<Op>(Op::save(result, args...), args...);
    node->num_outputs = static_cast<uint32_t>(result.size());
    for (uint32_t i = 0; i < result.size(); ++i)
      if (result[i].is_floating_point()) autograd::set_history(result[i], node, i);
  } else {
    const Tensor& output = differentiable_output(result);
    if (!output.is_floating_point()) return;  // see Note [Integers never require grad]
    autograd::set_history(output, node_for<Op>(Op::save(result, args...), args...), 0);
  }
}

// Steps 3 and 4 with autograd: compute below autograd, then record the node (an in-place op is
// checked and saves before it writes, then bumps the version; a view records its base). Always
// inlined, as run and cast_and_run are: see the note at run.
template <typename Op, typename... Args>
[[gnu::always_inline]] inline auto compute_and_record(const Args&... args) {
  if constexpr (Op::kind == OpKind::InPlace) {
    const Tensor& self = std::get<0>(std::tie(args...));
    const bool any_requires_grad =
        autograd::any_requires_grad(args...) && (!Op::rules_need_floating_self || self.is_floating_point());
    autograd::check_inplace(self, any_requires_grad);
    std::shared_ptr<autograd::Node> node;
    if (any_requires_grad && self.is_floating_point()) {  // see Note [Integers never require grad]
      node = node_for<Op>(Op::save(args...), args...);
    }
    {
      autograd::BelowAutograd below;
      Op::compute(args...);
    }
    autograd::finish_inplace(self, node);
    // An in-place op whose formula reads its own result (exp_, relu_) saves it once written.
    if constexpr (requires { Op::saves_result; })
      if (node) autograd::save_result(*node, self);
  } else {
    // Outside InferenceMode, an op on inference tensors alone records nothing either (they have no
    // autograd key), even one that requires grad: see Note [Kernel writes outside InferenceMode].
    const bool recording = autograd::any_requires_grad(args...) && !autograd::all_inference(args...);
    auto result = [&] {
      autograd::BelowAutograd below;
      return Op::compute(args...);
    }();
    if constexpr (Differentiable<Op>)
      if (recording) record_node<Op>(result, args...);
    if constexpr (Op::kind == OpKind::View) {
      const Tensor& base = std::get<0>(std::tie(args...));
      if constexpr (multiple_outputs<decltype(result)>)
        for (const Tensor& view : result) autograd::record_view(view, base, /*multiple_outputs=*/true);
      else autograd::record_view(differentiable_output(result), base);
    }
    if constexpr (requires { Op::kernel_writes(args...); })  // Note [Kernel writes outside InferenceMode]
      autograd::count_kernel_writes(result, Op::kernel_writes(args...), args...);
    return result;
  }
}

// Steps 3 and 4: the compute alone where autograd has nothing to do, else compute_and_record.
// Always inlined, as are compute_and_record and cast_and_run: traced_call calls them too, and
// GCC, given a second caller, kept them out of line, which cost every untraced in-place call a
// function call (a += b took 9-12% longer).
template <typename Op, typename... Args>
[[gnu::always_inline]] inline auto run(const Args&... args) {
  if constexpr (Op::kind == OpKind::Composite) return Op::compute(args...);  // its public ops record their nodes
  else if (autograd::skips_autograd(args...)) return Op::compute(args...);   // Note [Inference tensors skip autograd]
  else return compute_and_record<Op>(args...);
}

// Steps 2 to 4: autocast casts the tensor arguments per the op's policy (the ops it calls, the
// casts included, see autocast off), then run.
template <typename Op, typename... Args>
[[gnu::always_inline]] inline auto cast_and_run(const Args&... args) {
  if constexpr (Op::cast_policy != CastPolicy::None) {
    if (autocast::active) [[unlikely]] {
      if (const auto target = autocast::target_of(Op::cast_policy, args...)) {
        autocast::Suspend inner_calls_see_autocast_off;
        const auto [device_type, dtype] = *target;
        return std::apply([](const auto&... cast) { return run<Op>(cast...); },
                          std::tuple{autocast::cast_argument(args, device_type, dtype)...});
      }
    }
  }
  return run<Op>(args...);
}

// The dispatch trace's autograd line for a call that returned `output` (or wrote it in place).
template <typename Op, typename... Args>
void trace_autograd(const Tensor& output, const std::vector<Tensor>& tensors, const Args&... args) {
  if constexpr (Op::kind == OpKind::Composite) return;  // the ops it calls say theirs
  if (autograd::skips_autograd(args...))
    return trace::say("autograd: skipped: InferenceMode, inference tensors only (no node, no version bump)");
  if (autograd::BelowAutograd::active()) return trace::say("autograd: called inside another op's compute: no node");
  if (InferenceMode::is_enabled()) return trace::say("autograd: InferenceMode is on: no node");
  if (!GradMode::is_enabled()) return trace::say("autograd: grad mode is off: no node");
  if (!autograd::any_requires_grad(args...)) return trace::say("autograd: no input requires grad: no node");
  if (autograd::all_inference(args...)) return trace::say("autograd: inference tensors only: no node");
  if (!Differentiable<Op>) return trace::say("autograd: not differentiable: no node");
  const auto node = output.defined() ? output.grad_fn() : nullptr;
  const bool is_an_input = Op::kind != OpKind::InPlace &&
                           std::any_of(tensors.begin(), tensors.end(),
                                       [&](const Tensor& t) { return t.defined() && t.impl() == output.impl(); });
  if (!node || is_an_input || !output.is_floating_point()) return trace::say("autograd: no node for this output");
  if (Op::kind == OpKind::InPlace && output._is_view()) autograd::trace_lines::recorded_on_a_view(output);
  else autograd::trace_lines::recorded(*node);
}

// The dispatch trace's view of one call (core/dispatch_trace.h): the op and its arguments, each
// layer's decision, the output and the node, indented under the op (the ops it calls nest inside).
template <typename Op, typename... Args>
[[gnu::noinline]] auto traced_call(const Args&... args) {
  namespace lines = autograd::trace_lines;
  std::vector<Tensor> tensors;
  autograd::for_each_tensor([&](const Tensor& t) { tensors.push_back(t); }, args...);
  lines::op_called(Op::name, {lines::argument(args)...}, tensors);
  trace::Indent inside;
  trace::EnclosingOp enclosing(Op::name);
  if (profiler::detail::recording.load(std::memory_order_relaxed))
    trace::say("profiler: event ", Op::name, enclosing.outer ? str_cat(" inside ", enclosing.outer) : " at top level");
  if constexpr (Op::cast_policy != CastPolicy::None) {
    if (autocast::active) {
      const auto target = autocast::target_of(Op::cast_policy, args...);
      if (target)
        trace::say("autocast: ", autocast::policy_name(Op::cast_policy), ": to ", lines::dtype_name(target->second));
      else trace::say("autocast: not on for this op's device");
    }
  } else if (autocast::active) {
    trace::say("autocast: no cast policy, runs in its inputs' dtypes");
  }
  try {
    if constexpr (Op::kind == OpKind::InPlace) {
      const Tensor& self = std::get<0>(std::tie(args...));
      const uint32_t version_before = self._version();
      cast_and_run<Op>(args...);
      if (self.is_inference()) trace::say("in place: writes ", trace::name_of(self), " (no version counter)");
      else trace::say("in place: writes ", trace::name_of(self), ", version ", version_before, " -> ", self._version());
      trace_autograd<Op>(self, tensors, args...);
    } else if constexpr (std::is_void_v<decltype(cast_and_run<Op>(args...))>) {
      cast_and_run<Op>(args...);  // a composite in-place op (swapdims_): the ops it calls said it all
    } else {
      auto result = cast_and_run<Op>(args...);
      if constexpr (Op::kind == OpKind::Composite) {  // the ops it called described what they made
        if constexpr (std::is_same_v<decltype(result), Tensor>) trace::say("output: ", trace::name_of(result));
      } else if constexpr (multiple_outputs<decltype(result)>) {
        for (const Tensor& output : result) lines::output(output, tensors);
      } else if constexpr (std::is_same_v<decltype(result), ValuesIndices>) {
        lines::output(result.values, tensors);
        lines::output(result.indices, tensors);
      } else {
        lines::output(differentiable_output(result), tensors);
      }
      if constexpr (multiple_outputs<decltype(result)>)
        trace_autograd<Op>(result.empty() ? Tensor() : result[0], tensors, args...);
      else trace_autograd<Op>(differentiable_output(result), tensors, args...);
      return result;
    }
  } catch (const std::exception& error) {
    trace::error(error);
    throw;
  }
}

template <typename Op, typename... Args>
auto call(const Args&... args) -> decltype(cast_and_run<Op>(args...));

// Steps 2 to 4, watched by the dispatch trace when one runs.
template <typename Op, typename... Args>
auto traced_or_not(const Args&... args) {
  if (trace::enabled()) [[unlikely]]
    return traced_call<Op>(args...);
  return cast_and_run<Op>(args...);
}

// A call while a graph capture runs on this thread (capture/capture.h): an op called at the top
// level runs as always and is written into the graph with a replay that calls it again; an op with
// a decomposition (layer_norm) runs as the primitive ops it is made of, so that they are recorded
// instead, as Inductor's decompositions do.
template <typename Op, typename... Args>
[[gnu::noinline]] auto captured_call(const Args&... args) {
  capture::Session* session = capture::current();
  if (!session || !session->at_top_level()) return traced_or_not<Op>(args...);
  if constexpr (requires { Op::decomposition(args...); })
    if (auto decomposed = Op::decomposition(args...)) return *decomposed;
  std::vector<capture::Argument> arguments{capture::argument(*session, args)...};
  std::vector<int> tensor_inputs;
  autograd::for_each_tensor([&](const Tensor& t) { tensor_inputs.push_back(t.defined() ? session->value_of(t) : -1); },
                            args...);
  capture::Replay replay = [stored = std::tuple<Args...>(args...)](const std::vector<Tensor>& tensors) {
    size_t next = 0;
    auto rebound = std::apply(
        [&](const auto&... recorded) { return std::tuple<Args...>{capture::rebind(recorded, tensors, next)...}; },
        stored);
    if constexpr (std::is_void_v<decltype(cast_and_run<Op>(args...))>) {
      std::apply([](const auto&... a) { call<Op>(a...); }, rebound);
      return std::apply([](const auto&... a) { return capture::first_tensor(a...); }, rebound);
    } else {
      return *capture::outputs_of(std::apply([](const auto&... a) { return call<Op>(a...); }, rebound));
    }
  };
  capture::Session::Nested inside(*session);
  if constexpr (std::is_void_v<decltype(cast_and_run<Op>(args...))>) {
    traced_or_not<Op>(args...);
    session->record(Op::name, true, std::move(arguments), std::move(tensor_inputs), capture::first_tensor(args...),
                    std::move(replay));
  } else {
    auto result = traced_or_not<Op>(args...);
    if (const auto outputs = capture::outputs_of(result))
      session->record(Op::name, Op::kind == OpKind::InPlace, std::move(arguments), std::move(tensor_inputs), *outputs,
                      std::move(replay));
    else session->cannot_replay(Op::name);
    return result;
  }
}

// A call while the dispatch trace or a graph capture observes (core/dispatch_trace.h's count).
template <typename Op, typename... Args>
[[gnu::noinline]] auto observed_call(const Args&... args) {
  if (capture::current()) return captured_call<Op>(args...);
  return traced_or_not<Op>(args...);
}

template <typename Op, typename... Args>
auto call(const Args&... args) -> decltype(cast_and_run<Op>(args...)) {  // declared: a replay calls it
  profiler::OpEvent<Op> profiled(args...);  // 1. profiler: an event named Op::name around the whole call
  if (dispatch_observers.load(std::memory_order_relaxed)) [[unlikely]]  // a trace or a capture watches
    return observed_call<Op>(args...);
  return cast_and_run<Op>(args...);
}

// An in-place op called by a factory on the tensor it has just made (randn's normal_, ones_like's
// fill_). PyTorch runs such a call below its autograd and ADInplaceOrView layers: a profile shows
// it, but nothing is recorded and the version counter is not bumped, so a new tensor starts at
// version 0 (only a user's in-place op counts).
template <typename Op, typename... Args>
void call_on_new_tensor(const Args&... args) {
  static_assert(Op::kind == OpKind::InPlace);
  profiler::OpEvent<Op> profiled(args...);
  autograd::BelowAutograd below;
  Op::compute(args...);
}

}  // namespace ember
