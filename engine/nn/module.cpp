// Module's registry walks: everything recursive goes through the registered children only.
#include "module.h"

#include "core/grad_mode.h"
#include "profiler/memory_category.h"

namespace ember::nn {

Tensor Parameter(const Tensor& data) {
  Tensor leaf = data.detach();
  leaf.requires_grad_(true);
  return leaf;
}

namespace {

// The registered tensors of one kind (an absent bias is none), then with `recurse` each child's
// under its name: "weight", "0.weight", "0.1.bias".
using Registry = std::vector<std::pair<std::string, Tensor>> Module::*;  // parameters_ or buffers_
NamedTensors named_tensors(const Module& module, Registry registry, bool recurse) {
  NamedTensors out;
  for (const auto& [name, tensor] : module.*registry)
    if (tensor.defined()) out.emplace_back(name, tensor);
  if (recurse)
    for (const auto& [child_name, child] : module.named_children())
      for (auto& [name, tensor] : named_tensors(*child, registry, true))
        out.emplace_back(child_name + "." + name, tensor);
  return out;
}

std::vector<Tensor> tensors_of(const NamedTensors& named) {
  std::vector<Tensor> out;
  for (const auto& [name, tensor] : named) out.push_back(tensor);
  return out;
}

}  // namespace

NamedTensors Module::named_parameters(bool recurse) const {
  return named_tensors(*this, &Module::parameters_, recurse);
}
NamedTensors Module::named_buffers(bool recurse) const { return named_tensors(*this, &Module::buffers_, recurse); }
std::vector<Tensor> Module::parameters(bool recurse) const { return tensors_of(named_parameters(recurse)); }
std::vector<Tensor> Module::buffers(bool recurse) const { return tensors_of(named_buffers(recurse)); }

std::vector<std::shared_ptr<Module>> Module::children() const {
  std::vector<std::shared_ptr<Module>> out;
  for (const auto& [name, child] : children_) out.push_back(child);
  return out;
}

Module& Module::train(bool on) {
  training_ = on;
  for (auto& [name, child] : children_) child->train(on);
  return *this;
}

template <typename Visit>
void Module::for_each_tensor(Visit&& visit) {
  for (auto& [name, tensor] : parameters_)
    if (tensor.defined()) visit(tensor);
  for (auto& [name, tensor] : buffers_)
    if (tensor.defined()) visit(tensor);
  for (auto& [name, child] : children_) child->for_each_tensor(visit);
}

// Converts t (and its .grad) in place, keeping t the same tensor, as PyTorch's Module._apply does
// with `param.data = fn(param)`: optimizers built before the move keep working.
template <typename Convert>
void convert_in_place(const Tensor& t, Convert&& convert) {
  NoGradGuard no_grad;
  t.set_data(convert(t.detach()));
  if (t.grad().defined()) t.grad().set_data(convert(t.grad()));
}

Module& Module::to(Device device) {
  for_each_tensor([&](Tensor& t) {
    if (t.device() != device) convert_in_place(t, [&](const Tensor& data) { return data.to(device); });
  });
  return *this;
}

Module& Module::to(DType dtype) {
  for_each_tensor([&](Tensor& t) {
    // Like PyTorch, only floating-point tensors change dtype (integer buffers keep theirs).
    if (t.is_floating_point() && t.dtype() != dtype)
      convert_in_place(t, [&](const Tensor& data) { return data.to(dtype); });
  });
  return *this;
}

void Module::zero_grad(bool set_to_none) {
  NoGradGuard no_grad;
  for (Tensor& p : parameters()) {
    if (set_to_none) p.mutable_grad() = Tensor();
    else if (p.grad().defined()) p.grad().zero_();
  }
}

Tensor& Module::register_parameter(const std::string& name, const Tensor& data) {
  // The tensor itself, made to require grad, as libtorch's register_parameter does (nn.Parameter's
  // object itself, in Python); Parameter(data) is how a new one is made from data.
  EMBER_CHECK(!name.empty(), "Parameter name must not be empty");
  EMBER_CHECK(name.find('.') == std::string::npos, "Parameter name must not contain a dot (got '", name, "')");
  Tensor parameter = data;
  if (parameter.defined()) parameter.requires_grad_(true);
  profiler::tag_memory(parameter, profiler::MemoryCategory::Parameter);
  for (auto& [registered, tensor] : parameters_)
    if (registered == name) return tensor = parameter;
  parameters_.emplace_back(name, parameter);
  return parameters_.back().second;
}

void Module::unregister_parameter(const std::string& name) {
  std::erase_if(parameters_, [&](const auto& entry) { return entry.first == name; });
}

Tensor& Module::register_buffer(const std::string& name, const Tensor& data) {
  for (auto& [registered, tensor] : buffers_)
    if (registered == name) return tensor = data;
  buffers_.emplace_back(name, data);
  return buffers_.back().second;
}

Tensor Module::forward(const Tensor&) {
  EMBER_CHECK(false, "this Module has no forward(const Tensor&) to call: a module that a Sequential or Python calls "
                     "overrides it");
  return {};
}

void Module::add_child(const std::string& name, std::shared_ptr<Module> module) {
  for (auto& [registered, child] : children_)
    if (registered == name) {
      child = std::move(module);
      return;
    }
  children_.emplace_back(name, std::move(module));
}

std::shared_ptr<Module>& Module::child_slot(const std::string& name) {
  for (auto& [registered, child] : children_)
    if (registered == name) return child;
  throw Error("No Module with name `" + name + "` is registered");
}

void Module::unregister_module(const std::string& name) {
  child_slot(name);  // refuses a name that is not registered
  std::erase_if(children_, [&](const auto& entry) { return entry.first == name; });
}

Tensor& Module::parameter(const std::string& name) {
  for (auto& [n, t] : parameters_)
    if (n == name) return t;
  throw Error("no parameter named " + name);
}

Tensor& Module::buffer(const std::string& name) {
  for (auto& [n, t] : buffers_)
    if (n == name) return t;
  throw Error("no buffer named " + name);
}

}  // namespace ember::nn
