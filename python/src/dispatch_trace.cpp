// ember.utils.dispatch_trace's C++ half: a DispatchTrace (engine/core/dispatch_trace.h) held from
// the `with` block's start to its end; the Python half (ember/utils/_dispatch_trace.py) writes it.
#include "bindings.h"
#include "core/dispatch_trace.h"

namespace ember::python {

namespace {
struct TraceScope {
  std::optional<DispatchTrace> trace;
  std::string text;  // what the trace held when it stopped
};
}  // namespace

void bind_dispatch_trace(py::module_& m) {
  py::class_<TraceScope>(m, "_DispatchTrace")
      .def(py::init<>())
      .def("start", [](TraceScope& scope) { scope.trace.emplace(); })
      .def("stop",
           [](TraceScope& scope) {
             if (!scope.trace) return;
             scope.text = scope.trace->text();
             scope.trace.reset();
           })
      .def("text", [](const TraceScope& scope) { return scope.trace ? scope.trace->text() : scope.text; });
}

}  // namespace ember::python
