// The warning channel (warning.h).
#include "warning.h"

#include <cstdio>
#include <mutex>

namespace ember {

namespace {
std::mutex mutex;
WarningHandler current;
}  // namespace

void warn(const std::string& message) {
  WarningHandler handler;
  {
    std::lock_guard<std::mutex> lock(mutex);
    handler = current;
  }
  if (handler) handler(message);
  else std::fprintf(stderr, "UserWarning: %s\n", message.c_str());
}

WarningHandler set_warning_handler(WarningHandler handler) {
  std::lock_guard<std::mutex> lock(mutex);
  WarningHandler previous = std::move(current);
  current = std::move(handler);
  return previous;
}

}  // namespace ember
