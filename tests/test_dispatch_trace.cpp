// The dispatch trace (engine/core/dispatch_trace.h): what each layer decided for each op, line by
// line. Each case traces a small program and compares the text with its golden file in
// tests/fixtures/dispatch_trace/, which python/tests/test_dispatch_trace.py also compares the same
// programs, written in Python, with. The goldens were written by this test with
// EMBER_UPDATE_GOLDEN=1 and read line by line against the code paths before they were checked in.
// Products here are tiny or of shapes no other test uses, on one thread, so that what the trace says
// of them (the in-order loop, a primitive built) depends neither on the machine nor on the tests
// before; where it must depend on the CPU (bf16), the test says how.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <sstream>

#include "captured_warnings.h"
#include "ember.h"
#include "kernels/kernel_list.h"
#include "kernels/packed_weights.h"

using namespace ember;

namespace {

std::string golden_path(const std::string& name) {
  return std::string(EMBER_FIXTURE_DIR) + "/dispatch_trace/" + name + ".txt";
}

// Autocast's bf16 product as an AVX-512 CPU runs it, whatever this CPU is: where oneDNN has no bf16
// matmul (AVX2) kernels/matmul.cpp says "widened to float32", copies the operands to float32, runs
// the float32 product and copies the result back. The goldens hold the AVX-512 line; this reads
// those lines as it (tools/check_docs.py reads the tour the same way).
std::string as_avx512_runs_it(const std::string& text) {
  std::istringstream lines(text);
  std::string read, line;
  bool widening = false, widened = false;  // inside the widened product, before and after its own line
  while (std::getline(lines, line)) {
    const std::string trimmed = line.substr(line.find_first_not_of(' '));
    if (trimmed == "widened to float32: this CPU's oneDNN has no bf16 matmul") {
      widening = true;
      continue;
    }
    if ((widening || widened) && trimmed.starts_with("loop: ")) continue;
    widened = false;
    if (widening && trimmed.starts_with("oneDNN float32 matmul ")) {
      widening = false;
      widened = true;
      line.replace(line.find("float32"), 7, "bf16");
    }
    read += line + "\n";
  }
  return read;
}

// The text `program` traces, compared with the golden file `name` (or written to it).
template <typename Program>
void check_trace(const std::string& name, Program program) {
  std::string text;
  {
    DispatchTrace trace;
    program();
    text = trace.text();
  }
  if (const char* update = std::getenv("EMBER_UPDATE_GOLDEN"); update && std::string(update) == "1") {
    std::ofstream(golden_path(name)) << as_avx512_runs_it(text);
    return;
  }
  std::ifstream file(golden_path(name));
  REQUIRE(file.good());
  std::stringstream golden;
  golden << file.rdbuf();
  CHECK(as_avx512_runs_it(text) == golden.str());
}

// Weight packing is off while alive: whether oneDNN wants a weight packed depends on the ISA.
struct NoWeightPacking {
  kernels::cpu::WeightPacking previous = kernels::cpu::weight_packing();
  NoWeightPacking() { kernels::cpu::set_weight_packing(kernels::cpu::WeightPacking::Off); }
  ~NoWeightPacking() { kernels::cpu::set_weight_packing(previous); }
};

}  // namespace

TEST_CASE("the trace of a Linear's forward and backward: each layer's decision, each node's turn", "[trace]") {
  manual_seed(0);
  nn::Linear linear(3, 2);
  Tensor x = ones({4, 3});
  check_trace("linear_forward_backward", [&] { linear(x).sum().backward(); });
}

TEST_CASE("the trace under bf16 autocast: the casts, and the cast cache's hit at the weight's second use",
          "[trace][autocast]") {
  manual_seed(0);
  nn::Linear linear(13, 37);  // 11x13x37: big enough for a library, on one thread
  Tensor x = ones({11, 13});
  NoWeightPacking no_packing;
  check_trace("linear_under_autocast", [&] {
    AutocastGuard autocast(DeviceType::CPU, kBFloat16);
    linear(x);
    linear(x);
  });
}

TEST_CASE("the trace of an in-place op on a view of a saved tensor: the version bump backward refuses",
          "[trace][version]") {
  Tensor x = ones({4}, Options().requires_grad());
  check_trace("inplace_on_a_saved_view", [&] {
    Tensor y = x.exp();  // ExpBackward0 saves its result, y
    Tensor head = y.slice(0, 0, 2);
    head.exp_();  // writes y's storage: y's version counter goes to 1
    CHECK_THROWS_WITH(y.sum().backward(),
                      Catch::Contains("one of the variables needed for gradient computation has been modified"));
  });
}

