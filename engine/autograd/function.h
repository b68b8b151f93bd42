// A user's own autograd function in C++, as libtorch spells it (torch::autograd::Function<T>):
//
//   struct MulConstant : autograd::Function<MulConstant> {
//     static Tensor forward(autograd::AutogradContext* ctx, Tensor x, double c) {
//       ctx->saved_data["c"] = c;
//       return x * c;
//     }
//     static std::vector<Tensor> backward(autograd::AutogradContext* ctx, std::vector<Tensor> grads) {
//       return {grads[0] * std::any_cast<double>(ctx->saved_data["c"]), Tensor()};  // none for c
//     }
//   };
//   Tensor y = MulConstant::apply(x, 5.0);
//
// forward runs with grad mode off; its outputs get one node (MulConstantBackward), whose backward
// is T::backward, given one gradient per output and returning one per argument of forward
// (undefined for a non-tensor). It runs on the engine's custom functions (custom_function.h), the
// same path as Python's torch.autograd.Function. Two differences from libtorch: saved_data holds
// IValues that are std::any underneath (toDouble(), toInt(), toBool(), toTensor() read the types
// stored, and std::any_cast reads any other), and the node is named as Python names it (libtorch
// prints "torch::autograd::CppNode<MulConstant>").
#pragma once
#include <any>
#include <memory>
#include <string>
#include <type_traits>
#include <typeinfo>
#include <unordered_map>
#include <vector>

#include "core/grad_mode.h"
#include "custom_function.h"
#include "node.h"

namespace ember::autograd {

// libtorch's names: a Variable is a Tensor (the two were merged in PyTorch 0.4).
using Variable = Tensor;
using variable_list = std::vector<Tensor>;
using tensor_list = std::vector<Tensor>;

// A value in saved_data: whatever was stored, read back as libtorch's IValue reads it.
struct IValue : std::any {
  IValue() = default;
  template <typename T, typename = std::enable_if_t<!std::is_same_v<std::decay_t<T>, IValue>>>
  IValue(T&& value) : std::any(std::forward<T>(value)) {}
  double toDouble() const { return read<double, float>("Double"); }
  int64_t toInt() const { return read<int64_t, int>("Int"); }
  bool toBool() const { return read<bool, bool>("Bool"); }
  Tensor toTensor() const { return read<Tensor, Tensor>("Tensor"); }

 private:
  template <typename T, typename Narrow>
  T read(const char* wanted) const {
    if (const T* value = std::any_cast<T>(static_cast<const std::any*>(this))) return *value;
    if (const Narrow* value = std::any_cast<Narrow>(static_cast<const std::any*>(this))) return *value;
    throw Error(str_cat("Expected ", wanted, " but got ", kind()));
  }
  // libtorch's names for the kinds it stores; "another type" for what an IValue cannot hold.
  const char* kind() const {
    const std::type_info& t = type();
    if (!has_value()) return "None";
    if (t == typeid(double) || t == typeid(float)) return "Double";
    if (t == typeid(int64_t) || t == typeid(int)) return "Int";
    if (t == typeid(bool)) return "Bool";
    if (t == typeid(Tensor)) return "Tensor";
    return "another type";
  }
};

class AutogradContext {
 public:
  std::unordered_map<std::string, IValue> saved_data;  // anything backward needs that is not a tensor

  void save_for_backward(std::vector<Tensor> to_save) { to_save_ = std::move(to_save); }
  void mark_dirty(const std::vector<Tensor>& inputs) { dirty_ = inputs; }
  void mark_non_differentiable(const std::vector<Tensor>& outputs) { non_differentiable_ = outputs; }
  void set_materialize_grads(bool value) { materialize_grads_ = value; }
  // The saved tensors, version-checked (in backward).
  std::vector<Tensor> get_saved_variables() const { return saved_tensors(node_.lock(), *backward_); }
  // Whether forward's argument `index` wants a gradient.
  bool needs_input_grad(size_t index) const { return index < needs_input_grad_.size() && needs_input_grad_[index]; }

 private:
  template <class T>
  friend struct Function;
  std::vector<Tensor> to_save_, dirty_, non_differentiable_;
  std::vector<bool> needs_input_grad_;
  bool materialize_grads_ = true;
  std::weak_ptr<Node> node_;
  CustomBackward* backward_ = nullptr;
};

template <class T>
struct Function {
  template <typename... Args>
  static auto apply(Args&&... args) {
    auto backward = std::make_shared<CppBackward>();
    backward->name = node_name();
    AutogradContext& ctx = backward->ctx;
    ctx.backward_ = backward.get();
    std::vector<Tensor> inputs;
    bool any_requires_grad = false;
    auto collect = [&](const auto& arg) {
      using A = std::decay_t<decltype(arg)>;
      const bool is_tensor = std::is_same_v<A, Tensor>;
      backward->is_tensor_arg.push_back(is_tensor);
      bool requires_grad = false;
      if constexpr (std::is_same_v<A, Tensor>) {
        inputs.push_back(arg);
        requires_grad = arg.defined() && arg.requires_grad();
      }
      ctx.needs_input_grad_.push_back(requires_grad);
      any_requires_grad = any_requires_grad || requires_grad;
    };
    (collect(args), ...);
    const bool is_executable = GradMode::is_enabled() && any_requires_grad;
    auto node = make_custom_node(backward, is_executable ? inputs : std::vector<Tensor>(inputs.size()));
    ctx.node_ = node;
    auto outputs = [&] {
      NoGradGuard forward_runs_without_grad;
      return T::forward(&ctx, std::forward<Args>(args)...);
    }();
    constexpr bool single = std::is_same_v<decltype(outputs), Tensor>;
    std::vector<Tensor> raw;
    if constexpr (single) raw = {outputs};
    else raw = outputs;
    for (const Tensor& t : ctx.dirty_) t.impl()->version_counter->bump();
    std::vector<Tensor> wrapped =
        wrap_outputs(is_executable ? node : nullptr, inputs, ctx.dirty_, ctx.non_differentiable_, raw);
    if (is_executable) save_for_backward(*node, *backward, ctx.to_save_);
    // Dropped, as libtorch keeps only raw pointers: a dirty input is now an output whose grad_fn is
    // this node, so the node's own context holding it would be a cycle that is never freed.
    ctx.to_save_.clear();
    ctx.dirty_.clear();
    ctx.non_differentiable_.clear();
    backward->materialize_grads = ctx.materialize_grads_;
    if constexpr (single) return wrapped[0];
    else return wrapped;
  }

 private:
  struct CppBackward : CustomBackward {
    AutogradContext ctx;
    std::vector<Tensor> backward(const std::vector<Tensor>& grad_outputs) override {
      return T::backward(&ctx, grad_outputs);
    }
  };
  // "MulConstantBackward": the class's name, without its namespaces, and "Backward".
  static std::string node_name() {
    std::string name = type_name<T>();
    const size_t colon = name.rfind("::");
    return (colon == std::string::npos ? name : name.substr(colon + 2)) + "Backward";
  }
  template <typename U>
  static std::string type_name() {
    const std::string pretty = __PRETTY_FUNCTION__;  // "... [with U = ns::MulConstant; ...]"
    const size_t start = pretty.find("U = ") + 4;
    return pretty.substr(start, pretty.find_first_of(";]", start) - start);
  }
};

}  // namespace ember::autograd
