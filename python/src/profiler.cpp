// ember.profiler: the C++ profiler, recorded from Python. `profile` (in ember/profiler.py) holds a
// C++ Profiler from the `with` block's start to its end; key_averages() gives the C++ rows
// (key, count, self_cpu_time_total in microseconds, ...) and table() PyTorch's table. Also here:
// record_function's range, emit_nvtx's guard, and machine_load.h's clock, which tells a profile the machine's load
// disturbed from a quiet one (the chapter's test judges a ranking only from a quiet one).
#include "bindings.h"
#include "profiler/machine_load.h"

namespace ember::python {

namespace {

using namespace profiler;

// A named range from __enter__ to __exit__ (record_function).
struct RecordFunctionScope {
  explicit RecordFunctionScope(std::string name) : name(std::move(name)) {}
  std::string name;
  std::optional<RecordFunction> range;
};

struct NvtxScope {
  std::optional<EmitNvtx> guard;
};

}  // namespace

void bind_profiler(py::module_& m) {
  py::module_ p = m.def_submodule("_profiler", "ember's op profiler (engine/profiler/profiler.h)");
  py::enum_<ProfilerActivity>(p, "ProfilerActivity")
      .value("CPU", ProfilerActivity::CPU)
      .value("CUDA", ProfilerActivity::CUDA);

  p.def("supported_activities", &supported_activities);
  p.def("kineto_available", &kineto_available);

  py::class_<EventAverage>(p, "EventAverage")
      .def_readonly("key", &EventAverage::key)
      .def_readonly("input_shapes", &EventAverage::input_shapes)
      .def_readonly("count", &EventAverage::count)
      .def_readonly("cpu_time_total", &EventAverage::cpu_time_total)
      .def_readonly("self_cpu_time_total", &EventAverage::self_cpu_time_total)
      .def_readonly("cuda_time_total", &EventAverage::cuda_time_total)
      .def_readonly("self_cuda_time_total", &EventAverage::self_cuda_time_total)
      .def_readonly("cpu_memory_usage", &EventAverage::cpu_memory_usage)
      .def_readonly("self_cpu_memory_usage", &EventAverage::self_cpu_memory_usage)
      .def_readonly("cuda_memory_usage", &EventAverage::cuda_memory_usage)
      .def_readonly("self_cuda_memory_usage", &EventAverage::self_cuda_memory_usage)
      .def_readonly("flops", &EventAverage::flops)
      .def_property_readonly("cpu_time", &EventAverage::cpu_time)
      .def_property_readonly("cuda_time", &EventAverage::cuda_time)
      .def("__repr__", [](const EventAverage& e) {
        return "<FunctionEventAvg key=" + e.key + " self_cpu_time=" + std::to_string(e.self_cpu_time_total) +
               "us cpu_time=" + std::to_string(e.cpu_time_total) + "us count=" + std::to_string(e.count) + ">";
      });

  py::class_<KeyAverages>(p, "KeyAverages")
      .def(
          "table",
          [](const KeyAverages& averages, std::optional<std::string> sort_by, int64_t row_limit) {
            return averages.table(sort_by.value_or(""), row_limit);
          },
          py::arg("sort_by") = py::none(), py::arg("row_limit") = 100)
      .def("__len__", &KeyAverages::size)
      .def("__getitem__", [](const KeyAverages& averages, size_t i) { return averages.rows().at(i); })
      .def(
          "__iter__", [](const KeyAverages& averages) { return py::make_iterator(averages.begin(), averages.end()); },
          py::keep_alive<0, 1>())
      .def("__str__", [](const KeyAverages& averages) { return averages.table(); });

  // One recorded event, as torch's FunctionEvent shows its basic fields: name, thread, times in
  // microseconds from the profiler's start, the shapes with record_shapes, and its id.
  py::class_<Event>(p, "FunctionEvent", py::dynamic_attr())
      .def_readonly("name", &Event::name)
      .def_readonly("thread", &Event::thread)
      .def_readonly("input_shapes", &Event::input_shapes)
      .def_property_readonly("time_range",
                             [](const Event& e) { return py::make_tuple(e.start_ns / 1000.0, e.end_ns / 1000.0); })
      .def("__repr__", [](const Event& e) { return "<FunctionEvent name=" + e.name + ">"; });

  py::class_<Profiler>(p, "Profiler")
      .def(py::init([](std::vector<ProfilerActivity> activities, bool record_shapes, bool profile_memory,
                       bool with_flops) {
             return std::make_unique<Profiler>(ProfilerOptions{activities, record_shapes, profile_memory, with_flops});
           }),
           py::arg("activities"), py::arg("record_shapes") = false, py::arg("profile_memory") = false,
           py::arg("with_flops") = false)
      .def("start", &Profiler::start)
      .def("stop", &Profiler::stop)
      // Each event's id is its place in start order, as torch's ids grow in the order events start.
      .def("events",
           [](const Profiler& profiler) {
             py::list events;
             for (const Event& event : profiler.events().events()) {
               py::object function_event = py::cast(event);
               function_event.attr("id") = py::len(events);
               events.append(function_event);
             }
             return events;
           })
      .def("key_averages", &Profiler::key_averages, py::arg("group_by_input_shape") = false)
      .def("export_chrome_trace", &Profiler::export_chrome_trace, py::arg("path"))
      .def("export_memory_timeline", &Profiler::export_memory_timeline, py::arg("path"),
           py::arg("device") = std::optional<Device>());

  py::class_<RecordFunctionScope>(p, "_RecordFunction")
      .def(py::init<std::string>(), py::arg("name"))
      .def("__enter__", [](RecordFunctionScope& scope) { scope.range.emplace(scope.name); })
      .def("__exit__", [](RecordFunctionScope& scope, py::args) {
        scope.range.reset();
        return false;
      });

  // emit_nvtx's guard (ember/autograd/profiler.py), held from __enter__ to __exit__.
  py::class_<NvtxScope>(p, "_EmitNvtx")
      .def(py::init<>())
      .def("__enter__", [](NvtxScope& scope) { scope.guard.emplace(); })
      .def("__exit__", [](NvtxScope& scope, py::args) {
        scope.guard.reset();
        return false;
      });

  py::class_<SchedulerClock>(p, "SchedulerClock");
  p.def("scheduler_clock", &scheduler_clock);
  py::class_<MachineLoad>(p, "MachineLoad")
      .def_readonly("wall_seconds", &MachineLoad::wall_seconds)
      .def_readonly("cpu_seconds", &MachineLoad::cpu_seconds)
      .def_readonly("waiting_seconds", &MachineLoad::waiting_seconds)
      .def_readonly("load_average", &MachineLoad::load_average)
      .def("waiting_fraction", &MachineLoad::waiting_fraction)
      .def("busy", &MachineLoad::busy)
      .def("__str__", &MachineLoad::str);
  p.def("machine_load_since", &machine_load_since, py::arg("start"));
}

}  // namespace ember::python
