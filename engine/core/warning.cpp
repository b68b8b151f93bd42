// The warning channel (warning.h).
#include "warning.h"

#include <atomic>
#include <cstdio>
#include <mutex>
#include <set>

#include "dispatch_trace.h"

namespace ember {

namespace {
std::mutex mutex;
WarningHandler current;
std::set<std::string> warned_once;  // the texts warn_once has reported
std::atomic<bool> warn_always{false};
}  // namespace

void warn(const std::string& message) {
  if (trace::enabled()) [[unlikely]]
    trace::say("warning: ", message);
  WarningHandler handler;
  {
    std::lock_guard<std::mutex> lock(mutex);
    handler = current;
  }
  if (handler) handler(message);
  else std::fprintf(stderr, "UserWarning: %s\n", message.c_str());
}

void warn_once(const std::string& message) {
  if (!warn_always.load()) {
    std::lock_guard<std::mutex> lock(mutex);
    if (!warned_once.insert(message).second) return;
  }
  warn(message);
}

void set_warn_always(bool always) { warn_always.store(always); }
bool is_warn_always_enabled() { return warn_always.load(); }

WarningHandler set_warning_handler(WarningHandler handler) {
  std::lock_guard<std::mutex> lock(mutex);
  WarningHandler previous = std::move(current);
  current = std::move(handler);
  return previous;
}

}  // namespace ember
