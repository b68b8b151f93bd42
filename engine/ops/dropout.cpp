// dropout as PyTorch 1.13's CPU _dropout_impl does it: a noise tensor of 0s and 1s from
// bernoulli_(1 - p), scaled by 1 / (1 - p), multiplied into the input. Written with the public ops
// so autograd records one MulBackward0 and the generator advances exactly as PyTorch's does (one
// float64 uniform, two 32-bit draws, per element). PyTorch's CUDA dropout is a fused kernel
// with its own random stream; ember's CUDA tensors take this same path.
#include "api/random.h"
#include "dispatch.h"
#include "printing.h"

namespace ember {

namespace {
struct Dropout : CompositeOp {
  static constexpr const char* name = "aten::dropout";
  static Tensor compute(const Tensor& input, double p, bool training) {
    EMBER_CHECK(p >= 0 && p <= 1, "dropout probability has to be between 0 and 1, but got ",
                internal::python_float_repr(p));
    if (p == 0 || !training || input.numel() == 0) return input;
    if (p == 1) return input * zeros({}, input.options());
    // Row-major whatever the input's layout (PyTorch's LEGACY_CONTIGUOUS_MEMORY_FORMAT), so the
    // mask is drawn in the input's logical order.
    Tensor noise = empty(input.sizes(), input.options());
    bernoulli_(noise, 1 - p);
    noise.div_(1 - p);
    return input * noise;
  }
};
}  // namespace

Tensor dropout(const Tensor& input, double p, bool training) { return call<Dropout>(input, p, training); }

}  // namespace ember
