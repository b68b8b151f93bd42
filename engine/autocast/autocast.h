// Autocast: inside an AutocastGuard region, matmul-like ops run in a lower-precision dtype
// (bfloat16 by default on the CPU, float16 on CUDA) while numerically sensitive ops run in
// float32. It is one layer of the dispatcher (dispatch.h, step 2): each op struct names its
// CastPolicy, and this layer casts the op's floating-point tensor arguments before the op runs.
//
// The policy of every op, in one screen (the `cast_policy` of the op structs):
//   LowerPrecision  mm, addmm, bmm, matmul, linear
//   Fp32            softmax, log_softmax, layer_norm, mse_loss, nll_loss, cross_entropy, pow,
//                   sum, and the unary ops core/op_list.h marks Fp32 (exp, log, ...): PyTorch's
//                   CUDA list; its CPU list leaves them in the input dtype, and ember applies
//                   the chapter's CUDA policy on both devices
//   Promote         cat, stack  (to the widest floating dtype among the arguments)
//   None            everything else: normal type promotion (bf16 + fp32 -> fp32)
// Which tensors are cast: defined, floating point, on the region's device type, and not float64.
//
// Like PyTorch (aten/src/ATen/autocast_mode.cpp):
// - state is thread-local and per device type (the cast cache's switch is one for all devices);
//   guards nest, an inner enabled=false turns autocast
//   off for its block, and leaving a guard restores what was before;
// - the ops an autocast op calls inside see autocast off (PyTorch excludes its Autocast key), so
//   linear's casts are not repeated by the addmm inside it;
// - Note [Autocast cast cache]: a float32 leaf that requires grad (a weight) is cast to the lower
//   dtype once per outermost region and reused; activations are cast on every use. ember keys the
//   cache by the tensor *and its version*, so a weight changed in place inside the region is cast
//   again; PyTorch keys by the TensorImpl pointer only and would reuse the stale copy.
// - backward needs no autocast: each op's backward runs in its forward's dtypes, and the
//   gradient of a float32 weight comes back float32 through the cast's ToCopyBackward0.
#pragma once
#include <optional>
#include <tuple>
#include <type_traits>
#include <vector>

#include "core/tensor.h"

namespace ember {

// How autocast treats an op's floating-point tensor arguments (PyTorch's CastPolicy).
enum class CastPolicy {
  None,            // run in the arguments' own dtypes (normal type promotion)
  LowerPrecision,  // cast to the autocast dtype (bf16/fp16): matmul-like ops
  Fp32,            // cast to float32: numerically sensitive ops
  Promote,         // cast all to the widest floating dtype among them (cat, stack)
};

// RAII: torch.autocast(device_type, dtype, enabled, cache_enabled) as a `with` block, step for step
// as PyTorch 1.13's torch/amp/autocast_mode.py does it with the functions below. dtype defaults
// to the device's current autocast dtype (bfloat16 on the CPU, float16 on CUDA unless set), the
// cache flag to the current one. CUDA without a GPU, or a CPU dtype other than bfloat16, disables
// the region with PyTorch's warning; the latter then throws, as 1.13 does, from
// set_autocast_cpu_dtype. Ending restores enabled, dtype and the cache flag as they were.
class AutocastGuard {
 public:
  explicit AutocastGuard(DeviceType device_type, std::optional<DType> dtype = std::nullopt, bool enabled = true,
                         std::optional<bool> cache_enabled = std::nullopt);
  ~AutocastGuard();
  AutocastGuard(const AutocastGuard&) = delete;
  AutocastGuard& operator=(const AutocastGuard&) = delete;

