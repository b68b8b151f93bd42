// ember::compile (engine/compile/): a captured graph, fused into generated C++, gives eager's
// results within the bounds stated below; its graph breaks, recompiles, disk cache, compiler
// failure, debug folder, profile and trace; and the generated source of the demo block, checked
// in as tests/fixtures/compile/*.cpp (written by this test with EMBER_UPDATE_GOLDEN=1, read before
// they were checked in).
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <random>
#include <sstream>

#include "captured_warnings.h"
#include "ember.h"
#include "engine/compile/system_compiler.h"
#include "exercises/compiled_block.h"

using namespace ember;

namespace {

// Sets an environment variable while alive, and restores it.
class ScopedEnvironment {
 public:
  ScopedEnvironment(const char* name, const std::string& value) : name_(name) {
    if (const char* old = std::getenv(name)) previous_ = old;
    setenv(name, value.c_str(), 1);
  }
  ~ScopedEnvironment() {
    if (previous_) setenv(name_, previous_->c_str(), 1);
    else unsetenv(name_);
  }

 private:
  const char* name_;
  std::optional<std::string> previous_;
};

std::string fresh_folder(const std::string& name) {
  const auto folder =
      std::filesystem::temp_directory_path() / ("ember-test-compile-" + name + "-" + std::to_string(getpid()));
  std::filesystem::remove_all(folder);
  std::filesystem::create_directories(folder);
  return folder.string();
}

// The distance in units in the last place between two floats (0 when both are NaN).
int64_t ulps(float a, float b) {
  if (std::isnan(a) && std::isnan(b)) return 0;
  if (std::isnan(a) || std::isnan(b)) return INT64_MAX;
  auto ordered = [](float f) {
    int32_t bits;
    std::memcpy(&bits, &f, 4);
    return bits < 0 ? int64_t{INT32_MIN} - bits : int64_t{bits};
  };
  return std::llabs(ordered(a) - ordered(b));
}

int64_t max_ulps(const Tensor& a, const Tensor& b) {
  REQUIRE(a.sizes() == b.sizes());
  const std::vector<float> x = a.to_vector<float>(), y = b.to_vector<float>();
  int64_t worst = 0;
  for (size_t i = 0; i < x.size(); ++i) worst = std::max(worst, ulps(x[i], y[i]));
  return worst;
}

// The largest difference in units of the tensor's scale: ULPs of its largest magnitude, the bound
// for a result that went through a reduction (a sum's rounding is relative to its terms, not to
// a small result).
double scaled_error(const Tensor& compiled, const Tensor& eager) {
  const std::vector<float> x = compiled.to_vector<float>(), y = eager.to_vector<float>();
  float scale = 0;
  for (float v : y) scale = std::max(scale, std::fabs(v));
  const float ulp = std::nextafter(scale, INFINITY) - scale;
  double worst = 0;
  for (size_t i = 0; i < x.size(); ++i) worst = std::max(worst, std::fabs(double(x[i]) - y[i]) / ulp);
  return worst;
}

std::string read_file(const std::string& path) {
  std::ifstream file(path);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

void check_golden(const std::string& name, const std::string& text) {
  const std::string path = std::string(EMBER_FIXTURE_DIR) + "/compile/" + name;
  if (const char* update = std::getenv("EMBER_UPDATE_GOLDEN"); update && std::string(update) == "1") {
    std::ofstream(path) << text;
    return;
  }
  REQUIRE(std::filesystem::exists(path));
  CHECK(text == read_file(path));
}

}  // namespace

TEST_CASE("a compiled block gives eager's outputs and gradients, its backward one CompiledFunctionBackward node",
          "[compile]") {
  manual_seed(0);
  exercises::compiled_block::Block block(48);
  CompiledFunction compiled = block.compiled();
  const Tensor x = randn({20, 48}).requires_grad_(true), residual = randn({20, 48}).requires_grad_(true);
  compiled({x, residual});  // the first call runs eagerly under the capture
  const Tensor y = compiled({x, residual})[0];
  const Tensor expected = block({x, residual})[0];
  CHECK(y.grad_fn()->name() == "CompiledFunctionBackward");
  CHECK(scaled_error(y, expected) <= 16);
  const Tensor g = randn({20, 48});
  const std::vector<Tensor> inputs = {x, residual, block.bias, block.norm_weight, block.norm_bias};
  const auto eager_grads = autograd::grad({expected}, inputs, {g});
  const auto compiled_grads = autograd::grad({y}, inputs, {g});
  for (size_t i = 0; i < inputs.size(); ++i) {
    INFO("gradient " << i);
    CHECK(scaled_error(compiled_grads[i], eager_grads[i]) <= 64);
  }
  CHECK(compiled.stats().kernels == 1);
  CHECK(compiled.stats().graph_breaks.empty());
}

TEST_CASE("the generated source of the demo block is the golden file, forward and backward", "[compile]") {
  manual_seed(0);
  exercises::compiled_block::Block block(1024);
  CompiledFunction compiled = block.compiled();
  compiled({randn({256, 1024}).requires_grad_(true), randn({256, 1024}).requires_grad_(true)});
  check_golden("block_forward.cpp", compiled.source());
  check_golden("block_backward.cpp", compiled.backward_source(0));
  // The partition: the backward reads the row statistics the forward wrote, and computes the
  // point-wise values (sigmoid, the sum before layer_norm) again rather than saving them.
  CHECK(compiled.source().find("mean_out[r] = mean;") != std::string::npos);
  CHECK(compiled.backward_source(0).find("const float mean = mean_in[r];") != std::string::npos);
  CHECK(compiled.backward_source(0).find("ember_sigmoid(x)") != std::string::npos);
}

// The bounds, op family by op family, against eager on the same inputs (ops on [33, 70]): the
// arithmetic, sqrt and the special powers are the same IEEE operations as eager's, so exact; exp and
// sigmoid use the prelude's Cephes exp, eager Eigen's (each a few ULPs from the true value); tanh,
// log and other powers are libm's against eager's own; the reductions add in another order,
// bounded in ULPs of the result's scale.
TEST_CASE("each op family the compiler fuses agrees with eager within its stated bound", "[compile]") {
  manual_seed(1);
  const Tensor a = randn({33, 70}) * 3, b = randn({33, 70}), column = randn({70}), row = randn({33, 1});
  struct Family {
    const char* name;
    std::function<Tensor(const Tensor&)> op;
    double bound;  // in ULPs; scaled ULPs for the reductions
    bool scaled;
  };
  const std::vector<Family> families = {
      {"add, sub and alpha", [&](const Tensor& x) { return add(x - b, column, 2.0); }, 0, false},
      {"mul and div", [&](const Tensor& x) { return x * row / (b + 5.0); }, 0, false},
      {"neg, abs, relu, reciprocal", [&](const Tensor& x) { return relu(-x) + abs(x) + reciprocal(x); }, 0, false},
      {"sqrt and pow 2, 0.5", [&](const Tensor& x) { return sqrt(abs(x)) + x.pow(2) + abs(x).pow(0.5); }, 0, false},
      {"exp", [&](const Tensor& x) { return exp(x); }, 8, false},
      {"sigmoid", [&](const Tensor& x) { return sigmoid(x); }, 8, false},
      {"tanh", [&](const Tensor& x) { return tanh(x); }, 4, false},
      {"log", [&](const Tensor& x) { return log(abs(x) + 0.1); }, 2, false},
      {"pow -0.5, 3, -1, -2",
       [&](const Tensor& x) { return (abs(x) + 0.1).pow(-0.5) + x.pow(3) + x.pow(-1) + x.pow(-2); }, 0, false},
      {"pow 1.7 (libm's powf against ATen's Sleef pow)", [&](const Tensor& x) { return abs(x).pow(1.7); }, 2, false},
      {"row sum and mean", [&](const Tensor& x) { return x.sum({-1}, true) + x.mean({1}, true) * x; }, 64, true},
      {"column sum and mean", [&](const Tensor& x) { return x.sum({0}) + (x * 2).mean({0}); }, 64, true},
  };
  for (const Family& family : families) {
    INFO(family.name);
    CompiledFunction compiled([&](const std::vector<Tensor>& in) { return std::vector<Tensor>{family.op(in[0])}; });
    compiled({a});
    const Tensor got = compiled({a})[0], expected = family.op(a);
    CHECK(compiled.stats().kernels == 1);
    if (family.scaled) CHECK(scaled_error(got, expected) <= family.bound);
    else CHECK(max_ulps(got, expected) <= family.bound);
  }
}

// The prelude's exp at the ends of float's range, where its clamps act, against exp in double:
// 0 and subnormals below, inf above, NaN kept. Each row shifts the 24 values by 8 columns, so that
// each goes through the vector loop's first 16 columns and through its remainder.
TEST_CASE("compiled exp and sigmoid give 0, subnormals, inf and NaN where exp in double does", "[compile]") {
  const std::vector<float> values = {-INFINITY, -1e30f, -200, -104.5f, -103.9f, -100,  -88,      -87.3f,
                                     -20,       0,      1,    20,      88,      88.7f, 88.8f,    89.5f,
                                     150,       176,    177,  200,     1e30f,   1e38f, INFINITY, NAN};
  const int64_t columns = static_cast<int64_t>(values.size());
  std::vector<float> rows;
  for (int64_t row = 0; row < 3; ++row)
    for (int64_t c = 0; c < columns; ++c) rows.push_back(values[(c + 8 * row) % columns]);
  const Tensor x = from_vector(rows, {3, columns});
  auto exact = [&](auto function) {
    std::vector<float> out;
    for (float v : rows) out.push_back(static_cast<float>(function(static_cast<double>(v))));
    return from_vector(out, {3, columns});
  };
  CompiledFunction compiled_exp([](const std::vector<Tensor>& in) { return std::vector<Tensor>{exp(in[0])}; });
  CompiledFunction compiled_sigmoid([](const std::vector<Tensor>& in) { return std::vector<Tensor>{sigmoid(in[0])}; });
  compiled_exp({x});  // the capture and the build
  compiled_sigmoid({x});
  CHECK(max_ulps(compiled_exp({x})[0], exact([](double v) { return std::exp(v); })) <= 1);
  // sigmoid is 1 / (1 + exp(-x)) in float, as PyTorch's is: below -88.7 exp(-x) is inf and sigmoid 0.
  CHECK(max_ulps(compiled_sigmoid({x})[0],
                 exact([](double v) { return 1.0f / (1.0f + static_cast<float>(std::exp(-v))); })) <= 1);
  CHECK(compiled_exp.stats().kernels == 1);
  CHECK(compiled_sigmoid.stats().kernels == 1);
}

// Random chains of the fused families on random shapes, forward and backward: every result within
// 64 ULPs of its scale (the bound a chain of a few reductions keeps; the worst seen is printed).
TEST_CASE("random chains of fused ops give eager's values and gradients (a differential test)", "[compile]") {
  std::mt19937 random(7);
  for (int trial = 0; trial < 12; ++trial) {
    const int64_t rows = 1 + random() % 40, columns = 2 + random() % 90;
    std::vector<int> program;
    for (int i = 0; i < 6; ++i) program.push_back(static_cast<int>(random() % 9));
    auto chain = [program](const std::vector<Tensor>& in) {
      Tensor x = in[0];
      const Tensor& column = in[1];
      for (int step : program) {
        switch (step) {
          case 0: x = x * sigmoid(x); break;
          case 1: x = x + column; break;
          case 2: x = x - x.mean({-1}, true); break;
          case 3: x = tanh(x) * 2.0; break;
          case 4: x = x / (x.pow(2).sum({-1}, true) + 1.0).pow(0.5); break;
          case 5: x = relu(x) - 0.5 * x; break;
          case 6: x = exp(-abs(x)) + x; break;
          case 7: x = log(x * x + 1.0); break;
          default: x = layer_norm(x, {x.size(-1)}, column, column * 0.5, 1e-5); break;
        }
      }
      return std::vector<Tensor>{x};
    };
    manual_seed(trial);
    const Tensor x = randn({rows, columns}).requires_grad_(true), column = randn({columns}).requires_grad_(true);
    CompiledFunction compiled(chain, {"x", "column"});
    compiled({x, column});
    const Tensor got = compiled({x, column})[0], expected = chain({x, column})[0];
    INFO("trial " << trial << ": " << rows << " x " << columns);
    CHECK(scaled_error(got, expected) <= 64);
    const Tensor g = randn({rows, columns});
    const auto eager_grads = autograd::grad({expected}, {x, column}, {g}, std::nullopt, false, /*allow_unused=*/true);
    const auto compiled_grads = autograd::grad({got}, {x, column}, {g}, std::nullopt, false, /*allow_unused=*/true);
    for (size_t i = 0; i < 2; ++i) {
      REQUIRE(compiled_grads[i].defined() == eager_grads[i].defined());
      if (eager_grads[i].defined()) CHECK(scaled_error(compiled_grads[i], eager_grads[i]) <= 64);
    }
  }
}

TEST_CASE("an op with no lowering is a graph break: it runs eagerly between two kernels, and explain() says so",
          "[compile]") {
  auto function = [](const std::vector<Tensor>& in) {
    const Tensor h = softmax(in[0] * 2.0 + 1.0, -1);
    return std::vector<Tensor>{h * sigmoid(h)};
  };
  CompiledFunction compiled(function, {"x"});
  const Tensor x = randn({6, 10});
  compiled({x});
  CHECK(allclose(compiled({x})[0], function({x})[0]));
  CHECK(compiled.stats().kernels == 2);
  CHECK(compiled.stats().graph_breaks == std::vector<std::string>{"aten::softmax: no lowering"});
  const std::string explained = compiled.explain();
  CHECK(explained.find("Graph Count: 2\nGraph Break Count: 1\nOp Count: 5\n") == 0);
  CHECK(explained.find("  aten::softmax: no lowering\n") != std::string::npos);
}

TEST_CASE("a view that reorders elements (a transpose) runs as it is, between kernels, and is no graph break",
          "[compile]") {
  auto function = [](const std::vector<Tensor>& in) {
    return std::vector<Tensor>{sigmoid((in[0] * 2.0).t()) + 1.0, in[0].reshape({-1})};
  };
  CompiledFunction compiled(function, {"x"});
  const Tensor x = randn({4, 6});
  compiled({x});
  const std::vector<Tensor> got = compiled({x}), expected = function({x});
  CHECK(max_ulps(got[0], expected[0]) <= 8);
  CHECK(max_ulps(got[1], expected[1]) == 0);
  CHECK(compiled.stats().graph_breaks.empty());
  CHECK(compiled.stats().kernels == 2);  // x * 2, then sigmoid + 1 over the transposed [6, 4]
}

TEST_CASE("a call that breaks a guard captures again: the recompile is counted with Dynamo's reason", "[compile]") {
  auto function = [](const std::vector<Tensor>& in) { return std::vector<Tensor>{in[0] * sigmoid(in[0])}; };
  CompiledFunction compiled(function, {"x"});
  compiled({randn({8, 16})});
  compiled({randn({8, 16})});
  CHECK(compiled.stats().captures == 1);
  const Tensor small = randn({4, 16});
  CHECK(allclose(compiled({small})[0], function({small})[0]));
  compiled({randn({8, 16})});  // the first graph still serves its shape
  {
    NoGradGuard no_grad;
    compiled({randn({4, 16})});
  }
  CHECK(compiled.stats().captures == 3);
  CHECK(compiled.stats().recompiles == 2);
  CHECK(compiled.stats().recompile_reasons ==
        std::vector<std::string>{"tensor 'x' size mismatch at index 0. expected 8, actual 4", "grad_mode mismatch"});
}

TEST_CASE("a compiled module guards its training flag: eval() captures again, and Dropout stops dropping",
          "[compile]") {
  nn::Sequential net{nn::Linear(8, 8), nn::ReLU(), nn::Dropout(0.5)};
  CompiledFunction compiled = compile(net);
  const Tensor x = randn({4, 8});
  compiled.forward(x);
  net->eval();
  CHECK(allclose(compiled.forward(x), net->forward(x)));
  CHECK(compiled.stats().recompiles == 1);
  CHECK(compiled.stats().recompile_reasons[0].find("training mismatch") != std::string::npos);
  CHECK(compiled.stats().extern_calls == 1);  // addmm, called as it is
  CHECK(compiled.graph_text().find("0_weight: [8, 8] Float (constant)") != std::string::npos);
}

TEST_CASE("a second compile of the same graph runs no compiler: the shared object comes from the disk cache",
          "[compile]") {
  ScopedEnvironment cache("EMBER_COMPILE_CACHE", fresh_folder("cache"));
  auto function = [](const std::vector<Tensor>& in) { return std::vector<Tensor>{exp(in[0]) * 3.0 - in[0]}; };
  auto& counters = compiler::build_counters();
  const int runs = counters.compiler_runs, disk_hits = counters.disk_hits;
  CompiledFunction first(function);
  first({randn({5, 7})});
  CHECK(counters.compiler_runs == runs + 1);
  compiler::forget_loaded_libraries();  // as a new process would start
  CompiledFunction second(function);
  second({randn({5, 7})});
  CHECK(counters.compiler_runs == runs + 1);
  CHECK(counters.disk_hits == disk_hits + 1);
  const Tensor x = randn({5, 7});
  CHECK(allclose(second({x})[0], function({x})[0]));
}

TEST_CASE("a missing compiler is not an error: one warning, and the compiled function runs eagerly", "[compile]") {
  ScopedEnvironment cache("EMBER_COMPILE_CACHE", fresh_folder("no-compiler"));
  ScopedEnvironment compiler("EMBER_CXX", "/nonexistent/c++");
  CapturedWarnings warnings;
  auto function = [](const std::vector<Tensor>& in) { return std::vector<Tensor>{in[0] * sigmoid(in[0])}; };
  CompiledFunction compiled(function);
  const Tensor x = randn({3, 4}).requires_grad_(true);
  for (int i = 0; i < 3; ++i) CHECK(allclose(compiled({x})[0], function({x})[0]));
  REQUIRE(warnings.texts.size() == 1);
  CHECK(warnings.texts[0].find("ember.compile: building the generated kernels with `/nonexistent/c++` failed (") == 0);
  CHECK(warnings.texts[0].find("the compiled function runs eagerly instead") != std::string::npos);
  CHECK(compiled({x})[0].grad_fn()->name() == "MulBackward0");  // the ops themselves ran
}

TEST_CASE("EMBER_COMPILE_DEBUG writes the graph, the plan, the generated source and the compile command", "[compile]") {
  const std::string folder = fresh_folder("debug");
  ScopedEnvironment debug("EMBER_COMPILE_DEBUG", "1");
  ScopedEnvironment debug_dir("EMBER_COMPILE_DEBUG_DIR", folder);
  exercises::compiled_block::Block block(16);
  CompiledFunction compiled = block.compiled();
  compiled({randn({4, 16}).requires_grad_(true), randn({4, 16})});
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(folder))
    if (entry.is_regular_file()) files.push_back(entry.path().filename().string());
  std::sort(files.begin(), files.end());
  CHECK(files == std::vector<std::string>{"backward_0.cpp", "backward_0.txt", "compile_command.txt", "graph.txt",
                                          "output_code.cpp", "plan.txt"});
  const auto run_folder = std::filesystem::directory_iterator(folder)->path() / "block";
  CHECK(read_file((run_folder / "graph.txt").string()) == compiled.graph_text());
  CHECK(read_file((run_folder / "compile_command.txt").string()).find(" -O3 -march=native ") != std::string::npos);
  CHECK(
      read_file((run_folder / "backward_0.txt").string()).find("  saved: x residual bias mean add_2 pow norm_weight") !=
      std::string::npos);
}

