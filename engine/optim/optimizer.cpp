// The optimizers' common part (optimizer.h), as torch/optim/optimizer.py and libtorch's optimizer.cpp:
// the groups, the per-parameter state, zero_grad.
#include "optimizer.h"

#include <set>

#include "core/grad_mode.h"

namespace ember::optim {

void Optimizer::tag_memory(const Tensor& param, const OptimizerParamState& state) {
  profiler::tag_memory(param, profiler::MemoryCategory::Parameter);
  for (const auto& [name, tensor] : state.named_tensors())
    profiler::tag_memory(tensor, profiler::MemoryCategory::OptimizerState);
}

// libtorch's text (its TORCH_CHECK(has_options()), as libtorch_cpu.so 1.13 holds it).
constexpr const char* kNoOptions =
    "Expected has_options() to be true, but got false.  (Could this error message be improved?  If so, please "
    "report an enhancement request to PyTorch.)";

OptimizerOptions& OptimizerParamGroup::options() {
  EMBER_CHECK(has_options(), kNoOptions);
  return *options_;
}

const OptimizerOptions& OptimizerParamGroup::options() const {
  EMBER_CHECK(has_options(), kNoOptions);
  return *options_;
}

Optimizer::Optimizer(std::vector<OptimizerParamGroup> param_groups, std::unique_ptr<OptimizerOptions> defaults)
    : defaults_(std::move(defaults)) {
  for (const OptimizerParamGroup& group : param_groups) add_param_group(group);
}

Optimizer::Optimizer(std::vector<Tensor> parameters, std::unique_ptr<OptimizerOptions> defaults)
    : defaults_(std::move(defaults)) {
  EMBER_CHECK(!parameters.empty(), "optimizer got an empty parameter list");
  add_param_group(OptimizerParamGroup(std::move(parameters)));
}

void Optimizer::add_param_group(const OptimizerParamGroup& param_group) {
  for (const Tensor& p : param_group.params()) EMBER_CHECK(p.is_leaf(), "can't optimize a non-leaf Tensor");
  std::set<const TensorImpl*> held;
  for (const OptimizerParamGroup& group : param_groups_)
    for (const Tensor& p : group.params()) held.insert(p.impl());
  for (const Tensor& p : param_group.params())
    EMBER_CHECK(!held.count(p.impl()), "some parameters appear in more than one parameter group");
  param_groups_.emplace_back(param_group.params(),
                             param_group.has_options() ? param_group.options().clone() : defaults_->clone());
}

std::vector<Tensor> Optimizer::parameters() const {
  std::vector<Tensor> all;
  for (const OptimizerParamGroup& group : param_groups_)
    all.insert(all.end(), group.params().begin(), group.params().end());
  return all;
}

void Optimizer::zero_grad(bool set_to_none) {
  NoGradGuard no_grad;
  for (Tensor& p : parameters()) {
    if (set_to_none) p.mutable_grad() = Tensor();
    else if (p.grad().defined()) p.grad().zero_();
  }
}

}  // namespace ember::optim
