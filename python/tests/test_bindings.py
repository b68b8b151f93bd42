"""The two doors stay in step: every public function of ember's C++ API (engine/api/ops.h and
random.h) and every public method of its Tensor (engine/core/tensor.h) is reachable from Python by
PyTorch's name, or is named below as deliberately C++-only, with the reason. A new op that is not
bound fails here, not months later in a user's script."""
import os
import re

import ember
import ember.nn.functional as F
from op_reference_tool import op_reference

# C++ functions with no Python function of the same name, and why.
CPP_ONLY = {
    "add_out": "torch.add(..., out=) in Python", "sub_out": "torch.sub(..., out=)", "mul_out": "torch.mul(..., out=)",
    "div_out": "torch.div(..., out=)", "mm_out": "torch.mm(..., out=) is not bound yet",
    "matmul_out": "torch.matmul(..., out=) is not bound yet",
    "from_blob": "a C++ pointer; Python uses torch.from_numpy", "from_vector": "C++'s std::vector; Python uses tensor()",
    "as_strided": "C++-internal view by layout (ember's named views record autograd)",
    "as_strided_recorded": "autograd's internal view by layout", "unsafe_view": "reshape's internal step",
    "squeeze_in_place": "matmul's internal step",
    "nll_loss_backward": "a formula's kernel-level op", "threshold_backward": "a formula's kernel-level op",
    "nll_loss2d_backward": "a formula's kernel-level op",
    "nll_loss_nd": "torch.nn.functional.nll_loss (torch._C._nn.nll_loss_nd)",
    "nll_loss2d": "torch.nn.functional.nll_loss of a 4-D input (torch._C._nn.nll_loss2d)",
    "rsub": "Python's `number - tensor` (__rsub__)", "scalar_tensor": "Python's tensor(number)",
    "bernoulli_": "Tensor.bernoulli_", "normal_": "Tensor.normal_", "uniform_": "Tensor.uniform_",
    "random_": "Tensor.random_",
    "linear": "torch.nn.functional.linear", "layer_norm": "torch.nn.functional.layer_norm",
    "mse_loss": "torch.nn.functional.mse_loss", "nll_loss": "torch.nn.functional.nll_loss",
    "cross_entropy": "torch.nn.functional.cross_entropy", "dropout": "torch.nn.functional.dropout",
}

# Tensor methods of the C++ API that Python spells differently, and how.
CPP_ONLY_METHODS = {
    "defined": "an undefined tensor is None in Python", "impl": "C++'s handle", "impl_ptr": "C++'s handle",
    "is_same": "Python's `is`", "sizes": "Tensor.size() / .shape", "strides": "Tensor.stride()",
    "data_ptr": "Tensor.data_ptr() (an int)", "raw_data": "Tensor.data_ptr()", "item": "Tensor.item()",
    "to_vector": "Tensor.tolist()", "mutable_grad": "assigning Tensor.grad", "grad": "the Tensor.grad property",
    "grad_fn": "the Tensor.grad_fn property", "is_leaf": "the Tensor.is_leaf property",
    "requires_grad": "the Tensor.requires_grad property", "set_data": "assigning Tensor.data",
    "data": "the Tensor.data property", "str": "repr()", "tolist_str": "repr(t.tolist())",
    "scalar_type": "Tensor.dtype", "slice": "Python's t[a:b:c]", "_version": "the Tensor._version property",
    "_base": "the Tensor._base property", "resize_": "Tensor.resize_(*sizes)", "to": "Tensor.to(...)",
    "toString": "libtorch's type name; Python's is Tensor.type()", "options": "Python passes dtype=, device=",
    "accessor": "C++'s checked element access; Python indexes", "index": "Python's t[...]",
    "index_put_": "Python's t[...] = value",
    "view_dtype": "Tensor.view(dtype) (C++'s view(DType) forwards to it)",
}


cpp_functions = op_reference.cpp_functions  # the headers' public names, as docs/ops.md lists them
cpp_methods = op_reference.cpp_methods