TEST_CASE("the profiler shows one event per kernel, named for the ops it fused, with the bytes it moved", "[compile]") {
  exercises::compiled_block::Block block(32);
  CompiledFunction compiled = block.compiled();
  const Tensor x = randn({8, 32}).requires_grad_(true), residual = randn({8, 32});
  compiled({x, residual});
  profiler::Profiler prof;
  compiled({x, residual})[0].sum().backward();
  prof.stop();
  std::vector<std::string> names;
  for (const auto& event : prof.events().events()) names.push_back(event.name);
  const std::string kernel = "cpp_fused_add_mean_mul_pow_sigmoid_sub_0";
  CHECK(std::count(names.begin(), names.end(), "Torch-Compiled Region") == 1);
  CHECK(std::count(names.begin(), names.end(), kernel) == 1);
  CHECK(std::count(names.begin(), names.end(), "aten::sigmoid") == 0);
  INFO(Catch::Detail::stringify(names));
  CHECK(std::count(names.begin(), names.end(), "autograd::engine::evaluate_function: CompiledFunctionBackward") == 1);
  for (const auto& event : prof.events().events())
    if (event.name == kernel) CHECK(event.bytes_read == (2 * 8 * 32 + 3 * 32) * 4);
}

// bench_compile and the compile demo set this figure beside the time the block's bytes take; were
// the kernels' events renamed, it would read 0 and call every core memory-bound.
TEST_CASE("the compiled block's arithmetic alone is measured from its kernels' profiler events", "[compile]") {
  const exercises::compiled_block::Block block(32);
  CHECK(exercises::compiled_block::arithmetic_seconds(block, 4096, 32) > 0);
}

