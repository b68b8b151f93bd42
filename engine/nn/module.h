// Module: what nn.Module is in PyTorch. A module owns named parameters (tensors that require grad
// and that an optimizer updates), named buffers (state that is not trained, e.g. running stats)
// and named child modules. Registration is what makes parameters(), to() and train()/eval() reach
// them: a submodule kept in a plain std::vector member is invisible to all three, which is the
// chapter's "device mismatch" cause.
#pragma once
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "api/ops.h"
#include "core/named_tensor.h"
#include "module_holder.h"

namespace ember::nn {

// A leaf tensor that requires grad: what nn.Parameter(t) makes.
Tensor Parameter(const Tensor& data);

class Module {
 public:
  Module() = default;
  virtual ~Module() = default;
  Module(Module&&) = default;
  Module& operator=(Module&&) = default;

  // What Sequential and Python call. A libtorch-style module may instead declare its own
  // `Tensor forward(Tensor x)`, which its holder's call finds (module_holder.h); this one then raises.
  virtual Tensor forward(const Tensor& input);
  Tensor operator()(const Tensor& input) { return forward(input); }

  // All parameters of this module and, with `recurse`, of its registered children (libtorch's).
  std::vector<Tensor> parameters(bool recurse = true) const;
  // The same with dotted names: "0.weight", "0.bias", "2.weight", ...
  NamedTensors named_parameters(bool recurse = true) const;
  // Its buffers (register_buffer), the same way.
  std::vector<Tensor> buffers(bool recurse = true) const;
  NamedTensors named_buffers(bool recurse = true) const;
  std::vector<std::shared_ptr<Module>> children() const;
  // The registered children with their names ("0", "1", ... in a Sequential), in registration order.
  const std::vector<std::pair<std::string, std::shared_ptr<Module>>>& named_children() const { return children_; }

  // Recursively sets training mode (Dropout behaves differently in training and evaluation).
  Module& train(bool on = true);
  Module& eval() { return train(false); }
  bool is_training() const { return training_; }

  // Moves or casts every registered parameter and buffer, recursively.
  Module& to(Device device);
  Module& to(DType dtype);
  // Zeroes every parameter's .grad in place (PyTorch 1.13's default), or drops it (set_to_none).
  void zero_grad(bool set_to_none = false);

  // A name registered again has its tensor replaced, where it was (torch's Python does this;
  // libtorch refuses with "Parameter 'weight' already defined"). An undefined tensor is torch's None.
  // The same for buffers.
  Tensor& register_parameter(const std::string& name, const Tensor& data);
  Tensor& register_buffer(const std::string& name, const Tensor& data);
  // Its own parameters as registered, an absent one undefined: torch's module._parameters.
  const std::vector<std::pair<std::string, Tensor>>& registered_parameters() const { return parameters_; }
  // Both return the module's shared_ptr, as libtorch's do, which a holder takes back:
  // `fc = register_module("fc", nn::Linear(4, 2))` with `nn::Linear fc{nullptr}`. A name registered
  // again is replaced where it was, as with parameters and buffers.
  template <typename M>
  std::shared_ptr<M> register_module(const std::string& name, std::shared_ptr<M> module) {
    add_child(name, module);
    return module;
  }
  template <typename Impl>
  std::shared_ptr<Impl> register_module(const std::string& name, const ModuleHolder<Impl>& holder) {
    return register_module(name, holder.ptr());
  }
  // libtorch's: the child registered under `name` replaced where it was, or removed.
  template <typename M>
  std::shared_ptr<M> replace_module(const std::string& name, std::shared_ptr<M> module) {
    child_slot(name) = module;
    return module;
  }
  template <typename Impl>
  std::shared_ptr<Impl> replace_module(const std::string& name, const ModuleHolder<Impl>& holder) {
    return replace_module(name, holder.ptr());
  }
  void unregister_module(const std::string& name);

 protected:
  Tensor& parameter(const std::string& name);
  Tensor& buffer(const std::string& name);
  // What ParameterDict's pop does (libtorch's erases from its parameters_).
  void unregister_parameter(const std::string& name);

 private:
  void add_child(const std::string& name, std::shared_ptr<Module> module);
  std::shared_ptr<Module>& child_slot(const std::string& name);
  template <typename Visit>
  void for_each_tensor(Visit&& visit);  // every registered parameter and buffer, recursively

  bool training_ = true;
  std::vector<std::pair<std::string, Tensor>> parameters_;
  std::vector<std::pair<std::string, Tensor>> buffers_;
  std::vector<std::pair<std::string, std::shared_ptr<Module>>> children_;
};

}  // namespace ember::nn
