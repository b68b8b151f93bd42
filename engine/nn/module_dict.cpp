// ModuleDict (module_dict.h): a Module whose children are its entries.
#include "module_dict.h"

namespace ember::nn {

std::vector<std::string> ModuleDictImpl::keys() const {
  std::vector<std::string> out;
  for (const auto& [key, module] : named_children()) out.push_back(key);
  return out;
}

bool ModuleDictImpl::contains(const std::string& key) const noexcept {
  for (const auto& [registered, module] : named_children())
    if (registered == key) return true;
  return false;
}

void ModuleDictImpl::clear() {
  for (const std::string& key : keys()) unregister_module(key);
}

std::shared_ptr<Module> ModuleDictImpl::operator[](const std::string& key) const {
  for (const auto& [registered, module] : named_children())
    if (registered == key) return module;
  throw Error("Key '" + key + "' is not defined");
}

std::shared_ptr<Module> ModuleDictImpl::pop(const std::string& key) {
  std::shared_ptr<Module> module = (*this)[key];
  unregister_module(key);
  return module;
}

void ModuleDictImpl::update(const Items& modules) {
  for (const auto& [key, module] : modules) insert(key, module);
}

Tensor ModuleDictImpl::forward(const Tensor&) {
  throw Error("Module [ModuleDict] is missing the required \"forward\" function");
}

}  // namespace ember::nn
