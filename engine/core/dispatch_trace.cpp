// The dispatch trace's sink and its names for tensors (dispatch_trace.h).
#include "dispatch_trace.h"

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "tensor.h"

namespace ember {

struct DispatchTrace::Sink {
  std::string text;
  std::ostream* stream = nullptr;
};

namespace {

// The names handed out for one kind of object: by address, each valid while its object lives.
template <typename Object>
struct Names {
  struct Named {
    std::weak_ptr<Object> object;
    int64_t number;
  };
  std::unordered_map<const Object*, Named> by_address;
  int64_t handed_out = 0;
  // Each weak_ptr holds its dead object's small block, so the names of dead objects are dropped
  // when the map has grown to this: a long EMBER_TRACE=1 run keeps about twice the live ones.
  size_t drop_dead_at = 1024;

  int64_t number_of(const std::shared_ptr<Object>& object) {
    if (by_address.size() >= drop_dead_at) {
      std::erase_if(by_address, [](const auto& entry) { return entry.second.object.expired(); });
      drop_dead_at = std::max<size_t>(1024, 2 * by_address.size());
    }
    auto [entry, inserted] = by_address.try_emplace(object.get(), Named{object, 0});
    if (inserted || entry->second.object.lock() != object) entry->second = {object, handed_out++};
    return entry->second.number;
  }
  void clear() { *this = Names(); }
};

std::mutex trace_mutex;
std::vector<DispatchTrace::Sink*> sinks;
Names<TensorImpl> tensor_names;
Names<Storage> storage_names;
thread_local int depth = 0;
thread_local const char* enclosing_op = nullptr;
// The error the trace last wrote and the depth it was at: the same error leaving the calls around
// that one is not written again.
thread_local std::string last_error;
thread_local int last_error_depth = -1;

// EMBER_TRACE=1 traces the whole program to stderr, from before main to exit.
[[maybe_unused]] const bool traced_from_the_environment = [] {
  const char* setting = std::getenv("EMBER_TRACE");
  if (setting && std::string_view(setting) == "1") new DispatchTrace(std::cerr);  // lives until exit
  return true;
}();

}  // namespace

namespace trace {

void line(std::string_view text) {
  std::string indented(static_cast<size_t>(2 * depth), ' ');
  indented.append(text);
  indented.push_back('\n');
  std::lock_guard<std::mutex> lock(trace_mutex);
  for (DispatchTrace::Sink* sink : sinks) {
    sink->text += indented;
    if (sink->stream) *sink->stream << indented << std::flush;
  }
}

void enter() { ++depth; }
void leave() { --depth; }

EnclosingOp::EnclosingOp(const char* name) : outer(enclosing_op) { enclosing_op = name; }
EnclosingOp::~EnclosingOp() { enclosing_op = outer; }

void error(const std::exception& error) {
  const bool written_deeper = last_error_depth > depth && last_error == error.what();
  last_error_depth = depth;
  if (written_deeper) return;
  last_error = error.what();
  say("error: ", error.what());
}

std::string name_of(const Tensor& t) {
  if (!t.defined()) return "None";
  std::lock_guard<std::mutex> lock(trace_mutex);
  return str_cat("t", tensor_names.number_of(t.impl_ptr()));
}

std::string storage_name_of(const Tensor& t) {
  if (!t.defined()) return "None";
  std::lock_guard<std::mutex> lock(trace_mutex);
  return str_cat("s", storage_names.number_of(t.impl()->storage));
}

}  // namespace trace

DispatchTrace::DispatchTrace() : sink_(new Sink) {
  std::lock_guard<std::mutex> lock(trace_mutex);
  if (sinks.empty()) dispatch_observers.fetch_add(1, std::memory_order_relaxed);
  sinks.push_back(sink_);
  trace::on.store(true, std::memory_order_relaxed);
}

DispatchTrace::DispatchTrace(std::ostream& stream) : DispatchTrace() { sink_->stream = &stream; }

DispatchTrace::~DispatchTrace() {
  std::lock_guard<std::mutex> lock(trace_mutex);
  std::erase(sinks, sink_);
  delete sink_;
  if (sinks.empty()) {  // the next trace names from t0 and s0 again
    trace::on.store(false, std::memory_order_relaxed);
    dispatch_observers.fetch_sub(1, std::memory_order_relaxed);
    tensor_names.clear();
    storage_names.clear();
  }
}

std::string DispatchTrace::text() const {
  std::lock_guard<std::mutex> lock(trace_mutex);
  return sink_->text;
}

}  // namespace ember
