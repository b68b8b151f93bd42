"""torch.testing._internal.common_cuda: whether CUDA tests can run."""
import torch

TEST_CUDA = torch.cuda.is_available()
TEST_MULTIGPU = TEST_CUDA and torch.cuda.device_count() >= 2
