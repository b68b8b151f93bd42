// ember.compile's C++ half: a CompiledFunction (engine/compile/compiled_function.h) over a Python
// callable. The callable runs once per capture, with the GIL held as for any call from Python;
// later calls run the compiled plan without entering Python. The Python half
// (ember/_compile.py) gives it torch.compile's signature and torch._dynamo.explain's report.
#include "bindings.h"

namespace ember::python {

namespace {

// The stats as a dict, under names torch._dynamo's ExplainOutput and counters use.
py::dict stats_of(const CompiledFunction& compiled) {
  const compiler::Stats& stats = compiled.stats();
  py::dict result;
  result["captures"] = stats.captures;
  result["recompiles"] = stats.recompiles;
  result["recompile_reasons"] = stats.recompile_reasons;
  result["op_count"] = stats.captured_ops;
  result["kernels"] = stats.kernels;
  result["fused_ops"] = stats.fused_ops;
  result["extern_calls"] = stats.extern_calls;
  result["break_reasons"] = stats.graph_breaks;
  result["eager_runs"] = stats.eager_runs;
  return result;
}

}  // namespace

void bind_compile(py::module_& m) {
  py::class_<CompiledFunction>(m, "_CompiledFunction")
      // function(*tensors) -> list of tensors; named_constants() -> [(name, tensor)]; training() -> bool
      .def(py::init([](py::function function, std::vector<std::string> input_names, py::object named_constants,
                       py::object training, std::string name) {
             CompiledFunction compiled(
                 [function](const std::vector<Tensor>& inputs) {
                   py::tuple arguments(inputs.size());
                   for (size_t i = 0; i < inputs.size(); ++i)
                     arguments[i] = py::reinterpret_steal<py::object>(python_object_of(inputs[i]));
                   return function(*arguments).cast<std::vector<Tensor>>();
                 },
                 std::move(input_names));
             if (!named_constants.is_none())
               compiled.named_constants = [named_constants] {
                 NamedTensors named;
                 for (py::handle pair : named_constants())
                   named.emplace_back(pair[py::int_(0)].cast<std::string>(), pair[py::int_(1)].cast<Tensor>());
                 return named;
               };
             if (!training.is_none()) compiled.training = [training] { return training().cast<bool>(); };
             compiled.name = std::move(name);
             return compiled;
           }),
           py::arg("function"), py::arg("input_names"), py::arg("named_constants"), py::arg("training"),
           py::arg("name"))
      .def("__call__", [](CompiledFunction& compiled, const std::vector<Tensor>& inputs) { return compiled(inputs); })
      .def("explain", &CompiledFunction::explain)
      .def_property_readonly("stats", &stats_of)
      .def("graph", &CompiledFunction::graph_text)
      .def("plan", &CompiledFunction::plan_text)
      .def("source", &CompiledFunction::source)
      .def("backward_source", &CompiledFunction::backward_source, py::arg("kernel") = 0);
}

}  // namespace ember::python
