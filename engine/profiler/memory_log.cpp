// Keeping the memory log (memory_log.h): the blocks alive now, by device and address, each with
// its place in the log; what tag_memory says about them (the stronger category wins, see
// memory_category.h); and blocks the profile meets that were allocated before it started.
#include "memory_log.h"

#include <chrono>
#include <map>
#include <mutex>
#include <utility>

#include "autograd/autograd_meta.h"
#include "profiler.h"

namespace ember::profiler {

namespace {

// Which of two tags wins: parameter > optimizer state > gradient > input > activation > autograd
// detail > temporary > unknown.
int strength(MemoryCategory category) {
  switch (category) {
    case MemoryCategory::Unknown: return 0;
    case MemoryCategory::Temporary: return 1;
    case MemoryCategory::AutogradDetail: return 2;
    case MemoryCategory::Activation: return 3;
    case MemoryCategory::Input: return 4;
    case MemoryCategory::Gradient: return 5;
    case MemoryCategory::OptimizerState: return 6;
    case MemoryCategory::Parameter: return 7;
  }
  return 0;
}

using BlockKey = std::pair<int, const void*>;  // the device, the block's address
BlockKey key_of(Device device, const void* data) { return {static_cast<int>(device.type) * 64 + device.index, data}; }

// The log being kept, under `log_mutex`; `keeping` says whether one is.
std::mutex log_mutex;
bool keeping = false;
int64_t start_ns = 0;
std::shared_ptr<detail::MemoryLog> log;
std::map<BlockKey, int64_t> alive;  // a block's allocation in `log`
std::shared_ptr<const detail::MemoryLog> finished;

int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// The allocation holding `t`'s bytes (under `log_mutex`), or -1 when they are not the allocator's (a
// NumPy array's); one allocated before the profile is entered now, as an input.
int64_t allocation_of(const Tensor& t) {
  if (!t.defined() || !t.impl()->storage) return -1;
  const Storage& storage = *t.impl()->storage;
  if (storage.release || storage.data == nullptr || storage.nbytes == 0) return -1;
  auto [it, is_new] =
      alive.emplace(key_of(storage.device, storage.data), static_cast<int64_t>(log->allocations.size()));
  if (is_new) {
    // A GPU's caching allocator hands out blocks of 512-byte multiples (cuda/caching_allocator.h).
    const int64_t bytes = storage.device.is_cpu() ? storage.nbytes : (storage.nbytes + 511) / 512 * 512;
    log->allocations.push_back({storage.device, bytes, MemoryCategory::Input, /*preexisting=*/true});
  }
  return it->second;
}

}  // namespace

const char* category_name(MemoryCategory category) {
  switch (category) {
    case MemoryCategory::Input: return "INPUT";
    case MemoryCategory::Temporary: return "TEMPORARY";
    case MemoryCategory::Activation: return "ACTIVATION";
    case MemoryCategory::Gradient: return "GRADIENT";
    case MemoryCategory::AutogradDetail: return "AUTOGRAD_DETAIL";
    case MemoryCategory::Parameter: return "PARAMETER";
    case MemoryCategory::OptimizerState: return "OPTIMIZER_STATE";
    case MemoryCategory::Unknown: return "UNKNOWN";
  }
  return "UNKNOWN";
}

namespace detail {

void begin_memory_log(int64_t session_start_ns) {
  std::lock_guard<std::mutex> lock(log_mutex);
  keeping = true;
  start_ns = session_start_ns;
  log = std::make_shared<MemoryLog>();
  alive.clear();
  finished.reset();
  tagging_memory.store(true, std::memory_order_relaxed);
}

void end_memory_log(int64_t stop_ns) {
  tagging_memory.store(false, std::memory_order_relaxed);
  std::lock_guard<std::mutex> lock(log_mutex);
  if (!keeping) {  // a profile without profile_memory: nothing for take_memory_log
    finished.reset();
    return;
  }
  keeping = false;
  log->stop_ns = stop_ns - start_ns;
  finished = std::move(log);
  log.reset();
  alive.clear();
}

std::shared_ptr<const MemoryLog> take_memory_log() {
  std::lock_guard<std::mutex> lock(log_mutex);
  return std::exchange(finished, nullptr);
}

void note_memory(Device device, const void* data, int64_t delta) {
  if (delta == 0) return;
  std::lock_guard<std::mutex> lock(log_mutex);
  if (!keeping) return;
  const int64_t time = now_ns() - start_ns;  // under log_mutex: the changes stay in time order
  const BlockKey key = key_of(device, data);
  if (delta > 0) {
    const int64_t index = static_cast<int64_t>(log->allocations.size());
    log->allocations.push_back({device, delta, MemoryCategory::Temporary, false});
    alive[key] = index;
    log->changes.push_back({time, index, false});
    return;
  }
  auto found = alive.find(key);
  int64_t index = 0;
  if (found != alive.end()) {
    index = found->second;
    alive.erase(found);
  } else {  // allocated before the profile and never seen since: PyTorch's PREEXISTING, category None
    index = static_cast<int64_t>(log->allocations.size());
    log->allocations.push_back({device, -delta, MemoryCategory::Unknown, true});
  }
  log->changes.push_back({time, index, true});
}

void note_op_arguments(const Argument* arguments, size_t count) {
  std::lock_guard<std::mutex> lock(log_mutex);
  if (!keeping) return;
  for (size_t i = 0; i < count; ++i) {
    const Tensor* t = arguments[i].tensor;
    if (t == nullptr) continue;
    const int64_t index = allocation_of(*t);
    // A leaf that requires grad (read from its autograd data: is_leaf() may rebuild a view's grad_fn,
    // which must not happen under this mutex) is a parameter.
    const autograd::AutogradMeta* meta = t->defined() ? t->impl()->autograd_meta.get() : nullptr;
    if (index >= 0 && meta != nullptr && meta->requires_grad && !meta->grad_fn)
      log->allocations[index].category = MemoryCategory::Parameter;
  }
}

void tag_memory_slow(const Tensor& t, MemoryCategory category) {
  std::lock_guard<std::mutex> lock(log_mutex);
  if (!keeping) return;
  const int64_t index = allocation_of(t);
  if (index < 0) return;
  MemoryCategory& kept = log->allocations[index].category;
  if (strength(category) > strength(kept)) kept = category;
}

}  // namespace detail
}  // namespace ember::profiler
