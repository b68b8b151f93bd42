// One row of the ember-vs-libtorch table, as each side's workloads.h build hands it to main.cpp.
#pragma once
#include <functional>
#include <string>
#include <vector>

namespace vs_libtorch {

struct Workload {
  std::string name;
  double flops = 0;                         // per call, where a rate is worth printing
  std::function<void()> call;               // what is timed
  std::function<std::vector<float>()> out;  // a result both sides must agree on (empty if none)
  double product_flops = 0;                 // per call, of its matrix products: its floor (fma_peak.h)
};

}  // namespace vs_libtorch

std::vector<vs_libtorch::Workload> ember_workloads();
std::vector<vs_libtorch::Workload> torch_workloads();
void ember_set_threads(int n);
void torch_set_threads(int n);
bool torch_uses_openblas();
