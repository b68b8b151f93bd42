// The chapter's exercise 1: reproduce a memory leak. Three loops over the same model and batch,
// printing memory_allocated() per step: keeping `loss` (with its graph), keeping `loss.item()`,
// and keeping `loss` after backward() freed its graph's saved tensors. It names the tensors a
// kept loss holds, checks they account for every byte of growth, shows which ops allocated them
// (a step profiled with profile_memory), and draws the curves. Each loop's memory timeline by
// category (profiler/memory_timeline.h) shows what grows: activations, a forward pass a step, when
// losses are kept; its chart and pages are written beside the others.
//   build/demos/exercise1_memory_leak [output folder]   (default ./exercise-output)
#include <cstdio>
#include <iostream>

#include "command_line.h"
#include "exercises/chart.h"
#include "exercises/memory_leak.h"

using namespace ember;
using namespace exercises;

namespace {

void report(const memory_leak::Result& result, const std::string& folder) {
  std::printf("memory_allocated(%s) after each step, in bytes above where the loop started:\n",
              result.device.str().c_str());
  std::printf("%6s", "step");
  for (const auto& curve : result.curves) std::printf(" %30s", memory_leak::describe(curve.keep));
  std::printf("\n");
  const size_t steps = result.curves[0].bytes.size();
  for (size_t step = 0; step < steps; ++step) {
    std::printf("%6zu", step + 1);
    for (const auto& curve : result.curves) std::printf(" %30lld", static_cast<long long>(curve.bytes[step]));
    std::printf("\n");
  }
  std::printf("\ngrowth per step:\n");
  for (const auto& curve : result.curves)
    std::printf("  %-30s %8lld bytes%s\n", memory_leak::describe(curve.keep),
                static_cast<long long>(curve.bytes_per_step()), curve.grows_linearly() ? "" : " (not a straight line)");

  std::printf("\nthe memory timeline's activations (bytes saved for backward) after each step:\n");
  for (const auto& curve : result.curves) {
    const std::vector<int64_t>& a = curve.activation_bytes;
    std::printf("  %-30s %lld, %lld, %lld, ..., %lld: %+lld bytes a step\n", memory_leak::describe(curve.keep),
                static_cast<long long>(a[0]), static_cast<long long>(a[1]), static_cast<long long>(a[2]),
                static_cast<long long>(a.back()), static_cast<long long>(a[1] - a[0]));
  }

  std::printf("\nwhat one kept loss holds (each storage allocated in its step, once):\n");
  for (const auto& t : result.held)
    std::printf("  %-31s %-10s %-6s %7lld bytes\n", t.held_by.c_str(), to_string(t.sizes).c_str(),
                scalar_type_name(t.dtype), static_cast<long long>(t.bytes));
  const int64_t leak = result.curves[0].bytes_per_step();
  std::printf("  %-49s %7lld bytes: %s the growth per step of the first loop\n", "together",
              static_cast<long long>(result.held_bytes), result.held_bytes == leak ? "exactly" : "NOT");
  std::printf("\nwhich op allocated it: one such step profiled with profile_memory=True (self memory per op):\n%s",
              result.memory_table.c_str());
  for (const auto& op : result.allocated_by)
    std::printf("  %-31s %4lld %-5s %+10lld bytes%s\n", op.op.c_str(), static_cast<long long>(op.calls),
                op.calls == 1 ? "call" : "calls", static_cast<long long>(op.bytes),
                op.op == "[memory]" ? " (freed between ops)" : "");
  std::printf("  %-42s %+10lld bytes: %s the growth per step of the first loop\n", "together",
              static_cast<long long>(result.profiled_bytes), result.profiled_bytes == leak ? "exactly" : "NOT");
  std::printf("\nAfter backward() the saved tensors are freed, so a kept loss holds only itself (%lld bytes).\n",
              static_cast<long long>(result.loss_bytes));
  std::printf("Keep loss.item() (or loss.detach()) and nothing grows.\n\n");

  Table table;
  table.columns = {"step"};
  for (const auto& curve : result.curves)
    table.columns.push_back(std::string(memory_leak::describe(curve.keep)) + ": +" +
                            std::to_string(curve.bytes_per_step()) + " bytes a step");
  for (size_t step = 0; step < steps; ++step) {
    std::vector<double> row = {static_cast<double>(step + 1)};
    for (const auto& curve : result.curves) row.push_back(static_cast<double>(curve.bytes[step]));
    table.rows.push_back(row);
  }
  const std::string device_name = result.device.is_cuda() ? "cuda" : "cpu";
  std::cout << write_line_chart(folder + "/exercise1_memory_" + device_name, table,
                                {"Exercise 1: keeping the loss keeps its graph (" + result.device.str() + ")",
                                 "training step", "memory_allocated above the start (bytes; 0 is drawn at 1)",
                                 /*log_y_floor=*/1, /*linear_inset=*/true});

  Table activations;
  activations.columns = {"step"};
  for (const auto& curve : result.curves) {
    const std::vector<int64_t>& a = curve.activation_bytes;
    activations.columns.push_back(std::string(memory_leak::describe(curve.keep)) + ": +" + std::to_string(a[1] - a[0]) +
                                  " bytes of activations a step");
  }
  for (size_t step = 0; step < steps; ++step) {
    std::vector<double> row = {static_cast<double>(step + 1)};
    for (const auto& curve : result.curves) row.push_back(static_cast<double>(curve.activation_bytes[step]));
    activations.rows.push_back(row);
  }
  const ChartStyle style{"Exercise 1: activations in each loop's memory timeline (" + result.device.str() + ")",
                         "training step", "activations held after the step (bytes saved for backward)"};
  std::cout << write_line_chart(folder + "/exercise1_activations_" + device_name, activations, style);
  // Each loop's whole timeline, by category: a PNG (gnuplot) and a page that needs nothing to be read.
  const char* names[] = {"keep_loss", "keep_item", "keep_loss_after_backward"};
  for (size_t i = 0; i < result.curves.size(); ++i) {
    const std::string stem = folder + "/exercise1_timeline_" + names[i] + "_" + device_name;
    for (const char* extension : {".png", ".html"}) {
      try {
        result.curves[i].timeline->export_memory_timeline(stem + extension);
        std::cout << "  wrote " << stem << extension << "\n";
      } catch (const Error& e) {
        std::cout << "  no " << stem << extension << ": " << e.what() << "\n";
      }
    }
  }
}

}  // namespace

int memory_leak_exercise(const std::string& folder) {
  constexpr int kSteps = 20;
  report(memory_leak::run(kCPU, kSteps), folder);
  if (!cuda::is_available()) {
#ifdef EMBER_WITH_CUDA
    std::printf("\nember found no CUDA GPU here, so only the CPU curve is drawn.\n");
#else
    std::printf("\nember was built without CUDA, so only the CPU curve is drawn.\n");
#endif
    return 0;
  }
  try {
    std::printf("\n");
    report(memory_leak::run(Device(DeviceType::CUDA, 0), kSteps), folder);
  } catch (const Error& e) {
    std::printf("\nThe CUDA run stopped: %s\n", e.what());
  }
  return 0;
}

int main(int argc, char** argv) {
  return demos::run(argc, argv, "[output folder]   (default ./exercise-output)", 1,
                    [&] { return memory_leak_exercise(demos::output_folder(argc, argv, "exercise-output")); });
}
