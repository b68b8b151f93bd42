// ParameterList and ParameterDict (parameter_containers.h): Modules whose parameters are their entries.
#include "parameter_containers.h"

namespace ember::nn {

void ParameterListImpl::set(size_t index, const Tensor& param) {
  at(index);  // refuses an index out of range
  register_parameter(std::to_string(index), param);
}

Tensor& ParameterListImpl::at(size_t index) {
  if (index >= size()) throw IndexError(str_cat("index ", index, " is out of range"));
  return parameter(std::to_string(index));
}

Tensor ParameterListImpl::forward(const Tensor&) { throw Error("ParameterList should not be called."); }

Tensor& ParameterDictImpl::get(const std::string& key) {
  EMBER_CHECK(contains(key), "Parameter '", key, "' is not defined");
  return parameter(key);
}

Tensor ParameterDictImpl::pop(const std::string& key) {
  Tensor param = get(key);
  unregister_parameter(key);
  return param;
}

void ParameterDictImpl::clear() {
  for (const std::string& key : keys()) unregister_parameter(key);
}

std::vector<std::string> ParameterDictImpl::keys() const {
  std::vector<std::string> out;
  for (const auto& [key, param] : items()) out.push_back(key);
  return out;
}

std::vector<Tensor> ParameterDictImpl::values() const {
  std::vector<Tensor> out;
  for (const auto& [key, param] : items()) out.push_back(param);
  return out;
}

bool ParameterDictImpl::contains(const std::string& key) const noexcept {
  for (const auto& [registered, param] : items())
    if (registered == key) return true;
  return false;
}

Tensor ParameterDictImpl::forward(const Tensor&) { throw Error("ParameterDict should not be called."); }

}  // namespace ember::nn