TEST_CASE("the trace of no_grad and inference_mode on the same op", "[trace][inference]") {
  Tensor w = ones({3}, Options().requires_grad());
  check_trace("no_grad_and_inference_mode", [&] {
    {
      NoGradGuard no_grad;
      w* w;
    }
    InferenceMode inference_mode;
    Tensor made_inside = w * w;  // an inference tensor
    made_inside* made_inside;    // inference tensors only: autograd is skipped
  });
}

TEST_CASE("the trace of a backward with a hook and retain_grad", "[trace][hooks]") {
  Tensor x = ones({3}, Options().requires_grad());
  check_trace("hooks_and_retain_grad", [&] {
    Tensor y = x * x;
    y.retain_grad();
    y.register_hook([](const Tensor& grad) { return grad * grad; });
    y.sum().backward();
  });
}

TEST_CASE("the trace writes the error an op raises, once", "[trace][errors]") {
  Tensor x = ones({4, 8}), weight = ones({2, 16});
  check_trace("shape_error", [&] {
    CHECK_THROWS_WITH(linear(x, weight), "mat1 and mat2 shapes cannot be multiplied (4x8 and 16x2)");
  });
}

TEST_CASE("the trace writes warnings where they are given, and the steps of a factory", "[trace][warnings]") {
  CapturedWarnings warnings;
  check_trace("warning", [] {
    Tensor out = zeros({2});
    add_out(out, ones({3}), ones({3}));  // out has the wrong shape: resized, with a warning
  });
  CHECK(warnings.texts.size() == 1);
}

namespace {
// The lines of `text` that follow a line equal to `line` (after its indent), each trimmed.
std::vector<std::string> lines_after(const std::string& text, const std::string& line) {
  std::vector<std::string> found;
  std::istringstream lines(text);
  bool next = false;
  for (std::string current; std::getline(lines, current);) {
    const std::string trimmed = current.substr(current.find_first_not_of(' '));
    if (next) found.push_back(trimmed);
    next = trimmed == line;
  }
  return found;
}
}  // namespace

TEST_CASE("the chapter's step: each product's kernel line names the implementation that ran it", "[trace][chapter]") {
  manual_seed(0);
  nn::Sequential big{nn::Linear(512, 512), nn::ReLU(), nn::Linear(512, 512)};
  Tensor xb = randn({256, 512});
  NoWeightPacking no_packing;
  const int threads = get_num_threads();
  set_num_threads(1);
  for (const bool autocast : {false, true}) {
    std::string text;
    std::vector<profiler::Event> events;
    {
      DispatchTrace trace;
      profiler::Profiler profiler;
      {
        std::optional<AutocastGuard> bf16;
        if (autocast) bf16.emplace(DeviceType::CPU, kBFloat16);
        big(xb).sum().backward();
      }
      profiler.stop();
      events = profiler.events().events();
      text = trace.text();
    }
    // Two addmm forward, three mm backward (the first layer's input needs no gradient): the
    // profiler's events and the trace's kernel lines count the same products.
    const auto products = std::count_if(events.begin(), events.end(), [](const profiler::Event& event) {
      return event.name == "aten::addmm" || event.name == "aten::mm";
    });
    const std::vector<std::string> kernels = lines_after(text, "kernel: CPU gemm");
    CHECK(products == 5);
    CHECK(text.find("profiler: event aten::addmm inside aten::linear\n") != std::string::npos);
    REQUIRE(kernels.size() == 5);
    for (const std::string& kernel : kernels) {
      INFO(kernel);
      if (!autocast) CHECK(kernel.starts_with("oneDNN float32 matmul "));
      else if (kernels::cpu::onednn_has_bf16()) CHECK(kernel.starts_with("oneDNN bf16 matmul "));
      else CHECK(kernel == "widened to float32: this CPU's oneDNN has no bf16 matmul");
      CHECK(kernel.find("packed weights") == std::string::npos);
    }
  }
  big->zero_grad();
  set_num_threads(threads);
}

TEST_CASE("the trace never gives a dead tensor's name to a new one, however many it has seen", "[trace]") {
  Tensor x = ones({1});
  DispatchTrace trace;
  for (int i = 0; i < 3000; ++i) x + x;  // each sum dies at once; the next is likely made at its address
  const std::string text = trace.text();
  CHECK(text.find("output t1: ") != std::string::npos);
  CHECK(text.find("output t3000: [1] float32, version 0") != std::string::npos);
}
