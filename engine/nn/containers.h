// Containers: Sequential runs its children in order; ModuleList only holds them (registered, so
// parameters() and to() see them) and leaves the calling to the owner's forward.
#pragma once
#include <memory>
#include <type_traits>

#include "module.h"

namespace ember::nn {

class Sequential : public Module {
 public:
  Sequential() = default;
  // Sequential{Linear(512, 512), ReLU(), Linear(512, 512)}: children are named "0", "1", ...
  // Write it with braces: C++ evaluates the arguments of a parenthesised call in an unspecified
  // order (GCC: right to left), so with parentheses the Linears would draw their random initial
  // weights in the opposite order from PyTorch; a braced list is evaluated left to right.
  template <typename... Modules>
  explicit Sequential(Modules&&... modules) {
    (push_back(std::make_shared<std::decay_t<Modules>>(std::forward<Modules>(modules))), ...);
  }
  void push_back(std::shared_ptr<Module> module);
  Tensor forward(const Tensor& input) override;
  size_t size() const { return children().size(); }
  std::shared_ptr<Module> operator[](size_t i) const { return children().at(i); }
};

class ModuleList : public Module {
 public:
  void push_back(std::shared_ptr<Module> module);
  size_t size() const { return children().size(); }
  std::shared_ptr<Module> operator[](size_t i) const { return children().at(i); }
  Tensor forward(const Tensor&) override;  // raises: a ModuleList is not callable, as in PyTorch
};

}  // namespace ember::nn
