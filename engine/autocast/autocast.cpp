// Autocast's state and its cast cache (autocast.h): thread-local, one entry per device type.
#include "autocast.h"

#include <array>
#include <unordered_map>

#include "core/cuda_backend.h"
#include "core/dispatch_trace.h"
#include "core/error.h"
#include "core/warning.h"

namespace ember {

namespace {

struct DeviceState {
  bool enabled = false;
  DType dtype;
};

// Note [Autocast cast cache]: what a weight was cast to, valid while the weight lives and keeps
// the version it had when cast.
struct CachedCast {
  std::weak_ptr<TensorImpl> source;
  uint32_t version = 0;
  Tensor cast;
};

struct State {
  // CPU, CUDA, and the checking device, which autocasts as CUDA does.
  std::array<DeviceState, 3> devices{DeviceState{false, kBFloat16}, DeviceState{false, kFloat16},
                                     DeviceState{false, kFloat16}};
  bool cache_enabled = true;
  int nesting = 0;  // regions open on this thread; the cache empties when the outermost one ends
  std::unordered_map<const TensorImpl*, CachedCast> cache;
};
thread_local State state;

DeviceState& of(DeviceType device_type) { return state.devices[static_cast<size_t>(device_type)]; }

void update_active() {
  autocast::active = of(DeviceType::CPU).enabled || of(DeviceType::CUDA).enabled || of(DeviceType::Checked).enabled;
}

bool is_weight(const Tensor& t) { return t.dtype() == kFloat32 && t.requires_grad() && t.is_leaf() && !t._is_view(); }

}  // namespace

// torch.autocast's __init__ and __enter__ (torch/amp/autocast_mode.py, 1.13), in their order.
AutocastGuard::AutocastGuard(DeviceType device_type, std::optional<DType> dtype, bool enabled,
                             std::optional<bool> cache_enabled)
    : device_type_(device_type) {
  const DType target = dtype.value_or(autocast::get_dtype(device_type));
  if (enabled && device_type == DeviceType::CUDA && !cuda::is_available()) {
    warn("User provided device_type of 'cuda', but CUDA is not available. Disabling");
    enabled = false;
  }
  if (device_type == DeviceType::CPU && target != kBFloat16) {
    warn("In CPU autocast, but the target dtype is not supported. Disabling autocast.\n"
         "CPU Autocast only supports dtype of torch.bfloat16 currently.");
    enabled = false;
  }
  previous_cache_enabled_ = autocast::is_autocast_cache_enabled();
  previous_enabled_ = autocast::is_enabled(device_type);
  previous_dtype_ = autocast::get_dtype(device_type);
  autocast::set_enabled(device_type, enabled);
  autocast::set_dtype(device_type, target);  // a CPU dtype other than bfloat16 throws here, as in 1.13
  autocast::increment_nesting();
  autocast::set_autocast_cache_enabled(cache_enabled.value_or(previous_cache_enabled_));
}

AutocastGuard::~AutocastGuard() {
  if (autocast::decrement_nesting() == 0) autocast::clear_cache();
  autocast::set_enabled(device_type_, previous_enabled_);
  autocast::set_dtype(device_type_, previous_dtype_);
  autocast::set_autocast_cache_enabled(previous_cache_enabled_);
}

namespace autocast {

bool is_enabled(DeviceType device_type) { return of(device_type).enabled; }
void set_enabled(DeviceType device_type, bool enabled) {
  of(device_type).enabled = enabled;
  update_active();
}
DType get_dtype(DeviceType device_type) { return of(device_type).dtype; }
void set_dtype(DeviceType device_type, DType dtype) {
  EMBER_CHECK(device_type != DeviceType::CPU || dtype == kBFloat16,
              "Currently, AutocastCPU only support Bfloat16 as the autocast_cpu_dtype");
  of(device_type).dtype = dtype;
}

bool is_enabled() { return is_enabled(DeviceType::CUDA); }
void set_enabled(bool enabled) { set_enabled(DeviceType::CUDA, enabled); }
bool is_cpu_enabled() { return is_enabled(DeviceType::CPU); }
void set_cpu_enabled(bool enabled) { set_enabled(DeviceType::CPU, enabled); }
DType get_autocast_gpu_dtype() { return get_dtype(DeviceType::CUDA); }
DType get_autocast_cpu_dtype() { return get_dtype(DeviceType::CPU); }
void set_autocast_gpu_dtype(DType dtype) { set_dtype(DeviceType::CUDA, dtype); }
void set_autocast_cpu_dtype(DType dtype) { set_dtype(DeviceType::CPU, dtype); }
bool is_autocast_cache_enabled() { return state.cache_enabled; }
void set_autocast_cache_enabled(bool enabled) { state.cache_enabled = enabled; }
void clear_cache() { state.cache.clear(); }
int increment_nesting() { return ++state.nesting; }
int decrement_nesting() { return --state.nesting; }
size_t cache_size() { return state.cache.size(); }

bool eligible(const Tensor& t, DeviceType device_type) {
  return t.defined() && t.is_floating_point() && t.dtype() != kFloat64 && t.device().type == device_type;
}

const char* policy_name(CastPolicy policy) {
  switch (policy) {
    case CastPolicy::LowerPrecision: return "lower_precision_fp";
    case CastPolicy::Fp32: return "fp32";
    case CastPolicy::Promote: return "promote";
    case CastPolicy::None: break;
  }
  return "none";
}

namespace {
// The dispatch trace's line for one argument: what autocast did with it, and why.
void trace_cast(const Tensor& t, const char* what, const Tensor& cast = {}) {
  if (!trace::enabled() || !t.defined()) return;
  if (cast.defined()) trace::say("autocast: ", trace::name_of(t), " ", what, ": ", trace::name_of(cast));
  else trace::say("autocast: ", trace::name_of(t), " ", what);
}
}  // namespace

Tensor cast(const Tensor& t, DeviceType device_type, DType dtype) {
  if (!eligible(t, device_type)) {
    trace_cast(t, "is left as it is (not eligible: float64, integer or another device)");
    return t;
  }
  if (t.dtype() == dtype) {
    trace_cast(t, "already has the target dtype");
    return t;
  }
  if (!(state.cache_enabled && dtype == of(device_type).dtype && is_weight(t))) {
    Tensor cast = t.to(dtype);
    trace_cast(t, "cast (not a weight, so not cached)", cast);
    return cast;
  }
  CachedCast& entry = state.cache[t.impl()];
  if (entry.cast.defined() && entry.source.lock() == t.impl_ptr() && entry.version == t._version()) {
    trace_cast(t, "taken from the cast cache", entry.cast);
    return entry.cast;
  }
  entry = {t.impl_ptr(), t._version(), t.to(dtype)};
  trace_cast(t, "cast (a weight: kept in the cast cache)", entry.cast);
  return entry.cast;
}

}  // namespace autocast

}  // namespace ember
