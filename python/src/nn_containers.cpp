// ember.nn's containers: Sequential, ModuleList, ModuleDict, ParameterList and ParameterDict, the C++
// classes themselves (engine/nn/containers.h, module_dict.h, parameter_containers.h). Python's
// side of each (its indexing with negative numbers and slices, dict methods, repr, and PyTorch's
// exception types) is in ember/nn/containers.py, over the names bound here. A module given to a
// container is kept alive with it (keep_alive), and with it any module written in Python.
#include "bindings.h"

namespace ember::python {

namespace {

using nn::Module;
template <typename M>
using module_class = py::class_<M, Module, std::shared_ptr<M>>;
constexpr auto kKeepChild = py::keep_alive<1, 3>();  // the module argument after self and an index or key

// append, insert, pop, len() and [i], which both lists of modules have from nn::ChildList.
template <typename Class>
void bind_child_list(Class& container) {
  using Container = typename Class::type;
  container
      .def(
          "append",
          [](py::object self, std::shared_ptr<Module> module) {
            self.cast<Container&>().push_back(std::move(module));
            return self;
          },
          py::arg("module"), py::keep_alive<1, 2>())
      .def(
          "_insert",
          [](Container& list, size_t index, std::shared_ptr<Module> module) { list.insert(index, std::move(module)); },
          py::arg("index"), py::arg("module"), kKeepChild)
      .def("_pop", &Container::pop, py::arg("index"))
      .def("__len__", &Container::size)
      .def("_at", [](const Container& list, size_t i) { return list[i]; });
}

void bind_module_lists(py::module_& m) {
  auto sequential = module_class<nn::SequentialImpl>(m, "Sequential")
                        .def(py::init([](py::args modules) {
                               auto sequential = std::make_shared<nn::SequentialImpl>();
                               for (py::handle module : modules)
                                 sequential->push_back(module.cast<std::shared_ptr<Module>>());
                               return sequential;
                             }),
                             py::keep_alive<1, 2>());
  bind_child_list(sequential);
  auto list = module_class<nn::ModuleListImpl>(m, "ModuleList")
                  .def(py::init([](std::optional<std::vector<std::shared_ptr<Module>>> modules) {
                         auto list = std::make_shared<nn::ModuleListImpl>();
                         for (auto& module : modules.value_or(std::vector<std::shared_ptr<Module>>{}))
                           list->push_back(module);
                         return list;
                       }),
                       py::arg("modules") = py::none(), py::keep_alive<1, 2>());
  bind_child_list(list);
}

void bind_module_dict(py::module_& m) {
  module_class<nn::ModuleDictImpl>(m, "ModuleDict")
      .def(py::init<>())
      .def("_get", &nn::ModuleDictImpl::operator[], py::arg("key"))
      .def("_pop", &nn::ModuleDictImpl::pop, py::arg("key"))
      .def("clear", &nn::ModuleDictImpl::clear)
      .def("_keys", &nn::ModuleDictImpl::keys)
      .def("__len__", &nn::ModuleDictImpl::size)
      .def("__contains__", &nn::ModuleDictImpl::contains, py::arg("key"));
}

// An entry of a parameter container, as Python sees it (None where it is absent).
py::object parameter_object(const Tensor& t) { return t.defined() ? py::cast(t) : py::none(); }

void bind_parameter_containers(py::module_& m) {
  module_class<nn::ParameterListImpl>(m, "ParameterList")
      .def(py::init<>())
      .def(
          "_append", [](nn::ParameterListImpl& list, const Tensor& param) { list.append(param); }, py::arg("param"))
      .def("_set", &nn::ParameterListImpl::set, py::arg("index"), py::arg("param"))
      .def(
          "_at", [](nn::ParameterListImpl& list, size_t i) { return parameter_object(list.at(i)); }, py::arg("index"))
      .def("__len__", &nn::ParameterListImpl::size);
  module_class<nn::ParameterDictImpl>(m, "ParameterDict")
      .def(py::init<>())
      .def(
          "_insert",
          [](nn::ParameterDictImpl& dict, const std::string& key, const Tensor& param) { dict.insert(key, param); },
          py::arg("key"), py::arg("param"))
      .def(
          "_get", [](nn::ParameterDictImpl& dict, const std::string& key) { return parameter_object(dict.get(key)); },
          py::arg("key"))
      .def(
          "_pop", [](nn::ParameterDictImpl& dict, const std::string& key) { return parameter_object(dict.pop(key)); },
          py::arg("key"))
      .def("_keys", &nn::ParameterDictImpl::keys)
      .def("__len__", &nn::ParameterDictImpl::size)
      .def("__contains__", &nn::ParameterDictImpl::contains, py::arg("key"));
}

}  // namespace

void bind_nn_containers(py::module_& m) {
  bind_module_lists(m);
  bind_module_dict(m);
  bind_parameter_containers(m);
}

}  // namespace ember::python
