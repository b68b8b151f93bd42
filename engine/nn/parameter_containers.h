// ParameterList and ParameterDict: parameters held by position or by name, as libtorch's
// torch::nn::ParameterList and ParameterDict and torch.nn's. Their entries are their own
// registered parameters ("0", "1", ... or the keys), so a module that holds one sees them in
// parameters() and state_dict() under its name ("scales.0", "gains.encoder"); each tensor given is
// registered itself and made to require grad, as torch's makes a Parameter of a plain tensor.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "module.h"

namespace ember::nn {

class ParameterListImpl : public Module {
 public:
  ParameterListImpl() = default;
  explicit ParameterListImpl(const std::vector<Tensor>& params) { extend(params); }

  void append(const Tensor& param) { register_parameter(std::to_string(size()), param); }
  void extend(const std::vector<Tensor>& params) {
    for (const Tensor& param : params) append(param);
  }
  // Replaces the parameter at `index` (torch's list[index] = p).
  void set(size_t index, const Tensor& param);
  Tensor& at(size_t index);
  Tensor& operator[](size_t index) { return at(index); }
  size_t size() const noexcept { return registered_parameters().size(); }
  bool is_empty() const noexcept { return registered_parameters().empty(); }

  Tensor forward(const Tensor&) override;  // raises, as torch's "ParameterList should not be called."
};
TORCH_MODULE(ParameterList);

class ParameterDictImpl : public Module {
 public:
  using Items = std::vector<std::pair<std::string, Tensor>>;

  ParameterDictImpl() = default;
  explicit ParameterDictImpl(const Items& params) { update(params); }

  // A key it holds has its parameter replaced where it was.
  Tensor& insert(const std::string& key, const Tensor& param) { return register_parameter(key, param); }
  Tensor pop(const std::string& key);
  void update(const Items& params) {
    for (const auto& [key, param] : params) insert(key, param);
  }
  void clear();
  std::vector<std::string> keys() const;
  std::vector<Tensor> values() const;
  const Items& items() const { return registered_parameters(); }
  size_t size() const noexcept { return registered_parameters().size(); }
  bool empty() const noexcept { return registered_parameters().empty(); }
  bool contains(const std::string& key) const noexcept;
  // libtorch's "Parameter 'name' is not defined" for a key it does not hold.
  Tensor& get(const std::string& key);
  Tensor& operator[](const std::string& key) { return get(key); }

  Tensor forward(const Tensor&) override;  // raises, as torch's "ParameterDict should not be called."
};
TORCH_MODULE(ParameterDict);

}  // namespace ember::nn
