// Anomaly mode (engine/autograd/anomaly_mode.h): a NaN made in backward is reported with PyTorch
// 1.13's error and warning (tests/fixtures/autograd_debug.json), the warning naming the forward op
// and the record_function ranges around it; with anomaly mode off, nothing is checked.
#include <catch2/catch.hpp>

#include "captured_warnings.h"
#include "fixture.h"

using namespace ember;
using fixture::json;

namespace {

const json& anomaly() { return fixture::load("autograd_debug.json")["anomaly"]; }

const json& anomaly_case(const std::string& name) {
  for (const json& c : anomaly()["cases"])
    if (c["name"] == name) return c;
  throw std::runtime_error("no anomaly case " + name);
}

// Runs `backward` in anomaly mode; checks the error and the first line of the warning against
// PyTorch's, and returns the whole warning.
std::string check_reported(const std::string& name, const std::function<void()>& backward) {
  CapturedWarnings warnings;
  autograd::DetectAnomalyGuard guard;
  CHECK_THROWS_WITH(backward(), anomaly_case(name)["error"].get<std::string>());
  REQUIRE(warnings.texts.size() == 2);
  CHECK(warnings.texts[0] == anomaly()["enabled_warning"].get<std::string>());
  const std::string& warning = warnings.texts[1];
  CHECK(warning.substr(0, warning.find('\n')) == anomaly_case(name)["warning_first_line"].get<std::string>());
  return warning;
}

}  // namespace

TEST_CASE("anomaly mode reports a NaN from div's backward as PyTorch does", "[autograd-debug][anomaly]") {
  const std::string warning = check_reported("div", [] {
    const Tensor a = zeros({2}, Options(kFloat32).requires_grad()), b = zeros({2}, Options(kFloat32).requires_grad());
    (a / b).sum().backward();
  });
  CHECK(warning.find("aten::div") != std::string::npos);
}

TEST_CASE("anomaly mode reports a NaN from log's backward as PyTorch does", "[autograd-debug][anomaly]") {
  check_reported("log", [] {
    const Tensor x = zeros({2}, Options(kFloat32).requires_grad());
    (x.log() * 0).sum().backward();
  });
}

TEST_CASE("anomaly mode reports a NaN from sqrt's backward as PyTorch does", "[autograd-debug][anomaly]") {
  check_reported("sqrt", [] {
    const Tensor x = from_vector<float>({-1, 4}, {2}).requires_grad_();
    x.sqrt().sum().backward();
  });
}

TEST_CASE("anomaly mode's trace names the record_function ranges around the forward op", "[autograd-debug][anomaly]") {
  const std::string warning = check_reported("div", [] {
    const Tensor a = zeros({2}, Options(kFloat32).requires_grad()), b = zeros({2}, Options(kFloat32).requires_grad());
    Tensor ratio;
    {
      auto step = profiler::record_function("training step");
      auto inner = profiler::record_function("loss");
      ratio = a / b;
    }
    ratio.sum().backward();
  });
  CHECK(warning == anomaly_case("div")["warning_first_line"].get<std::string>() +
                       "\n  in record_function(\"training step\")\n  in record_function(\"loss\")\n  aten::div");
}

TEST_CASE("without anomaly mode a NaN gradient passes unchecked", "[autograd-debug][anomaly]") {
  CHECK(anomaly()["error_when_off"].is_null());
  CHECK_FALSE(autograd::is_anomaly_enabled());
  const Tensor a = zeros({2}, Options(kFloat32).requires_grad()), b = zeros({2}, Options(kFloat32).requires_grad());
  CHECK_NOTHROW((a / b).sum().backward());
  CHECK(std::isnan(b.grad()[0].item<double>()));
}

TEST_CASE("a node made before anomaly mode was on has no trace to show", "[autograd-debug][anomaly]") {
  const Tensor a = zeros({2}, Options(kFloat32).requires_grad()), b = zeros({2}, Options(kFloat32).requires_grad());
  const Tensor loss = (a / b).sum();
  CapturedWarnings warnings;
  autograd::set_detect_anomaly(true);
  CHECK_THROWS_WITH(loss.backward(), anomaly_case("div")["error"].get<std::string>());
  autograd::set_detect_anomaly(false);
  REQUIRE(warnings.texts.size() == 1);
  CHECK(warnings.texts[0] == anomaly()["no_trace_warning"].get<std::string>());
}

TEST_CASE("the anomaly guard restores the mode it found", "[autograd-debug][anomaly]") {
  CapturedWarnings warnings;
  {
    autograd::DetectAnomalyGuard guard;
    CHECK(autograd::is_anomaly_enabled());
  }
  CHECK_FALSE(autograd::is_anomaly_enabled());
}

TEST_CASE("anomaly mode warns with the forward trace for any error a node raises, not only a NaN",
          "[autograd-debug][anomaly]") {
  const Tensor x = from_vector<float>({1, 2}, {2}).requires_grad_();
  CapturedWarnings warnings;
  autograd::set_detect_anomaly(true);
  Tensor y = x * 1;
  const Tensor loss = (y * y).sum();  // MulBackward0 saves y
  y.add_(1);                          // ... which then changes
  CHECK_THROWS_WITH(loss.backward(), Catch::Contains("modified by an inplace operation"));
  autograd::set_detect_anomaly(false);
  REQUIRE(warnings.texts.size() == 1);
  std::string expected = anomaly_case("div")["warning_first_line"].get<std::string>();
  expected.replace(expected.find("DivBackward0"), 12, "MulBackward0");
  CHECK(warnings.texts[0] == expected + "\n  aten::mul");
}
