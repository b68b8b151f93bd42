// The tour's trace (docs/tour.md): the chapter's training step watched through the dispatch trace
// (engine/core/dispatch_trace.h), in four parts:
//   1. big(xb).sum().backward()      the forward, the graph it records, the backward that runs it
//   2. optimizer.step()              SGD with momentum, in place, under no_grad
//   3. the forward under bf16 autocast, the backward after it
//   4. the forward under inference_mode
// It runs on one thread, so that every product takes the same path on every machine (a product on
// several threads is decided by the load, kernels/matmul.cpp), and prints the same text each run;
// tools/check_docs.py compares the tour's excerpts with it.
//   build/demos/tour
#include <iostream>

#include "command_line.h"
#include "ember.h"

using namespace ember;

int main(int argc, char** argv) {
  return demos::run(argc, argv, "", 0, [] {
    set_num_threads(1);
    manual_seed(0);
    nn::Sequential big{nn::Linear(512, 512), nn::ReLU(), nn::Linear(512, 512)};
    Tensor xb = randn({256, 512});
    optim::SGD optimizer(big->parameters(), optim::SGDOptions(0.01).momentum(0.9));
    auto part = [](const char* title) { std::cout << "\n== " << title << " ==\n"; };

    // One trace for the whole tour, so that a tensor keeps its name from part to part: t1 and t2
    // are big[0]'s weight and bias, t8 and t9 big[2]'s.
    DispatchTrace trace(std::cout);
    part("1. big(xb).sum().backward()");
    big(xb).sum().backward();
    part("2. optimizer.step()");
    optimizer.step();
    part("3. under bf16 autocast: big(xb).sum(), then backward()");
    Tensor loss;
    {
      AutocastGuard autocast(DeviceType::CPU, kBFloat16);
      loss = big(xb).sum();
    }
    loss.backward();
    part("4. under inference_mode: big(xb)");
    {
      InferenceMode inference_mode;
      big(xb);
    }
    return 0;
  });
}