# at::autocast's names (engine/autocast/autocast.h) and torch's Python names for them, where they differ.
AUTOCAST_PYTHON_NAMES = {
    "is_enabled": "is_autocast_enabled", "set_enabled": "set_autocast_enabled",
    "is_cpu_enabled": "is_autocast_cpu_enabled", "set_cpu_enabled": "set_autocast_cpu_enabled",
    "clear_cache": "clear_autocast_cache", "increment_nesting": "autocast_increment_nesting",
    "decrement_nesting": "autocast_decrement_nesting",
}
AUTOCAST_CPP_ONLY = {
    "get_dtype": "C++'s state by DeviceType; Python has torch's per-device names",
    "set_dtype": "C++'s state by DeviceType; Python has torch's per-device names",
    "cache_size": "a count for C++ tests",
}


def autocast_functions():
    with open(os.path.join(op_reference.ROOT, "engine/autocast/autocast.h")) as text:
        header = text.read()
    public = header[header.index("namespace autocast {"):header.index("// ---- for the dispatcher ----")]
    return set(re.findall(r"^(?:[\w:]+\s+)(\w+)\(", public, re.MULTILINE))


def test_every_public_function_has_a_python_function():
    missing = [name for name in sorted(cpp_functions())
               if name not in CPP_ONLY and not hasattr(ember, name) and not hasattr(F, name)]
    assert missing == [], f"ops without a Python function (bind them, or list them in CPP_ONLY with why): {missing}"


def test_every_public_tensor_method_has_a_python_method():
    missing = [name for name in sorted(cpp_methods())
               if name not in CPP_ONLY_METHODS and not hasattr(ember.Tensor, name)]
    assert missing == [], f"Tensor methods without a Python method (bind them, or list them): {missing}"


def test_the_lists_of_cpp_only_names_name_real_functions():
    assert set(CPP_ONLY) <= cpp_functions(), sorted(set(CPP_ONLY) - cpp_functions())
    assert set(CPP_ONLY_METHODS) <= cpp_methods(), sorted(set(CPP_ONLY_METHODS) - cpp_methods())


def test_every_autocast_function_has_its_torch_name():
    missing = [name for name in sorted(autocast_functions()) if name not in AUTOCAST_CPP_ONLY
               and not hasattr(ember, AUTOCAST_PYTHON_NAMES.get(name, name))]
    assert missing == [], f"autocast functions without their torch name in Python: {missing}"
    assert set(AUTOCAST_CPP_ONLY) <= autocast_functions()


# torch 1.13's profiler and autocast names, with their parameters as inspect.signature lists them.
TORCH_SIGNATURES = {
    "profiler.profile": ["activities", "schedule", "on_trace_ready", "record_shapes", "profile_memory", "with_stack",
                         "with_flops", "with_modules", "experimental_config", "use_cuda"],
    "profiler.schedule": ["wait", "warmup", "active", "repeat", "skip_first"],
    "profiler.record_function": ["name", "args"], "profiler.supported_activities": [],
    "autograd.profiler.record_function": ["name", "args"],
    "autograd.profiler.emit_nvtx": ["enabled", "record_shapes"],
    "autograd.profiler.profile": ["enabled", "use_cuda", "record_shapes", "with_flops", "profile_memory",
                                  "with_stack", "with_modules", "use_kineto", "use_cpu", "experimental_config"],
    "autocast": ["device_type", "dtype", "enabled", "cache_enabled"],
    "cpu.amp.autocast": ["enabled", "dtype", "cache_enabled"], "cuda.amp.autocast": ["enabled", "dtype", "cache_enabled"],
}


def test_the_profiler_and_autocast_names_take_torchs_parameters():
    import functools
    import inspect
    for dotted, parameters in TORCH_SIGNATURES.items():
        target = functools.reduce(getattr, dotted.split("."), ember)
        signature = inspect.signature(target.__init__ if inspect.isclass(target) else target)
        assert [p for p in signature.parameters if p != "self"] == parameters, dotted
