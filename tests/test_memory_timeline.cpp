// The memory timeline by category (profiler/memory_timeline.h): with profile_memory the profiler
// knows what each allocation is for because the engine says so, so for the chapter's network under
// SGD with momentum the bytes of each category at each moment are exactly what the engine holds:
// the parameters, their .grad, the momentum buffers, and the activations the graph saved. Then the
// files: PyTorch's JSON layout, a PNG by gnuplot, an HTML page with inline SVG; and the errors.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <unistd.h>

#include "device_cases.h"
#include "ember.h"

using namespace ember;
using profiler::MemoryCategory;

namespace {

int64_t bytes_of(const profiler::MemoryTimeline::Bytes& bytes, MemoryCategory category) {
  return bytes[static_cast<size_t>(category)];
}

// Each storage once: its bytes.
int64_t distinct_bytes(const std::vector<Tensor>& tensors) {
  std::set<const Storage*> seen;
  int64_t total = 0;
  for (const Tensor& t : tensors)
    if (t.defined() && seen.insert(t.impl()->storage.get()).second) total += t.impl()->storage->nbytes;
  return total;
}

// A marker in the profile, and when it started: the timeline is read there.
void mark(const std::string& name) { auto range = profiler::record_function(name); }
int64_t marked_at(const profiler::Profiler& prof, const std::string& name) {
  for (const profiler::Event& event : prof.events().events())
    if (event.name == name) return event.start_ns;
  FAIL("no marker " << name);
  return 0;
}

// What the engine holds at a marker, counted from the engine's own objects.
struct Held {
  std::string marker;
  int64_t parameters = 0, gradients = 0, momentum = 0, activations = 0, inputs = 0, allocated = 0;
};

// The chapter's network (demos/chapter.cpp's `big`) trained 3 steps by SGD with momentum, profiled,
// with what it holds after each forward pass and after each step.
struct ChapterRun {
  std::vector<Held> held;
  std::unique_ptr<profiler::Profiler> prof;
};
ChapterRun run_chapter_network() {
  manual_seed(0);
  nn::Sequential big{nn::Linear(512, 512), nn::ReLU(), nn::Linear(512, 512)};
  const Tensor xb = randn({256, 512}), yb = randn({256, 512});
  optim::SGD sgd(big->parameters(), optim::SGDOptions(0.01).momentum(0.9));
  const std::vector<Tensor> parameters = big->parameters();
  ChapterRun run;
  auto count = [&](const std::string& marker, const Tensor& loss) {
    Held held{marker};
    held.parameters = distinct_bytes(parameters);
    std::vector<Tensor> grads, buffers;
    for (const Tensor& p : parameters) grads.push_back(p.grad());
    for (const auto& [impl, state] : sgd.state())
      buffers.push_back(static_cast<const optim::SGDParamState&>(*state).momentum_buffer());
    held.gradients = distinct_bytes(grads);
    held.momentum = distinct_bytes(buffers);
    held.inputs = distinct_bytes({xb, yb});
    // The graph's saved tensors, less those that are parameters or the batch (saved, but not made there).
    std::vector<Tensor> saved, not_activations = parameters;
    not_activations.insert(not_activations.end(), {xb, yb});
    std::set<const Storage*> excluded;
    for (const Tensor& t : not_activations) excluded.insert(t.impl()->storage.get());
    if (loss.defined())
      for (const autograd::SavedInGraph& s : autograd::saved_tensors_in_graph(loss))
        if (!excluded.count(s.tensor.impl()->storage.get())) saved.push_back(s.tensor);
    held.activations = distinct_bytes(saved);
    held.allocated = memory_allocated(kCPU);
    run.held.push_back(held);
    mark(marker);
  };
  run.prof = std::make_unique<profiler::Profiler>(profiler::ProfilerOptions{.profile_memory = true});
  count("start", Tensor());
  for (int step = 1; step <= 3; ++step) {
    sgd.zero_grad();
    Tensor loss = mse_loss(big(xb), yb);
    count("forward " + std::to_string(step), loss);
    loss.backward();
    sgd.step();
    count("step " + std::to_string(step), loss);
  }
  run.prof->stop();
  return run;
}

}  // namespace