TEST_CASE("the dispatch trace names the compiled kernel where its ops would have been", "[compile][trace]") {
  CompiledFunction compiled([](const std::vector<Tensor>& in) { return std::vector<Tensor>{in[0] * 2.0 + 1.0}; });
  const Tensor x = randn({3, 5});
  compiled({x});
  DispatchTrace trace;
  compiled({x});
  CHECK(trace.text().find("compiled kernel cpp_fused_add_mul_0: 2 ops in one pass (3 rows x 5 columns)") !=
        std::string::npos);
}

TEST_CASE("the chapter's network compiled gives eager's outputs and gradients", "[compile]") {
  manual_seed(3);
  nn::Sequential net{nn::Linear(16, 32), nn::ReLU(), nn::Linear(32, 4)};
  CompiledFunction compiled = compile(net);
  const Tensor x = randn({8, 16});
  compiled.forward(x);
  const Tensor y = compiled.forward(x), expected = net->forward(x);
  CHECK(max_ulps(y, expected) == 0);  // the products are the same calls; relu is exact
  const auto params = net->parameters();
  const auto got = autograd::grad({y.sum()}, params), want = autograd::grad({expected.sum()}, params);
  for (size_t i = 0; i < params.size(); ++i) CHECK(max_ulps(got[i], want[i]) == 0);
}
