// What a libtorch user reaches for when reading a number out of a tensor or printing what kind of
// tensor it is: item() returning a Scalar, the Scalar's checked conversions (to<T>(), toFloat(),
// ...), and `<<` for a Scalar, a dtype and a device, each as libtorch has them.
#include <catch2/catch.hpp>

#include <cmath>
#include <sstream>

#include "ember.h"
#include "fixture.h"

using namespace ember;
using fixture::torch_error;

namespace {
template <typename T>
std::string printed(const T& value) {
  std::ostringstream out;
  out << value;
  return out.str();
}
}  // namespace

TEST_CASE("item() without a type gives a Scalar of the tensor's kind, and to<T>() converts it", "[scalar]") {
  const Tensor loss = full({}, 0.1);
  const Scalar value = loss.item();
  CHECK(value.is_floating_point());
  CHECK(value.to<float>() == loss.item<float>());
  CHECK(value.toFloat() == loss.item<float>());
  CHECK(value.toDouble() == loss.item<double>());
  CHECK(full({1, 1}, 7, kInt64).item().is_integral());
  CHECK(full({1, 1}, 7, kInt64).item().toLong() == 7);
  CHECK(full({}, true, kBool).item().is_bool());
  CHECK(full({}, true, kBool).item().toBool());
  CHECK(full({}, 2.5, kBFloat16).item().to<double>() == 2.5);
  CHECK_THROWS_WITH(ones({2, 3}).item(), "a Tensor with 6 elements cannot be converted to Scalar");  // libtorch's text
}

TEST_CASE("a Scalar converts as libtorch's does: truncating, and refusing what the type cannot hold", "[scalar]") {
  CHECK(Scalar(2.75).toLong() == 2);
  CHECK(Scalar(-2.75).toInt() == -2);
  CHECK(Scalar(int64_t{1} << 40).toDouble() == 1099511627776.0);
  CHECK(Scalar((int64_t{1} << 62) + 1).toLong() == (int64_t{1} << 62) + 1);  // exact, where a double is not
  CHECK(Scalar((int64_t{1} << 62) + 1).toDouble() == 4611686018427387904.0);
  CHECK(Scalar(true).toDouble() == 1.0);
  CHECK(Scalar(true).to<float>() == 1.0f);
  CHECK(Scalar(0.5).toBool());
  CHECK_FALSE(Scalar(0).toBool());
  CHECK(std::isnan(Scalar(std::nan("")).toFloat()));
  CHECK(std::isinf(Scalar(INFINITY).toFloat()));
  CHECK_THROWS_WITH(Scalar(1e300).toFloat(), torch_error("clamp_bound_overflows_float"));
  CHECK_THROWS_WITH(Scalar(std::nan("")).toLong(), "value cannot be converted to type int64_t without overflow");
  CHECK_THROWS_WITH(Scalar(9.3e18).toLong(), "value cannot be converted to type int64_t without overflow");
  CHECK_THROWS_WITH(Scalar(int64_t{1} << 40).toInt(), torch_error("fill_int32_overflow"));
  CHECK_THROWS_WITH(Scalar(2147483648.0).to<int>(), torch_error("fill_int32_overflow"));
  CHECK(Scalar(-2147483648.0).to<int>() == -2147483647 - 1);
}

TEST_CASE("a Scalar, a dtype and a device print as libtorch prints them", "[scalar]") {
  CHECK(printed(Scalar(0.25)) == "0.25");
  CHECK(printed(Scalar(3)) == "3");
  CHECK(printed(Scalar(true)) == "true");
  CHECK(printed(full({}, 1.5).item()) == "1.5");
  CHECK(printed(kFloat32) == "Float");
  CHECK(printed(kFloat64) == "Double");
  CHECK(printed(kBFloat16) == "BFloat16");
  CHECK(printed(kFloat16) == "Half");
  CHECK(printed(kInt64) == "Long");
  CHECK(printed(ones({2}).scalar_type()) == "Float");
  CHECK(printed(ones({2}).device()) == "cpu");
  CHECK(printed(cuda_device(0)) == "cuda:0");
  CHECK(printed(Device("cuda:1")) == "cuda:1");
  CHECK(to_string(kFloat32) == "torch.float32");  // Python's spelling, kept for the chapter's printouts
}
