// Module's registry walks: everything recursive goes through the registered children only.
#include "module.h"

namespace ember::nn {

Tensor Parameter(const Tensor& data) {
  Tensor leaf = data.detach();
  leaf.requires_grad_(true);
  return leaf;
}

std::vector<std::pair<std::string, Tensor>> Module::named_parameters() const {
  std::vector<std::pair<std::string, Tensor>> out;
  for (const auto& [name, tensor] : parameters_)
    if (tensor.defined()) out.emplace_back(name, tensor);  // an absent bias is not a parameter
  for (const auto& [child_name, child] : children_)
    for (auto& [name, tensor] : child->named_parameters()) out.emplace_back(child_name + "." + name, tensor);
  return out;
}

std::vector<Tensor> Module::parameters() const {
  std::vector<Tensor> out;
  for (auto& [name, tensor] : named_parameters()) out.push_back(tensor);
  return out;
}

std::vector<Tensor> Module::buffers() const {
  std::vector<Tensor> out;
  for (const auto& [name, tensor] : buffers_)
    if (tensor.defined()) out.push_back(tensor);
  for (const auto& [name, child] : children_)
    for (const Tensor& t : child->buffers()) out.push_back(t);
  return out;
}

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
  for (auto& [name, tensor] : parameters_) visit(tensor, true);
  for (auto& [name, tensor] : buffers_) visit(tensor, false);
  for (auto& [name, child] : children_) child->for_each_tensor(visit);
}

Module& Module::to(Device device) {
  for_each_tensor([&](Tensor& t, bool is_parameter) {
    if (!t.defined()) return;
    Tensor moved = t.detach().to(device);
    t = is_parameter ? Parameter(moved) : moved;
  });
  return *this;
}

Module& Module::to(DType dtype) {
  for_each_tensor([&](Tensor& t, bool is_parameter) {
    if (!t.defined() || !t.is_floating_point()) return;  // like PyTorch, integer buffers keep their dtype
    Tensor cast = t.detach().to(dtype);
    t = is_parameter ? Parameter(cast) : cast;
  });
  return *this;
}

void Module::zero_grad() {
  for (Tensor& p : parameters()) p.mutable_grad() = Tensor();
}

Tensor& Module::register_parameter(const std::string& name, const Tensor& data) {
  parameters_.emplace_back(name, data.defined() ? Parameter(data) : Tensor());
  return parameters_.back().second;
}

Tensor& Module::register_buffer(const std::string& name, const Tensor& data) {
  buffers_.emplace_back(name, data);
  return buffers_.back().second;
}

void Module::register_module(const std::string& name, std::shared_ptr<Module> module) {
  children_.emplace_back(name, std::move(module));
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
