// optim::Optimizer: what every optimizer shares, as libtorch's torch::optim::Optimizer (and
// torch.optim.Optimizer in Python). Its parameters come in groups, each with its own options
// (param_groups(): a group's learning rate can be changed between steps); what it keeps for each
// parameter (SGD's momentum buffer, Adam's moments) is its state(), keyed by the parameter. Its
// state_dict() is PyTorch's, parameters numbered across the groups in order, so a fresh optimizer
// over the same parameters continues a run where load_state_dict() hands it one. GradScaler steps
// any optimizer through this. PyTorch's checks and texts: "optimizer got an empty parameter list",
// "can't optimize a non-leaf Tensor", "some parameters appear in more than one parameter group".
#pragma once
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/arg.h"  // TORCH_ARG, which the optimizers' options are written with
#include "core/grad_mode.h"
#include "core/tensor.h"
#include "profiler/memory_category.h"

namespace ember::optim {

// An optimizer's options (SGDOptions, AdamOptions, AdamWOptions), as libtorch's: each group holds a
// copy, so that one group's learning rate can differ from another's.
class OptimizerOptions {
 public:
  virtual ~OptimizerOptions() = default;
  virtual std::unique_ptr<OptimizerOptions> clone() const = 0;
  virtual double get_lr() const = 0;
  virtual void set_lr(double lr) = 0;
};

template <typename Derived>
class OptimizerCloneableOptions : public OptimizerOptions {
 public:
  std::unique_ptr<OptimizerOptions> clone() const override {
    return std::make_unique<Derived>(static_cast<const Derived&>(*this));
  }
  double get_lr() const override { return static_cast<const Derived&>(*this).lr(); }
  void set_lr(double lr) override { static_cast<Derived&>(*this).lr(lr); }
};

// A state tensor by torch's name ("momentum_buffer", "exp_avg", ...), in PyTorch's order; an
// undefined one is torch's None (SGD's momentum buffer without momentum).
using NamedTensors = std::vector<std::pair<std::string, Tensor>>;

// What an optimizer keeps for one parameter (SGDParamState, AdamParamState), as libtorch's, and
// what torch's optimizer.state[p] dict holds: its tensors by name.
class OptimizerParamState {
 public:
  virtual ~OptimizerParamState() = default;
  virtual std::unique_ptr<OptimizerParamState> clone() const = 0;
  virtual NamedTensors named_tensors() const = 0;
  virtual void set_tensor(const std::string& name, Tensor value) = 0;
};

// Some parameters and, once the optimizer holds them, their options (libtorch's: a group made
// without options is given the optimizer's defaults by add_param_group).
class OptimizerParamGroup {
 public:
  OptimizerParamGroup(std::vector<Tensor> params) : params_(std::move(params)) {}
  OptimizerParamGroup(std::vector<Tensor> params, std::unique_ptr<OptimizerOptions> options)
      : params_(std::move(params)),
        options_(std::move(options)) {}
  OptimizerParamGroup(const OptimizerParamGroup& other)
      : params_(other.params_),
        options_(other.has_options() ? other.options_->clone() : nullptr) {}

  bool has_options() const { return options_ != nullptr; }
  OptimizerOptions& options();
  const OptimizerOptions& options() const;
  void set_options(std::unique_ptr<OptimizerOptions> options) { options_ = std::move(options); }
  std::vector<Tensor>& params() { return params_; }
  const std::vector<Tensor>& params() const { return params_; }

 private:
  std::vector<Tensor> params_;
  std::unique_ptr<OptimizerOptions> options_;
};

// torch's optimizer.state_dict(), as plain data: the state of each parameter by its number (counted
// across the groups, in order), and each group's options with its parameters' numbers.
struct OptimizerStateDict {
  struct ParamGroup {
    std::shared_ptr<const OptimizerOptions> options;
    std::vector<int64_t> params;
  };
  std::map<int64_t, NamedTensors> state;
  std::vector<ParamGroup> param_groups;
};

class Optimizer {
 public:
  virtual ~Optimizer() = default;
  Optimizer(const Optimizer&) = delete;  // the state belongs to these parameters: not to be copied
  Optimizer& operator=(const Optimizer&) = delete;

  // One update of every parameter that has a gradient, with its group's options, in place under
  // no_grad (each bumps the parameter's version counter).
  virtual void step() = 0;
  // Zeroes every parameter's .grad in place (PyTorch 1.13's default), or drops it (set_to_none).
  void zero_grad(bool set_to_none = false);
  // Adds a group, given the defaults where it has no options of its own.
  void add_param_group(const OptimizerParamGroup& param_group);
  // Every parameter, group after group.
  std::vector<Tensor> parameters() const;
  OptimizerOptions& defaults() { return *defaults_; }
  const OptimizerOptions& defaults() const { return *defaults_; }
  std::vector<OptimizerParamGroup>& param_groups() { return param_groups_; }
  const std::vector<OptimizerParamGroup>& param_groups() const { return param_groups_; }
  // By the parameter's TensorImpl (libtorch keys it by the same pointer, printed); a parameter
  // has state from its first step.
  std::map<const TensorImpl*, std::unique_ptr<OptimizerParamState>>& state() { return state_; }
  const std::map<const TensorImpl*, std::unique_ptr<OptimizerParamState>>& state() const { return state_; }

  // The state's tensors are the optimizer's own (as torch's); load_state_dict copies what it is
  // given, each to its parameter's dtype and device (the step count stays as it was).
  OptimizerStateDict state_dict() const;
  void load_state_dict(const OptimizerStateDict& state_dict);

 protected:
  // libtorch's constructors: the defaults (which the subclass has checked), then each group; a plain
  // list is one group, which PyTorch refuses when it is empty.
  Optimizer(std::vector<OptimizerParamGroup> param_groups, std::unique_ptr<OptimizerOptions> defaults);
  Optimizer(std::vector<Tensor> parameters, std::unique_ptr<OptimizerOptions> defaults);
  // An empty state for one parameter, which load_state_dict fills.
  virtual std::unique_ptr<OptimizerParamState> make_param_state() const = 0;
  // A step's loop, under no_grad: update(param, its group's options, its state) for each parameter
  // that has a gradient. A parameter's state is made (make_param_state) when it first gets here.
  // While a profile records memory, each step says what the parameter and its state are for.
  template <typename Options, typename State, typename Update>
  void update_each(Update update) {
    NoGradGuard no_grad;
    for (OptimizerParamGroup& group : param_groups_) {
      const auto& options = static_cast<const Options&>(group.options());
      for (Tensor& param : group.params()) {
        if (!param.grad().defined()) continue;
        std::unique_ptr<OptimizerParamState>& state = state_[param.impl()];
        if (!state) state = make_param_state();
        update(param, options, static_cast<State&>(*state));
        if (profiler::detail::tagging_memory.load(std::memory_order_relaxed)) [[unlikely]]
          tag_memory(param, *state);
      }
    }
  }

 private:
  static void tag_memory(const Tensor& param, const OptimizerParamState& state);  // memory_category.h
  std::vector<OptimizerParamGroup> param_groups_;
  std::map<const TensorImpl*, std::unique_ptr<OptimizerParamState>> state_;
  std::unique_ptr<OptimizerOptions> defaults_;
};

template <typename Derived>
class OptimizerCloneableParamState : public OptimizerParamState {
 public:
  std::unique_ptr<OptimizerParamState> clone() const override {
    return std::make_unique<Derived>(static_cast<const Derived&>(*this));
  }
};

}  // namespace ember::optim
