"""Which of PyTorch's own test methods run against ember, and why the others do not.

The rule (issue 35): from PyTorch 1.13.1's test/test_autograd.py, the whole TestAutogradInferenceMode
class, and every method of the other classes whose name mentions one of WORDS, the autograd
features ember claims. Every method the rule picks runs, unless EXCLUDED names it, and a reason in
EXCLUDED may only be a feature the README's "What ember is not" says ember does not have. A method
that runs and fails is listed, with its cause, in expected_failures.txt.
"""

FILES = ["test_autograd.py"]

WHOLE_CLASSES = {"TestAutogradInferenceMode"}

WORDS = ["version", "inplace", "view", "base", "no_grad", "grad_mode", "set_grad_enabled", "retain_grad", "hook",
         "saved_tensors", "anomaly", "accumulate", "leaf", "requires_grad", "detach", "grad_fn", "next_functions",
         "create_graph", "gradcheck"]

# The features of "What ember is not" (README.md) that a reason names.
SPARSE = "sparse tensors"
COMPLEX = "complex numbers"
FORWARD_AD = "forward-mode AD (torch.autograd.forward_ad, dual tensors, jvp)"
MKLDNN = "the MKL-DNN (opaque) tensor layout"
LEGACY_TYPES = "the legacy typed tensor classes (torch.FloatTensor, t.type(...))"
TENSOR_INDEXING = "indexing by tensors (a[:, indices])"
MISSING_OPS = "convolution-family and other ops outside ember's list (interpolate, pdist, logit, linalg.qr)"
MULTI_GPU = "several GPUs (DataParallel)"
SMALL_INTEGERS = "the int8, int16 and int32 dtypes"
NORMALIZATION = "batch_norm and instance_norm (nn.BatchNorm1d, nn.InstanceNorm2d)"
TEST_ONLY_OPS = "PyTorch's test-only operators (torch._test_autograd_multiple_dispatch_*)"

EXCLUDED = {
    # whole classes the rule reaches through method names
    "TestAutogradForwardMode": FORWARD_AD,
    "TestAutogradForwardModeBatchedGrad": FORWARD_AD,
    # TestAutograd
    "TestAutograd.test_accumulate_grad_tensor_reference": SPARSE,
    "TestAutograd.test_no_grad_copy_sparse": SPARSE,
    "TestAutograd.test_gradcheck_sparse_input": SPARSE,
    "TestAutograd.test_gradcheck_sparse_csr_input": SPARSE,
    "TestAutograd.test_gradcheck_validates_inputs": SPARSE,
    "TestAutograd.test_gradcheck_test_outputs": SPARSE,
    "TestAutograd.test_gradcheck_check_batched_grad": SPARSE,
    "TestAutograd.test_gradcheck_backward_mul_by_grad_output": SPARSE,
    "TestAutograd.test_gradcheck_dense_and_sparse_inputs": SPARSE,
    "TestAutograd.test_gradcheck_jacobian_mismatch": COMPLEX,
    "TestAutograd.test_gradcheck_complex_non_complex_outputs": COMPLEX,
    "TestAutograd.test_autograd_inplace_views_cross_dtype": COMPLEX,
    "TestAutograd.test_named_tensor_for_complex_views": COMPLEX,
    "TestAutograd.test_autograd_simple_views_python": COMPLEX,
    "TestAutograd.test_first_grad_fn_access_in_no_grad_mode": COMPLEX,
    "TestAutograd.test_hooks_cpp": NORMALIZATION,
    "TestAutograd.test_inplace_on_view_backward": NORMALIZATION,
    "TestAutograd.test_grad_fn_attr_bindings": f"{COMPLEX}; {TENSOR_INDEXING}; {MISSING_OPS}",
    "TestAutograd.test_gradcheck_forward_ad": FORWARD_AD,
    "TestAutograd.test_gradcheck_forward_ad_runs_with_no_requires_grad": FORWARD_AD,
    "TestAutograd.test_gradcheck_forward_ad_respects_requires_grad": FORWARD_AD,
    "TestAutograd.test_gradcheck_check_forward_or_backward_only": FORWARD_AD,
    "TestAutograd.test_gradcheck_forward_ad_batched_grad": FORWARD_AD,
    "TestAutograd.test_custom_function_forward_mode_view_checks": FORWARD_AD,
    "TestAutograd.test_custom_function_forward_mode_inplace_checks": FORWARD_AD,
    "TestAutograd.test_gradcheck_validates_input_mkldnn": f"{MKLDNN}; {FORWARD_AD}",
    "TestAutograd.test_gradcheck_multiple_mkldnn_inputs": MKLDNN,
    "TestAutograd.test_type_conversions": LEGACY_TYPES,
    # TestAutogradDeviceType (instantiated for the CPU; a dtype ember lacks excludes that variant only)
    "TestAutogradDeviceType.test_gradcheck_input_output_different_device": "a CUDA GPU (the test is onlyCUDA)",
    "TestAutogradDeviceTypeCPU.test_set_requires_grad_only_for_floats_cpu_int8": SMALL_INTEGERS,
    "TestAutogradDeviceTypeCPU.test_set_requires_grad_only_for_floats_cpu_int16": SMALL_INTEGERS,
    "TestAutogradDeviceTypeCPU.test_set_requires_grad_only_for_floats_cpu_int32": SMALL_INTEGERS,
    # TestMultithreadAutograd, TestAutogradMultipleDispatch
    "TestMultithreadAutograd.test_dataparallel_saved_tensors_hooks": MULTI_GPU,
    "TestAutogradMultipleDispatch.test_view_copy": TEST_ONLY_OPS,
}


def selected(class_name, method_name):
    """Whether the rule picks the method (before EXCLUDED is applied)."""
    if not method_name.startswith("test_"):
        return False
    return class_name in WHOLE_CLASSES or any(word in method_name for word in WORDS)


def exclusion(class_name, method_name, test_id=None):
    """The reason the method (or this instantiation of it, `test_id`) does not run, or None."""
    return EXCLUDED.get(class_name) or EXCLUDED.get(f"{class_name}.{method_name}") or EXCLUDED.get(test_id)


# The groups the runner counts by, for the closing notes; each test falls in the first that matches.
GROUPS = ["inference mode", "anomaly mode", "hooks and saved tensors", "version counters, views and in-place",
          "grad, create_graph and gradcheck", "other"]


def group_of(test_id):
    class_name, _, method = test_id.partition(".")
    if class_name == "TestAutogradInferenceMode":
        return "inference mode"
    if "anomaly" in method:
        return "anomaly mode"
    if "hook" in method or "saved" in method:
        return "hooks and saved tensors"
    if any(word in method for word in ("version", "view", "inplace", "base", "detach")):
        return "version counters, views and in-place"
    if any(word in method for word in ("grad", "create_graph")):
        return "grad, create_graph and gradcheck"
    return "other"
