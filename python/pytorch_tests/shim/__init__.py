"""The project's own stand-in for PyTorch's test helpers (torch.testing._internal, torch.testing,
torch._six): what PyTorch's test files import besides torch itself, written over the public torch
API alone, so that the same helpers run the tests under ember and under real torch (which checks
them). Only what the selected tests use is here."""
