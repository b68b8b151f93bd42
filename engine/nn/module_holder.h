// ModuleHolder: libtorch's handle to a module. `nn::Linear` is a ModuleHolder<LinearImpl>, a
// shared_ptr to the module itself with the module's call syntax: copies share one module and one
// set of parameters (as Python's references do), `nn::Linear fc{nullptr}` is an empty slot that a
// constructor fills with `fc = register_module("fc", nn::Linear(4, 2))`, `fc->weight()` reaches
// the module and `fc(x)` calls its forward. TORCH_MODULE(Net) makes the holder `Net` of a user's
// `NetImpl`, as libtorch's macro does, so a program written for libtorch keeps its spelling.
#pragma once
#include <memory>
#include <type_traits>
#include <utility>

#include "core/error.h"

namespace ember::nn {

template <typename Impl>
class ModuleHolder {
 public:
  using ContainedType = Impl;

  ModuleHolder() : impl_(std::make_shared<Impl>()) {  // Impl's default constructor
    static_assert(std::is_default_constructible_v<Impl>,
                  "You are trying to default construct a module which has no default constructor. Use = nullptr "
                  "to give it the empty state (e.g. `Linear linear = nullptr;` instead of `Linear linear;`).");
  }
  ModuleHolder(std::nullptr_t) {}  // empty, to be assigned later
  ModuleHolder(std::shared_ptr<Impl> module) : impl_(std::move(module)) {}
  // A new Impl from the arguments: nn::Linear(4, 2) makes LinearImpl(4, 2).
  template <typename Head, typename... Tail,
            typename = std::enable_if_t<!(std::is_same_v<std::decay_t<Head>, ModuleHolder> && sizeof...(Tail) == 0)>>
  explicit ModuleHolder(Head&& head, Tail&&... tail)
      : impl_(std::make_shared<Impl>(std::forward<Head>(head), std::forward<Tail>(tail)...)) {}

  Impl* operator->() const { return get(); }
  Impl& operator*() const { return *get(); }
  Impl* get() const {
    EMBER_CHECK(impl_ != nullptr, "Accessing empty ModuleHolder");
    return impl_.get();
  }
  const std::shared_ptr<Impl>& ptr() const {
    EMBER_CHECK(impl_ != nullptr, "Accessing empty ModuleHolder");
    return impl_;
  }
  bool is_empty() const { return impl_ == nullptr; }

  // The module's forward (the Impl's own, even when it takes its Tensor by value).
  template <typename... Args>
  decltype(auto) operator()(Args&&... args) const {
    return get()->forward(std::forward<Args>(args)...);
  }
  template <typename Index>
  decltype(auto) operator[](Index&& index) const {
    return (*get())[std::forward<Index>(index)];
  }

 private:
  std::shared_ptr<Impl> impl_;
};

}  // namespace ember::nn

// libtorch's macro: the holder class `Name` for a module class `NameImpl`.
#define TORCH_MODULE(Name)                                     \
  class Name : public ::ember::nn::ModuleHolder<Name##Impl> {  \
   public:                                                     \
    using ::ember::nn::ModuleHolder<Name##Impl>::ModuleHolder; \
  }
