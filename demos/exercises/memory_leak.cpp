// The loops of the memory-leak exercise and the walk that names what a kept loss holds
// (memory_leak.h).
#include "memory_leak.h"

#include <algorithm>
#include <cstdint>
#include <map>

using namespace ember;

namespace exercises::memory_leak {

const char* describe(Keep keep) {
  switch (keep) {
    case Keep::Loss: return "keeps loss (no backward)";
    case Keep::Item: return "keeps loss.item()";
    case Keep::LossAfterBackward: return "keeps loss after backward()";
  }
  return "";
}

int64_t Curve::bytes_per_step() const {
  return bytes.size() < 2 ? 0 : bytes[bytes.size() - 1] - bytes[bytes.size() - 2];
}

bool Curve::grows_linearly() const {
  for (size_t step = 2; step < bytes.size(); ++step)
    if (bytes[step] - bytes[step - 1] != bytes_per_step()) return false;
  return true;
}

namespace {

struct Setup {
  nn::Sequential model{nn::Linear(64, 256), nn::ReLU(), nn::Linear(256, 256), nn::ReLU(), nn::Linear(256, 10)};
  Tensor inputs, targets;

  explicit Setup(Device device) {
    model->to(device);
    inputs = randn({32, 64}).to(device);
    targets = randint(0, 10, {32}).to(device);
  }
  Tensor loss() { return cross_entropy(model(inputs), targets); }
};

Curve run_loop(Keep keep, Device device, int steps) {
  manual_seed(0);
  Setup setup(device);
  optim::SGD optimizer(setup.model->parameters(), optim::SGDOptions(0.01));
  std::vector<Tensor> kept_losses;
  std::vector<float> kept_numbers;
  auto step = [&] {
    Tensor loss = setup.loss();
    if (keep == Keep::LossAfterBackward) {
      optimizer.zero_grad();
      loss.backward();
      optimizer.step();
    }
    return loss;
  };
  step();  // warm-up: the first backward allocates every .grad, which then stays
  const int64_t before = memory_allocated(device);
  Curve curve{keep, {}};
  profiler::Profiler prof({.profile_memory = true});  // the timeline says what the bytes are
  const char* const marker = "exercise 1: a step ended";
  for (int i = 0; i < steps; ++i) {
    Tensor loss = step();
    if (keep == Keep::Item) kept_numbers.push_back(loss.item<float>());
    else kept_losses.push_back(loss);
    loss = Tensor();  // measured once the step's own variables are gone, as at the top of a loop
    curve.bytes.push_back(memory_allocated(device) - before);
    auto range = profiler::record_function(marker);
  }
  prof.stop();
  curve.timeline = std::make_shared<const profiler::MemoryTimeline>(prof.memory_timeline(device));
  for (const profiler::Event& event : prof.events().events())
    if (event.name == marker)
      curve.activation_bytes.push_back(
          curve.timeline->at(event.start_ns)[static_cast<size_t>(profiler::MemoryCategory::Activation)]);
  return curve;
}

// The storages a loss keeps alive that were allocated in its step: those its graph saved, other
// than the parameters' and the batch's (which exist anyway), plus the loss's own.
void find_what_one_loss_holds(Device device, Result& result) {
  manual_seed(0);
  Setup setup(device);
  // Each storage seen: its row in `held`, or kExistsAnyway for the parameters' and the batch's.
  constexpr size_t kExistsAnyway = SIZE_MAX;
  std::map<const Storage*, size_t> row_of;
  for (const Tensor& t : setup.model->parameters()) row_of[t.impl()->storage.get()] = kExistsAnyway;
  row_of[setup.inputs.impl()->storage.get()] = kExistsAnyway;
  row_of[setup.targets.impl()->storage.get()] = kExistsAnyway;

  Tensor loss = setup.loss();
  std::vector<HeldTensor> held;
  auto add = [&](const std::string& held_by, const Tensor& t) {
    const Storage* storage = t.impl()->storage.get();
    auto [it, is_new] = row_of.emplace(storage, held.size());
    if (is_new) held.push_back({held_by, t.sizes(), t.dtype(), storage->nbytes});
    else if (it->second != kExistsAnyway && held[it->second].held_by.find(held_by) == std::string::npos)
      held[it->second].held_by += ", " + held_by;
  };
  for (const autograd::SavedInGraph& saved : autograd::saved_tensors_in_graph(loss)) add(saved.node, saved.tensor);
  add("the loss itself", loss);
  result.held = held;
  for (const HeldTensor& t : held) result.held_bytes += t.bytes;
  result.loss_bytes = loss.impl()->storage->nbytes;
}

// One step that keeps its loss, profiled with profile_memory: the ops that allocated what it keeps.
void profile_one_kept_loss(Device device, Result& result) {
  manual_seed(0);
  Setup setup(device);
  profiler::Profiler prof({.profile_memory = true});
  Tensor loss = setup.loss();  // kept past the profile's end, as the loop keeps it
  prof.stop();
  const bool on_gpu = device.is_cuda();
  for (const profiler::EventAverage& row : prof.key_averages()) {
    const int64_t bytes = on_gpu ? row.self_cuda_memory_usage : row.self_cpu_memory_usage;
    if (bytes == 0) continue;
    result.allocated_by.push_back({row.key, row.count, bytes});
    result.profiled_bytes += bytes;
  }
  std::stable_sort(result.allocated_by.begin(), result.allocated_by.end(),
                   [](const AllocatedBy& a, const AllocatedBy& b) { return a.bytes > b.bytes; });
  result.memory_table = prof.key_averages().table(on_gpu ? "self_cuda_memory_usage" : "self_cpu_memory_usage", 8);
}

}  // namespace

Result run(Device device, int steps) {
  Result result;
  result.device = device;
  for (Keep keep : {Keep::Loss, Keep::Item, Keep::LossAfterBackward})
    result.curves.push_back(run_loop(keep, device, steps));
  find_what_one_loss_holds(device, result);
  profile_one_kept_loss(device, result);
  return result;
}

}  // namespace exercises::memory_leak
