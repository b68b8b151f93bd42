// The one table of where ember's profile differs from PyTorch 1.13's, and why.
// Why a table: ember records the calls ATen's ops make inside themselves wherever ember's op takes
// the same step (steps.h: clone's empty_like and copy_, transpose's as_strided, relu's clamp_min),
// so a profile reads as PyTorch's and a composite's self time holds only its own work. Where
// ember's kernel fuses a step ATen takes as a separate call, or has no such step, PyTorch's call is
// missing from ember's profile. Each such call is a row here, and nothing else may differ: the
// tests compare ember's event trees with PyTorch's (tests/fixtures/profiler.json) leaving out
// exactly these rows, and check that every row matches a call PyTorch really makes.
#pragma once

namespace ember::profiler {

struct DocumentedDifference {
  const char* name;   // the event PyTorch records and ember does not
  const char* under;  // only directly inside this event; "" wherever it appears
  const char* why;
};

inline constexpr DocumentedDifference kDocumentedDifferences[] = {
    {"aten::resolve_conj", "",
     "ember has no complex tensors, so no lazily conjugated operands for a product to resolve"},
    {"aten::copy_", "aten::addmm",
     "ATen's addmm copies the bias into its output, then multiplies with beta = 1; ember hands linear's bias row to "
     "the oneDNN matmul as its bias argument, fused (linalg.cpp). Any other addend is copied, and recorded"},
    {"aten::fill_", "aten::sum",
     "ATen's reductions first fill their output with the identity; ember's reduction kernel writes each result "
     "once, without a fill"},
    {"aten::as_strided", "aten::sum",
     "ATen's full reduction makes its output with the reduced dims kept and restrides it; ember's allocates it in "
     "its final shape"},
    {"aten::empty", "aten::nll_loss2d_forward",
     "ATen's nll_loss2d makes its output and total weight as empty tensors through the dispatcher, then resizes "
     "them; ember's allocates both in their final shape, as ATen's nll_loss_forward does"},
    {"aten::resize_", "aten::nll_loss2d_forward", "the resize of those outputs, which ember makes in their shape"},
    {"aten::to", "aten::log_softmax",
     "cross_entropy passes the input's own dtype to log_softmax, whose to() returns the input itself; ember's "
     "log_softmax takes no dtype"},
    {"aten::_log_softmax", "aten::log_softmax",
     "ATen's log_softmax is a composite over its kernel op _log_softmax; ember's log_softmax is one op"},
};

}  // namespace ember::profiler