TEST_CASE("the memory timeline holds, per category, exactly the parameters, gradients, momentum and activations",
          "[profiler][memory_timeline]") {
  const ChapterRun run = run_chapter_network();
  const profiler::MemoryTimeline timeline = run.prof->memory_timeline(kCPU);
  constexpr int64_t kWeightsAndBiases = 2 * (512 * 512 + 512) * 4, kBatch = 256 * 512 * 4;
  for (const Held& held : run.held) {
    INFO(held.marker);
    const auto bytes = timeline.at(marked_at(*run.prof, held.marker));
    CHECK(bytes_of(bytes, MemoryCategory::Parameter) == held.parameters);
    CHECK(bytes_of(bytes, MemoryCategory::Gradient) == held.gradients);
    CHECK(bytes_of(bytes, MemoryCategory::OptimizerState) == held.momentum);
    CHECK(bytes_of(bytes, MemoryCategory::Activation) == held.activations);
    CHECK(bytes_of(bytes, MemoryCategory::Input) == held.inputs);
    CHECK(held.parameters == kWeightsAndBiases);
    CHECK(held.inputs == 2 * kBatch);
  }
  // The figures themselves: after a forward pass the graph holds ReLU's output (saved by ReLU and
  // the second addmm) and the network's output (saved by mse_loss); after a step none of it, and
  // the gradients and momentum buffers are each as large as the parameters.
  CHECK(run.held[1].activations == 2 * kBatch);
  CHECK(run.held[1].gradients == 0);
  CHECK(run.held[2].activations == 0);
  CHECK(run.held[2].gradients == kWeightsAndBiases);
  CHECK(run.held[2].momentum == kWeightsAndBiases);
  CHECK(run.held[3].activations == 2 * kBatch);
  CHECK(run.held[3].gradients == kWeightsAndBiases);  // zero_grad() zeroes them in place (set_to_none=false)
}

TEST_CASE("a memory timeline's total moves exactly as memory_allocated does", "[profiler][memory_timeline]") {
  const ChapterRun run = run_chapter_network();
  const profiler::MemoryTimeline timeline = run.prof->memory_timeline(kCPU);
  auto total_at = [&](const Held& held) {
    int64_t total = 0;
    for (int64_t b : timeline.at(marked_at(*run.prof, held.marker))) total += b;
    return total;
  };
  const Held& start = run.held.front();
  for (const Held& held : run.held) {
    INFO(held.marker);
    CHECK(total_at(held) - total_at(start) == held.allocated - start.allocated);
  }
}

TEST_CASE("gradients flowing between nodes are autograd detail, and gone when backward ends",
          "[profiler][memory_timeline]") {
  const ChapterRun run = run_chapter_network();
  const profiler::MemoryTimeline timeline = run.prof->memory_timeline(kCPU);
  int64_t most = 0;
  for (const auto& bytes : timeline.sizes()) most = std::max(most, bytes_of(bytes, MemoryCategory::AutogradDetail));
  CHECK(most >= 256 * 512 * 4);  // at least the gradient of the network's output, [256, 512]
  CHECK(bytes_of(timeline.at(marked_at(*run.prof, "step 3")), MemoryCategory::AutogradDetail) == 0);
}

TEST_CASE("Adam's state is optimizer state: exp_avg, exp_avg_sq and the step count", "[profiler][memory_timeline]") {
  nn::Linear layer(8, 4);
  optim::Adam adam(layer->parameters(), optim::AdamOptions(1e-3));
  const Tensor x = randn({16, 8});
  profiler::Profiler prof({.profile_memory = true});
  layer(x).sum().backward();
  adam.step();
  mark("stepped");
  prof.stop();
  const auto bytes = prof.memory_timeline(kCPU).at(marked_at(prof, "stepped"));
  CHECK(bytes_of(bytes, MemoryCategory::OptimizerState) == 2 * (8 * 4 + 4) * 4 + 2 * 4);  // 2 moments, 2 steps
  CHECK(bytes_of(bytes, MemoryCategory::Parameter) == (8 * 4 + 4) * 4);
  CHECK(bytes_of(bytes, MemoryCategory::Gradient) == (8 * 4 + 4) * 4);
}