 private:
  DeviceType device_type_;
  bool previous_enabled_;
  DType previous_dtype_;
  bool previous_cache_enabled_;
};

namespace autocast {

// PyTorch 1.13's own names (aten/src/ATen/autocast_mode.h, at::autocast): the thread-local state
// torch.autocast sets. "gpu" and is_enabled() are CUDA's; the checking device has its own state,
// reached by the DeviceType overloads below.
bool is_enabled();
void set_enabled(bool enabled);
bool is_cpu_enabled();
void set_cpu_enabled(bool enabled);
DType get_autocast_gpu_dtype();
DType get_autocast_cpu_dtype();
void set_autocast_gpu_dtype(DType dtype);
// Throws "Currently, AutocastCPU only support Bfloat16 as the autocast_cpu_dtype" for any other.
void set_autocast_cpu_dtype(DType dtype);
// The cast cache's switch: one per thread, for every device, as in PyTorch.
bool is_autocast_cache_enabled();
void set_autocast_cache_enabled(bool enabled);
void clear_cache();
// How many autocast regions are open; each returns the new count (it may go below 0, as torch's).
int increment_nesting();
int decrement_nesting();

// The same state by device type (CPU, CUDA, or the checking device).
bool is_enabled(DeviceType device_type);
void set_enabled(DeviceType device_type, bool enabled);
DType get_dtype(DeviceType device_type);
void set_dtype(DeviceType device_type, DType dtype);
// How many casts of weights the cast cache holds now (tests, and the curious).
size_t cache_size();

// ---- for the dispatcher ----
// True when autocast is on for some device and the call is not inside an autocast op.
inline thread_local bool active = false;

// While alive, the ops called see autocast off (PyTorch's ExcludeDispatchKeyGuard).
class Suspend {
 public:
  Suspend() : previous_(active) { active = false; }
  ~Suspend() { active = previous_; }
  Suspend(const Suspend&) = delete;
  Suspend& operator=(const Suspend&) = delete;

 private:
  bool previous_;
};

// PyTorch's name for a policy (at::autocast::CastPolicy): "lower_precision_fp", "fp32", "promote".
const char* policy_name(CastPolicy policy);

// Whether autocast would cast `t` in a region for `device_type`.
bool eligible(const Tensor& t, DeviceType device_type);
// `t` cast to `dtype` when eligible (through the cast cache when it is a weight), else t itself.
Tensor cast(const Tensor& t, DeviceType device_type, DType dtype);

// The dtype `policy` casts the arguments of an op to, or nullopt when autocast is not on for the
// device of its first tensor argument.
template <typename... Args>
std::optional<std::pair<DeviceType, DType>> target_of(CastPolicy policy, const Args&... args) {
  std::vector<const Tensor*> tensors;
  auto collect = [&](const auto& arg) {
    using T = std::decay_t<decltype(arg)>;
    if constexpr (std::is_same_v<T, Tensor>) {
      if (arg.defined()) tensors.push_back(&arg);
    } else if constexpr (std::is_same_v<T, std::vector<Tensor>>) {
      for (const Tensor& t : arg) tensors.push_back(&t);
    }
  };
  (collect(args), ...);
  if (tensors.empty() || !is_enabled(tensors[0]->device().type)) return std::nullopt;
  const DeviceType device_type = tensors[0]->device().type;
  if (policy == CastPolicy::Fp32) return std::pair{device_type, kFloat32};
  if (policy == CastPolicy::LowerPrecision) return std::pair{device_type, get_dtype(device_type)};
  bool any_float32 = false;  // Promote: float32 when any eligible argument is float32
  for (const Tensor* t : tensors) any_float32 = any_float32 || (eligible(*t, device_type) && t->dtype() == kFloat32);
  return std::pair{device_type, any_float32 ? kFloat32 : get_dtype(device_type)};
}

// One argument of an op after casting: tensors and tensor lists cast, anything else unchanged.
template <typename Arg>
Arg cast_argument(const Arg& arg, DeviceType device_type, DType dtype) {
  if constexpr (std::is_same_v<Arg, Tensor>) {
    return cast(arg, device_type, dtype);
  } else if constexpr (std::is_same_v<Arg, std::vector<Tensor>>) {
    std::vector<Tensor> result;
    for (const Tensor& t : arg) result.push_back(cast(t, device_type, dtype));
    return result;
  } else {
    return arg;
  }
}

}  // namespace autocast

}  // namespace ember
