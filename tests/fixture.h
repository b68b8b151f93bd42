// Reading PyTorch reference fixtures (JSON written by tools/make_fixtures.py) and comparing
// ember's tensors with them.
#pragma once
#include <nlohmann/json.hpp>
#include <string>

#include "ember.h"

namespace fixture {

using nlohmann::json;

// The parsed contents of tests/fixtures/<name> (cached: each file is read once).
const json& load(const std::string& name);

// A tensor from a spec {"shape", "dtype", "data", "views"}: the base tensor, then the views
// recipe applied with ember's own view ops. With requires_grad the *base* is a leaf requiring
// grad (returned through `base`), so gradients can be compared with PyTorch's base.grad. The base
// is made on `device` (the CUDA tests run the same cases on the GPU).
ember::Tensor make(const json& spec, bool requires_grad = false, ember::Tensor* base = nullptr,
                   ember::Device device = ember::kCPU);
// Just the base tensor of a spec, ignoring its views.
ember::Tensor make_base(const json& spec);
ember::DType parse_dtype(const std::string& name);
// A spec's number: a JSON number or bool, or "nan"/"inf"/"-inf".
double number(const json& value);
// A list of sizes or dims.
ember::Dims dims_arg(const json& value);
// One step of a spec's views recipe (["transpose", 0, 1], ["slice", dim, start, end, step], ...).
ember::Tensor apply_view_step(const ember::Tensor& t, const json& step);

// Compares `actual` with an expected spec: same shape and dtype, values within tolerance
// (float32: rtol 1e-5, atol 1e-6; float64: rtol and atol 1e-12; bfloat16: rtol 8e-3; float16:
// rtol 1e-3; exact for integers and bool; NaN matches NaN).
// Returns an empty string when they match, else a description of the first difference.
std::string compare(const ember::Tensor& actual, const json& expected);
// The same with no tolerance: every value is PyTorch's, zeros with their sign (NaN matches NaN).
// For results PyTorch rounds once from an exact or float32 value, which ember must round alike.
std::string compare_exact(const ember::Tensor& actual, const json& expected);
// The same with both tolerances multiplied by `factor`: for results computed in another order
// (the GPU's reductions and products), never to hide a wrong answer on the CPU.
std::string compare_loosely(const ember::Tensor& actual, const json& expected, double factor);

// The message PyTorch gave for the named case in errors.json.
std::string torch_error(const std::string& name);
// The text of errors.json's warning `name`, without its "(Triggered internally at ...)" location.
std::string torch_warning(const std::string& name);

}  // namespace fixture