// A device's blocks come from its caching allocator, 512 bytes at least (the checking device's alike).
DEVICE_TEST_CASE("a device's memory timeline counts its own blocks by category, none of the CPU's",
                 "[profiler][memory_timeline]") {
  nn::Linear layer(8, 4);
  layer->to(device);
  const Tensor x = ones({16, 8}, Options(device));
  optim::SGD sgd(layer->parameters(), optim::SGDOptions(0.1).momentum(0.9));
  profiler::Profiler prof({.profile_memory = true});
  layer(x).sum().backward();
  sgd.step();
  mark("stepped");
  prof.stop();
  const auto on_device = prof.memory_timeline(device).at(marked_at(prof, "stepped"));
  CHECK(bytes_of(on_device, MemoryCategory::Parameter) == 2 * 512);  // weight [4, 8] and bias [4]: a block each
  CHECK(bytes_of(on_device, MemoryCategory::Gradient) == 2 * 512);
  CHECK(bytes_of(on_device, MemoryCategory::OptimizerState) == 2 * 512);
  CHECK(bytes_of(on_device, MemoryCategory::Input) == 512);
  const auto on_cpu = prof.memory_timeline(kCPU).at(marked_at(prof, "stepped"));
  CHECK(bytes_of(on_cpu, MemoryCategory::Parameter) == 0);
  CHECK(bytes_of(on_cpu, MemoryCategory::Gradient) == 0);
}

TEST_CASE("a block made before the profile and freed unseen is PyTorch's unknown, counted from the start",
          "[profiler][memory_timeline]") {
  Tensor old = zeros({100});
  profiler::Profiler prof({.profile_memory = true});
  old = Tensor();
  prof.stop();
  const profiler::MemoryTimeline timeline = prof.memory_timeline(kCPU);
  CHECK(bytes_of(timeline.sizes().front(), MemoryCategory::Unknown) == 400);
  CHECK(bytes_of(timeline.sizes().back(), MemoryCategory::Unknown) == 0);
}

TEST_CASE("export_memory_timeline writes PyTorch's JSON: [times, [0, bytes per category in its plot order]]",
          "[profiler][memory_timeline]") {
  const ChapterRun run = run_chapter_network();
  const std::string path = "memory_timeline_" + std::to_string(getpid()) + ".json";
  run.prof->export_memory_timeline(path, kCPU);
  const nlohmann::json points = nlohmann::json::parse(std::ifstream(path));
  std::filesystem::remove(path);
  REQUIRE(points.size() == 2);
  const nlohmann::json &times = points[0], &sizes = points[1];
  REQUIRE(times.size() == sizes.size());
  REQUIRE(times.size() > 10);
  for (size_t i = 1; i < times.size(); ++i) CHECK(times[i].get<int64_t>() > times[i - 1].get<int64_t>());
  // PARAMETER, OPTIMIZER_STATE, INPUT, TEMPORARY, ACTIVATION, GRADIENT, AUTOGRAD_DETAIL, None.
  const auto last = run.prof->memory_timeline(kCPU).sizes().back();
  const nlohmann::json expected = {0,
                                   bytes_of(last, MemoryCategory::Parameter),
                                   bytes_of(last, MemoryCategory::OptimizerState),
                                   bytes_of(last, MemoryCategory::Input),
                                   bytes_of(last, MemoryCategory::Temporary),
                                   bytes_of(last, MemoryCategory::Activation),
                                   bytes_of(last, MemoryCategory::Gradient),
                                   bytes_of(last, MemoryCategory::AutogradDetail),
                                   bytes_of(last, MemoryCategory::Unknown)};
  CHECK(sizes.back() == expected);
  CHECK(expected[1] == 2 * (512 * 512 + 512) * 4);
}

