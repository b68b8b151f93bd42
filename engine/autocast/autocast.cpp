// Autocast's state and its cast cache (autocast.h): thread-local, one entry per device type.
#include "autocast.h"

#include <array>
#include <unordered_map>

#include "core/cuda_backend.h"
#include "core/warning.h"

namespace ember {

namespace {

struct DeviceState {
  bool enabled = false;
  DType dtype;
  bool cache_enabled = true;
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
  int nesting = 0;  // guards alive on this thread; the cache empties when the outermost one ends
  std::unordered_map<const TensorImpl*, CachedCast> cache;
};
thread_local State state;

DeviceState& of(DeviceType device_type) { return state.devices[static_cast<size_t>(device_type)]; }

void update_active() {
  autocast::active = of(DeviceType::CPU).enabled || of(DeviceType::CUDA).enabled || of(DeviceType::Checked).enabled;
}

bool is_weight(const Tensor& t) { return t.dtype() == kFloat32 && t.requires_grad() && t.is_leaf() && !t._is_view(); }

}  // namespace

AutocastGuard::AutocastGuard(DeviceType device_type, std::optional<DType> dtype, bool enabled, bool cache_enabled)
    : device_type_(device_type),
      previous_enabled_(of(device_type).enabled),
      previous_dtype_(of(device_type).dtype),
      previous_cache_enabled_(of(device_type).cache_enabled) {
  const DType target = dtype.value_or(device_type == DeviceType::CPU ? kBFloat16 : kFloat16);
  if (enabled && device_type == DeviceType::CPU && target != kBFloat16 && target != kFloat16) {
    warn("In CPU autocast, but the target dtype is not supported. Disabling autocast.\n"
         "CPU Autocast only supports dtype of torch.bfloat16, torch.float16 currently.");
    enabled = false;
  }
  if (enabled && device_type == DeviceType::CUDA && !cuda::is_available()) {
    warn("User provided device_type of 'cuda', but CUDA is not available. Disabling");
    enabled = false;
  }
  if (enabled && device_type != DeviceType::CPU && target != kBFloat16 && target != kFloat16) {
    warn("In CUDA autocast, but the target dtype is not supported. Disabling autocast.\n"
         "CUDA Autocast only supports dtypes of torch.float16 and torch.bfloat16 currently.");
    enabled = false;
  }
  of(device_type) = {enabled, target, cache_enabled};
  ++state.nesting;
  update_active();
}

AutocastGuard::~AutocastGuard() {
  if (--state.nesting == 0) state.cache.clear();
  of(device_type_) = {previous_enabled_, previous_dtype_, previous_cache_enabled_};
  update_active();
}

namespace autocast {

bool is_enabled(DeviceType device_type) { return of(device_type).enabled; }
DType get_dtype(DeviceType device_type) { return of(device_type).dtype; }
size_t cache_size() { return state.cache.size(); }

bool eligible(const Tensor& t, DeviceType device_type) {
  return t.defined() && t.is_floating_point() && t.dtype() != kFloat64 && t.device().type == device_type;
}

Tensor cast(const Tensor& t, DeviceType device_type, DType dtype) {
  if (!eligible(t, device_type) || t.dtype() == dtype) return t;
  const DeviceState& device = of(device_type);
  if (!(device.cache_enabled && dtype == device.dtype && is_weight(t))) return t.to(dtype);
  CachedCast& entry = state.cache[t.impl()];
  if (entry.cast.defined() && entry.source.lock() == t.impl_ptr() && entry.version == t._version()) return entry.cast;
  entry = {t.impl_ptr(), t._version(), t.to(dtype)};
  return entry.cast;
}

}  // namespace autocast

}  // namespace ember
