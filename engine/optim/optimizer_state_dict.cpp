// Optimizer::state_dict and load_state_dict (optimizer.h), as torch/optim/optimizer.py's: the
// parameters are numbered across the groups in order, which is all that ties a saved state to the
// parameters of the optimizer that loads it; so a group count or a group size that differs is
// refused with PyTorch's texts before anything is changed.
#include "optimizer.h"

namespace ember::optim {

OptimizerStateDict Optimizer::state_dict() const {
  OptimizerStateDict saved;
  int64_t index = 0;
  for (const OptimizerParamGroup& group : param_groups_) {
    OptimizerStateDict::ParamGroup& saved_group = saved.param_groups.emplace_back();
    saved_group.options = group.options().clone();
    for (const Tensor& p : group.params()) {
      auto found = state_.find(p.impl());
      if (found != state_.end()) saved.state[index] = found->second->named_tensors();
      saved_group.params.push_back(index++);
    }
  }
  return saved;
}

void Optimizer::load_state_dict(const OptimizerStateDict& state_dict) {
  EMBER_CHECK(state_dict.param_groups.size() == param_groups_.size(),
              "loaded state dict has a different number of parameter groups");
  for (size_t g = 0; g < param_groups_.size(); ++g)
    EMBER_CHECK(state_dict.param_groups[g].params.size() == param_groups_[g].params().size(),
                "loaded state dict contains a parameter group that doesn't match the size of optimizer's group");
  std::map<const TensorImpl*, std::unique_ptr<OptimizerParamState>> state;
  for (size_t g = 0; g < param_groups_.size(); ++g) {
    const OptimizerStateDict::ParamGroup& saved_group = state_dict.param_groups[g];
    for (size_t i = 0; i < saved_group.params.size(); ++i) {
      auto saved = state_dict.state.find(saved_group.params[i]);
      if (saved == state_dict.state.end()) continue;
      const Tensor& param = param_groups_[g].params()[i];
      std::unique_ptr<OptimizerParamState> param_state = make_param_state();
      for (const auto& [name, value] : saved->second) {
        Tensor copy = value.defined() ? value.clone() : value;  // PyTorch deep-copies the state dict it loads
        if (copy.defined() && name != "step") {                 // the step count keeps its dtype and device
          if (param.is_floating_point()) copy = copy.to(param.dtype());
          copy = copy.to(param.device());
        }
        param_state->set_tensor(name, copy);
      }
      state[param.impl()] = std::move(param_state);
    }
  }
  for (size_t g = 0; g < param_groups_.size(); ++g)  // a group saved without options keeps its own
    if (state_dict.param_groups[g].options) param_groups_[g].set_options(state_dict.param_groups[g].options->clone());
  state_ = std::move(state);
}

}  // namespace ember::optim
