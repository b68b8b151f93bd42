// Fixture loading and comparison (see fixture.h).
#include "fixture.h"

#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

namespace fixture {

using namespace ember;

const json& load(const std::string& name) {
  static std::map<std::string, json> cache;
  auto found = cache.find(name);
  if (found != cache.end()) return found->second;
  std::ifstream in(std::string(EMBER_FIXTURE_DIR) + "/" + name);
  if (!in) throw std::runtime_error("missing fixture file " + name + " (regenerate with tools/make_fixtures.py)");
  return cache[name] = json::parse(in);
}

DType parse_dtype(const std::string& name) {
  if (name == "float32") return kFloat32;
  if (name == "float64") return kFloat64;
  if (name == "bfloat16") return kBFloat16;
  if (name == "float16") return kFloat16;
  if (name == "int64") return kInt64;
  if (name == "bool") return kBool;
  if (name == "uint8") return kUInt8;
  if (name == "int8") return kInt8;
  if (name == "int16") return kInt16;
  if (name == "int32") return kInt32;
  throw std::runtime_error("unknown dtype " + name);
}

double number(const json& v) {
  if (v.is_string()) {
    const std::string s = v.get<std::string>();
    if (s == "nan") return std::nan("");
    if (s == "inf") return INFINITY;
    if (s == "-inf") return -INFINITY;
    throw std::runtime_error("bad number " + s);
  }
  if (v.is_boolean()) return v.get<bool>() ? 1.0 : 0.0;
  return v.get<double>();
}

Dims dims_arg(const json& list) {
  std::vector<int64_t> values;
  for (const json& v : list) values.push_back(v.get<int64_t>());
  return Dims(values);
}

Tensor apply_view_step(const Tensor& t, const json& step) {
  const std::string kind = step[0].get<std::string>();
  if (kind == "t") return t.t();
  if (kind == "transpose") return t.transpose(step[1], step[2]);
  if (kind == "permute") return t.permute(dims_arg(step[1]));
  if (kind == "slice") return t.slice(step[1], step[2], step[3], step[4]);
  if (kind == "select") return t.select(step[1], step[2]);
  if (kind == "expand") return t.expand(dims_arg(step[1]));
  if (kind == "unsqueeze") return t.unsqueeze(step[1]);
  if (kind == "squeeze") return t.squeeze(step[1].get<int64_t>());
  if (kind == "view") return t.view(dims_arg(step[1]));
  if (kind == "reshape") return t.reshape(dims_arg(step[1]));
  if (kind == "flatten") return t.flatten(step[1], step[2]);
  if (kind == "narrow") return t.narrow(step[1], step[2], step[3]);
  if (kind == "contiguous") return t.contiguous();
  throw std::runtime_error("unknown view step " + kind);
}

Tensor make_base(const json& spec) {
  const DType dtype = parse_dtype(spec["dtype"]);
  std::vector<double> values;
  for (const json& v : spec["data"]) values.push_back(number(v));
  const Dims shape = dims_arg(spec["shape"]);
  if (is_integral(dtype, false)) {
    std::vector<int64_t> ints;
    for (const json& v : spec["data"]) ints.push_back(v.get<int64_t>());
    return from_vector(ints, shape, dtype);
  }
  return from_vector(values, shape, dtype);
}

Tensor make(const json& spec, bool requires_grad, Tensor* base_out, Device device) {
  Tensor base = device.is_cpu() ? make_base(spec) : make_base(spec).to(device);
  if (requires_grad && base.is_floating_point()) base.requires_grad_();
  if (base_out) *base_out = base;
  Tensor t = base;
  if (spec.contains("views"))
    for (const json& step : spec["views"]) t = apply_view_step(t, step);
  return t;
}

namespace {

std::string compare_within(const Tensor& actual, const json& expected, bool exact, double factor = 1) {
  std::ostringstream why;
  const Dims shape = dims_arg(expected["shape"]);
  const DType dtype = parse_dtype(expected["dtype"]);
  if (actual.sizes() != shape) {
    why << "shape " << to_string(actual.sizes()) << " != expected " << to_string(shape);
    return why.str();
  }
  if (actual.dtype() != dtype) {
    why << "dtype " << to_string(actual.dtype()) << " != expected " << to_string(dtype);
    return why.str();
  }
  if (is_integral(dtype, false)) {  // as int64: a double holds every integer only up to 2^53
    const std::vector<int64_t> got = actual.to_vector<int64_t>();
    for (size_t i = 0; i < got.size(); ++i)
      if (got[i] != expected["data"][i].get<int64_t>()) {
        why << "element " << i << ": " << got[i] << " != expected " << expected["data"][i].get<int64_t>();
        return why.str();
      }
    return "";
  }
  const std::vector<double> got = actual.to_vector<double>();
  double rtol = 0, atol = 0;
  if (!exact && dtype == kFloat32) rtol = 1e-5, atol = 1e-6;
  if (!exact && dtype == kFloat64) rtol = 1e-12, atol = 1e-12;
  if (!exact && dtype == kBFloat16) rtol = 8e-3, atol = 1e-5;
  if (!exact && dtype == kFloat16) rtol = 1e-3, atol = 1e-5;
  rtol *= factor;
  atol *= factor;
  for (size_t i = 0; i < got.size(); ++i) {
    const double want = number(expected["data"][i]);
    if (std::isnan(want) && std::isnan(got[i])) continue;
    if (got[i] == want && (!exact || std::signbit(got[i]) == std::signbit(want))) continue;
    if (!exact && std::fabs(got[i] - want) <= atol + rtol * std::fabs(want)) continue;
    why.precision(17);
    why << "element " << i << ": " << got[i] << " != expected " << want;
    return why.str();
  }
  return "";
}

}  // namespace

std::string compare(const Tensor& actual, const json& expected) { return compare_within(actual, expected, false); }

std::string compare_exact(const Tensor& actual, const json& expected) { return compare_within(actual, expected, true); }

std::string compare_loosely(const Tensor& actual, const json& expected, double factor) {
  return compare_within(actual, expected, false, factor);
}

std::string torch_error(const std::string& name) {
  for (const json& c : load("errors.json")["cases"])
    if (c["name"] == name) return c["message"].get<std::string>();
  throw std::runtime_error("no error case " + name);
}

std::string torch_warning(const std::string& name) {
  for (const json& w : load("errors.json")["warnings"])
    if (w["name"] == name) {
      const std::string text = w["message"];
      return text.substr(0, text.find(" (Triggered internally at"));
    }
  throw std::runtime_error("no warning case " + name);
}

}  // namespace fixture
