// var_mean: the variance and the mean of a tensor over some dims (all of them by default), in one
// op with two outputs and one node, VarMeanBackward0, as PyTorch's. The variance divides by
// N - correction (Bessel's correction: 1 when unbiased, PyTorch's default).
#include "api/new_tensors.h"
#include "dispatch.h"

namespace ember {

using namespace autograd;  // the backward nodes

namespace {

struct VarMean : FunctionalOp {
  static constexpr const char* name = "aten::var_mean";
  static constexpr CastPolicy cast_policy = CastPolicy::Fp32;
  static std::vector<Tensor> compute(const Tensor& self, const std::optional<Dims>& dims, int64_t correction,
                                     bool keepdim) {
    EMBER_CHECK(self.is_floating_point(), "std and var only support floating point and complex dtypes");
    const Dims over = dims.value_or(Dims());
    const Tensor mean_kept = self.mean(over, /*keepdim=*/true);
    const Tensor squares = (self - mean_kept).pow(2).sum(over, keepdim);
    const int64_t count = squares.numel() == 0 ? 0 : self.numel() / squares.numel();
    const double divisor = std::max<double>(static_cast<double>(count - correction), 0.0);
    return {squares / divisor, keepdim ? mean_kept : self.mean(over, false)};
  }
  static VarMeanBackward0 save(const std::vector<Tensor>&, const Tensor& self, const std::optional<Dims>& dims,
                               int64_t correction, bool keepdim) {
    return {self, dims.value_or(Dims()), correction, keepdim};
  }
};

}  // namespace

std::tuple<Tensor, Tensor> var_mean(const Tensor& self, const std::optional<Dims>& dims, bool unbiased, bool keepdim) {
  const std::vector<Tensor> result = call<VarMean>(self, dims, int64_t{unbiased ? 1 : 0}, keepdim);
  return {result[0], result[1]};
}

}  // namespace ember
