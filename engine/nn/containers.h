// Containers: Sequential runs its children in order; ModuleList only holds them (registered, so
// parameters() and to() see them) and leaves the calling to the owner's forward.
#pragma once
#include <memory>
#include <type_traits>

#include "module.h"

namespace ember::nn {

// What both containers are: children named "0", "1", ... in their order, each a module's
// shared_ptr or a holder of one. Inserting or popping one renumbers those after it, as torch's
// Python does (libtorch's ModuleList has insert; torch's Sequential and ModuleList pop too).
class ChildList : public Module {
 public:
  void push_back(std::shared_ptr<Module> module);
  template <typename Impl>
  void push_back(const ModuleHolder<Impl>& holder) {
    push_back(std::shared_ptr<Module>(holder.ptr()));
  }
  template <typename Container>
  void extend(const Container& modules) {
    for (const auto& module : modules) push_back(module);
  }
  // Before the module at `index` (size() appends); libtorch's "Index out of range" beyond.
  void insert(size_t index, std::shared_ptr<Module> module);
  template <typename Impl>
  void insert(size_t index, const ModuleHolder<Impl>& holder) {
    insert(index, std::shared_ptr<Module>(holder.ptr()));
  }
  // Removes the module at `index` and returns it.
  std::shared_ptr<Module> pop(size_t index);
  size_t size() const { return children().size(); }
  bool is_empty() const { return children().empty(); }
  std::shared_ptr<Module> ptr(size_t i) const { return children().at(i); }  // libtorch's; s[i] too
  std::shared_ptr<Module> operator[](size_t i) const { return ptr(i); }
};

class SequentialImpl : public ChildList {
 public:
  SequentialImpl() = default;
  // Sequential{Linear(512, 512), ReLU(), Linear(512, 512)}.
  // Write it with braces: C++ evaluates the arguments of a parenthesised call in an unspecified
  // order (GCC: right to left), so with parentheses the Linears would draw their random initial
  // weights in the opposite order from PyTorch; a braced list is evaluated left to right.
  template <typename... Modules>
  explicit SequentialImpl(Modules&&... modules) {
    (push_back(std::forward<Modules>(modules)), ...);
  }
  Tensor forward(const Tensor& input) override;
};
TORCH_MODULE(Sequential);

class ModuleListImpl : public ChildList {
 public:
  Tensor forward(const Tensor&) override;  // raises: a ModuleList is not callable, as in PyTorch
};
TORCH_MODULE(ModuleList);

}  // namespace ember::nn
