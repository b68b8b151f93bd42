// ModuleDict: modules by name, as libtorch's torch::nn::ModuleDict and torch.nn.ModuleDict. Its
// entries are its registered children, so parameters(), to() and train() reach them under their
// keys ("blocks.encoder.weight"); inserting a key it holds replaces that module where it was. Like
// ModuleList it only holds them: the owner's forward calls them.
#pragma once
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "module.h"

namespace ember::nn {

class ModuleDictImpl : public Module {
 public:
  using Items = std::vector<std::pair<std::string, std::shared_ptr<Module>>>;

  ModuleDictImpl() = default;
  explicit ModuleDictImpl(const Items& modules) { update(modules); }

  Items items() const { return named_children(); }
  std::vector<std::string> keys() const;
  std::vector<std::shared_ptr<Module>> values() const { return children(); }
  size_t size() const noexcept { return named_children().size(); }
  bool empty() const noexcept { return named_children().empty(); }
  bool contains(const std::string& key) const noexcept;
  void clear();
  // libtorch's "Key 'name' is not defined" for a key it does not hold.
  std::shared_ptr<Module> operator[](const std::string& key) const;
  std::shared_ptr<Module> pop(const std::string& key);
  void update(const Items& modules);
  void insert(const std::string& key, std::shared_ptr<Module> module) { register_module(key, std::move(module)); }
  template <typename Impl>
  void insert(const std::string& key, const ModuleHolder<Impl>& holder) {
    insert(key, std::shared_ptr<Module>(holder.ptr()));
  }

  Tensor forward(const Tensor&) override;  // raises: a ModuleDict is not callable, as in PyTorch
};
TORCH_MODULE(ModuleDict);

}  // namespace ember::nn
