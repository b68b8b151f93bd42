// ember::compile (engine/compile/): a captured graph, fused into generated C++, gives eager's
// results (the bounds op by op are in test_compile_numerics.cpp); its graph breaks, recompiles,
// disk cache, compiler failure, debug folder, profile and trace; and the generated source of the
// demo block, checked in as tests/fixtures/compile/*.cpp (written by this test with
// EMBER_UPDATE_GOLDEN=1, read before they were checked in).
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

#include "captured_warnings.h"
#include "ember.h"
#include "engine/compile/system_compiler.h"
#include "exercises/compiled_block.h"
#include "ulp_distance.h"

using namespace ember;
using ulp_distance::max_ulps;
using ulp_distance::scaled_error;

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
  auto function = [](const std::vector<Tensor>& in) {
    return std::vector<Tensor>{layer_norm(in[0] * sigmoid(in[0]), {4})};
  };
  CompiledFunction compiled(function);
  const Tensor x = randn({3, 4}).requires_grad_(true);
  for (int i = 0; i < 3; ++i) CHECK(allclose(compiled({x})[0], function({x})[0]));
  REQUIRE(warnings.texts.size() == 1);
  CHECK(warnings.texts[0].find("ember.compile: building the generated kernels with `/nonexistent/c++` failed (") == 0);
  CHECK(warnings.texts[0].find("the compiled function runs eagerly instead") != std::string::npos);
  // The function itself ran, as Dynamo falls back to the frame: layer_norm whole, not decomposed.
  CHECK(compiled({x})[0].grad_fn()->name() == "NativeLayerNormBackward0");
  CHECK(compiled.stats().eager_runs == 3);
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
