// The dispatch trace's sink and its names for tensors (dispatch_trace.h).
#include "dispatch_trace.h"

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

// A name handed out for an object the trace saw, valid while that object lives.
template <typename Object>
struct Named {
  std::weak_ptr<Object> object;
  int64_t number;
};

std::mutex mutex;
std::vector<DispatchTrace::Sink*> sinks;
std::unordered_map<const TensorImpl*, Named<TensorImpl>> tensor_names;
std::unordered_map<const Storage*, Named<Storage>> storage_names;
int64_t tensors_named = 0, storages_named = 0;
thread_local int depth = 0;
thread_local const char* enclosing_op = nullptr;
// The error the trace last wrote and the depth it was at: the same error leaving the calls around
// that one is not written again.
thread_local std::string last_error;
thread_local int last_error_depth = -1;

template <typename Object>
int64_t number_of(const std::shared_ptr<Object>& object, std::unordered_map<const Object*, Named<Object>>& names,
                  int64_t& count) {
  auto [entry, inserted] = names.try_emplace(object.get(), Named<Object>{object, 0});
  if (inserted || entry->second.object.lock() != object) entry->second = {object, count++};
  return entry->second.number;
}

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
  std::lock_guard<std::mutex> lock(mutex);
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
  std::lock_guard<std::mutex> lock(mutex);
  return "t" + std::to_string(number_of(t.impl_ptr(), tensor_names, tensors_named));
}

std::string storage_name_of(const Tensor& t) {
  if (!t.defined()) return "None";
  std::lock_guard<std::mutex> lock(mutex);
  return "s" + std::to_string(number_of(t.impl()->storage, storage_names, storages_named));
}

}  // namespace trace

DispatchTrace::DispatchTrace() : sink_(new Sink) {
  std::lock_guard<std::mutex> lock(mutex);
  sinks.push_back(sink_);
  trace::on.store(true, std::memory_order_relaxed);
}

DispatchTrace::DispatchTrace(std::ostream& stream) : DispatchTrace() { sink_->stream = &stream; }

DispatchTrace::~DispatchTrace() {
  std::lock_guard<std::mutex> lock(mutex);
  std::erase(sinks, sink_);
  delete sink_;
  if (sinks.empty()) {  // the next trace names from t0 and s0 again
    trace::on.store(false, std::memory_order_relaxed);
    tensor_names.clear();
    storage_names.clear();
    tensors_named = storages_named = 0;
  }
}

std::string DispatchTrace::text() const {
  std::lock_guard<std::mutex> lock(mutex);
  return sink_->text;
}

}  // namespace ember
