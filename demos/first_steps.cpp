// A first walk through ember, in the order of the chapter it comes from (debug.py): reading a
// shape error, graphs kept alive by stored losses, forgetting eval(), views that share storage,
// and no_grad vs inference_mode. Values print the way Python prints them.
#include <iostream>
#include <string>
#include <vector>

#include "command_line.h"
#include "ember.h"

using namespace ember;

namespace {
std::string python_bools(const std::vector<bool>& values) {
  std::string out = "[";
  for (size_t i = 0; i < values.size(); ++i) out += (i ? ", " : "") + std::string(values[i] ? "True" : "False");
  return out + "]";
}
const char* python_bool(bool value) { return value ? "True" : "False"; }
}  // namespace

int first_steps() {
  manual_seed(0);

  std::cout << "-- reading a shape error --\n";
  try {
    matmul(randn({4, 8}), randn({16, 2}));
  } catch (const Error& e) {
    std::cout << "  " << e.what() << "\n";
  }
  try {
    mm(ones({2, 3}), ones({3, 2}, kFloat64));
  } catch (const Error& e) {
    std::cout << "  " << e.what() << "\n";
  }

  std::cout << "\n-- pitfall 1: keeping tensors that carry a graph --\n";
  nn::Linear model(16, 16);
  Tensor x = randn({8, 16});
  const int64_t start = memory_allocated();
  std::vector<Tensor> bad, good;
  for (int i = 0; i < 3; ++i) {
    Tensor out = relu(model(x)).sum();
    bad.push_back(out);            // each one keeps its whole graph alive
    good.push_back(out.detach());  // or out.item<float>()
  }
  std::vector<bool> bad_flags, good_flags;
  for (const Tensor& t : bad) bad_flags.push_back(t.requires_grad());
  for (const Tensor& t : good) good_flags.push_back(t.requires_grad());
  std::cout << "  still attached to a graph: " << python_bools(bad_flags) << " -> " << python_bools(good_flags) << "\n";
  std::cout << "  bytes the kept graphs hold: " << memory_allocated() - start << "\n";
  bad.clear();
  std::cout << "  after letting them go (detached losses kept): " << memory_allocated() - start << "\n";

  std::cout << "\n-- pitfall 2: forgetting eval() --\n";
  nn::Sequential net{nn::Linear(4, 4), nn::Dropout(0.5)};
  Tensor z = randn({2, 4});
  net->train();
  std::cout << "  train mode, two calls differ: " << python_bool(!allclose(net(z), net(z))) << "\n";
  net->eval();
  std::cout << "  eval mode, stable:            " << python_bool(allclose(net(z), net(z))) << "\n";

  std::cout << "\n-- pitfall 3: in-place ops and views --\n";
  Tensor t = arange(6.).reshape({2, 3});
  Tensor row = t[0];  // a view
  row += 100;
  std::cout << "  changing the view changed the original: " << t[0].tolist_str() << "\n";
  std::cout << "  t._version() = " << t._version() << ", row._version() = " << row._version() << "\n";
  std::cout << "  " << t.str() << "\n";

  std::cout << "\n-- no_grad vs inference_mode --\n";
  nn::Sequential big{nn::Linear(512, 512), nn::ReLU(), nn::Linear(512, 512)};
  Tensor xb = randn({256, 512});
  Tensor a, b;
  {
    NoGradGuard no_grad;
    a = big(xb);
  }
  {
    InferenceMode inference;
    b = big(xb);
  }
  std::cout << "  can a no_grad result re-enter a graph: "
            << python_bool(!(a * 1).requires_grad() && !a.requires_grad()) << "\n";
  try {
    (b * ones({1}, Options().requires_grad())).sum().backward();
  } catch (const Error& e) {
    const std::string message = e.what();
    std::cout << "  an inference_mode result cannot: " << message.substr(0, message.find('.')) << "\n";
  }
  return 0;
}

int main(int argc, char** argv) { return demos::run(argc, argv, "", 0, first_steps); }
