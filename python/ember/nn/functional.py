"""torch.nn.functional: ember's functions of engine/api/ops.h (nn_functional.cpp)."""
from .._C._functional import (relu, sigmoid, tanh, softmax, log_softmax, linear, layer_norm, mse_loss,  # noqa: F401
                              nll_loss, cross_entropy, dropout)