TEST_CASE("export_memory_timeline writes one HTML page with the chart as inline SVG and no script",
          "[profiler][memory_timeline]") {
  const ChapterRun run = run_chapter_network();
  const std::string path = "memory_timeline_" + std::to_string(getpid()) + ".html";
  run.prof->export_memory_timeline(path, kCPU);
  std::stringstream page;
  page << std::ifstream(path).rdbuf();
  std::filesystem::remove(path);
  const std::string html = page.str();
  CHECK(html.find("<svg") != std::string::npos);
  CHECK(html.find("<script") == std::string::npos);
  CHECK(html.find("http://www.w3.org/2000/svg") != std::string::npos);  // the SVG namespace, nothing fetched
  CHECK(html.find("src=") == std::string::npos);
  for (const char* name :
       {"PARAMETER", "OPTIMIZER_STATE", "INPUT", "TEMPORARY", "ACTIVATION", "GRADIENT", "AUTOGRAD_DETAIL", "Unknown"})
    CHECK(html.find(std::string(">") + name + "<") != std::string::npos);
  // The table beside the chart: the parameters' bytes at the end, exactly.
  CHECK(html.find("<td>PARAMETER</td><td>" + std::to_string(2 * (512 * 512 + 512) * 4) + "</td>") != std::string::npos);
}

TEST_CASE("export_memory_timeline draws a PNG with gnuplot, and says so when gnuplot is missing",
          "[profiler][memory_timeline]") {
  const ChapterRun run = run_chapter_network();
  const std::string path = "memory_timeline_" + std::to_string(getpid()) + ".png";
  const std::string saved_path = std::getenv("PATH") ? std::getenv("PATH") : "";
  ::setenv("PATH", "/nonexistent", 1);
  CHECK_THROWS_WITH(run.prof->export_memory_timeline(path, kCPU),
                    "export_memory_timeline: drawing '" + path +
                        "' needs gnuplot, which was not found (Debian: apt-get install gnuplot-nox); .json and .html "
                        "need nothing");
  ::setenv("PATH", saved_path.c_str(), 1);
  if (std::system("command -v gnuplot >/dev/null 2>&1") != 0) return;  // the README's commands install it
  run.prof->export_memory_timeline(path, kCPU);
  std::ifstream png(path, std::ios::binary);
  char signature[8] = {};
  png.read(signature, 8);
  std::filesystem::remove(path);
  CHECK(std::string(signature + 1, 3) == "PNG");
  CHECK(!std::filesystem::exists(path + ".data"));  // gnuplot's data and script are cleaned up
  CHECK(!std::filesystem::exists(path + ".gnuplot"));
}

TEST_CASE("export_memory_timeline refuses a name it cannot tell what to write from, and a profile without memory",
          "[profiler][memory_timeline]") {
  {
    profiler::Profiler prof({.profile_memory = true});
    zeros({4}).sum();
    CHECK_THROWS_WITH(prof.export_memory_timeline("timeline.json"), "Profiler didn't finish running");
    prof.stop();
    CHECK_THROWS_WITH(prof.export_memory_timeline("timeline.txt", kCPU),
                      "export_memory_timeline: cannot tell what to write from the name 'timeline.txt': use .json "
                      "(PyTorch's [times, sizes] points), .png (a chart drawn by gnuplot) or .html (a page with the "
                      "chart as SVG)");
  }
  profiler::Profiler prof;
  zeros({4}).sum();
  prof.stop();
  CHECK_THROWS_AS(prof.export_memory_timeline("timeline.json"), ValueError);
  CHECK_THROWS_WITH(prof.export_memory_timeline("timeline.json"), "profile_memory=True required for memory profiling.");
}

TEST_CASE("tag_memory does nothing outside a profile with profile_memory, and each profile starts afresh",
          "[profiler][memory_timeline]") {
  Tensor t = ones({10});
  profiler::tag_memory(t, MemoryCategory::Parameter);  // no profile: ignored
  CHECK_FALSE(profiler::detail::tagging_memory.load());
  {
    profiler::Profiler without_memory;  // a profile of times only keeps no log either
    CHECK_FALSE(profiler::detail::tagging_memory.load());
  }
  profiler::Profiler prof({.profile_memory = true});
  CHECK(profiler::detail::tagging_memory.load());
  prof.stop();
  CHECK_FALSE(profiler::detail::tagging_memory.load());
  const profiler::MemoryTimeline timeline = prof.memory_timeline(kCPU);
  for (int64_t b : timeline.sizes().front()) CHECK(b == 0);
}
