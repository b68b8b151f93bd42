// The chapter's first exercise: reproduce a memory leak. A loop keeps each step's loss in a list;
// memory_allocated() after every step shows what that costs. A loss that requires grad holds its
// graph, and the graph holds every tensor its nodes saved for backward (the activations), so the
// list grows by a whole forward pass of activations per step. Keeping loss.item() (a plain
// number) grows by nothing. And once backward() has run on a loss, the graph has freed its saved
// tensors (backward without retain_graph): a kept loss then costs only its own bytes. The figures
// are measured, and the bytes per step are checked against the saved tensors the graph lists.
// Each loop is also profiled with profile_memory, so its memory timeline says *what* grows: the
// activations, step by step, when losses are kept; nothing with .item().
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ember.h"

namespace exercises::memory_leak {

// What each step of the loop keeps.
enum class Keep {
  Loss,               // losses.push_back(loss), no backward: a validation loop without no_grad
  Item,               // losses.push_back(loss.item<float>()): a number
  LossAfterBackward,  // training: loss.backward(); optimizer.step(); then losses.push_back(loss)
};
const char* describe(Keep keep);

// memory_allocated(device) after each step, relative to before the loop.
struct Curve {
  Keep keep = Keep::Loss;
  std::vector<int64_t> bytes;
  // The memory timeline's activations (bytes saved for backward) after each step, and the timeline.
  std::vector<int64_t> activation_bytes;
  std::shared_ptr<const ember::profiler::MemoryTimeline> timeline;
  // The growth of the last step (the curve is a straight line: every step grows by the same).
  int64_t bytes_per_step() const;
  bool grows_linearly() const;  // every step grew by bytes_per_step()
};

// One tensor a kept loss holds on to through its graph, allocated during its step.
struct HeldTensor {
  std::string held_by;  // the nodes that saved it ("AddmmBackward0, ReluBackward0"), or "the loss itself"
  ember::Dims sizes;
  ember::DType dtype = ember::kFloat32;
  int64_t bytes = 0;
};

// Which op allocated what a kept loss holds: one step of Keep::Loss profiled with profile_memory,
// one row of key_averages() per op whose calls left bytes allocated (Self CPU Mem, or Self CUDA Mem
// on a GPU: allocated minus freed inside its own calls), and "[memory]", the bytes freed between
// ops (a temporary dropped when the next op has run), which is negative.
struct AllocatedBy {
  std::string op;  // "aten::addmm", "[memory]"
  int64_t calls = 0;
  int64_t bytes = 0;
};

struct Result {
  ember::Device device;
  std::vector<Curve> curves;              // one per Keep, in the enum's order
  std::vector<HeldTensor> held;           // what one kept loss (Keep::Loss) holds: each storage once
  int64_t held_bytes = 0;                 // their sum: what Keep::Loss should grow by per step
  int64_t loss_bytes = 0;                 // the loss's own storage: what LossAfterBackward should grow by
  std::vector<AllocatedBy> allocated_by;  // largest first
  int64_t profiled_bytes = 0;             // their sum: what the profiled step left allocated
  std::string memory_table;               // the profile's table, sorted by self memory
};

// Runs the three loops for `steps` steps on `device` (a small MLP classifier, batch 32).
Result run(ember::Device device, int steps);

}  // namespace exercises::memory_leak
