// A first walk through ember, in the order of the chapter it comes from: reading a shape error,
// graphs kept alive by stored losses, views that share storage, and no_grad vs inference_mode.
#include <cstdio>
#include <iostream>
#include <vector>

#include "ember.h"

using namespace ember;

int main() {
  std::cout << "-- reading a shape error --\n";
  try {
    matmul(ones({4, 8}), ones({16, 2}));
  } catch (const Error& e) {
    std::cout << "  " << e.what() << "\n";
  }
  try {
    mm(ones({2, 3}), ones({3, 2}, kFloat64));
  } catch (const Error& e) {
    std::cout << "  " << e.what() << "\n";
  }

  std::cout << "\n-- stored losses keep their graphs (and memory) alive --\n";
  Tensor x = ones({8, 16});
  Tensor w = full({16, 16}, 0.01, Options().requires_grad());
  const int64_t start = memory_allocated();
  std::vector<Tensor> bad, good;
  for (int i = 0; i < 3; ++i) {
    Tensor loss = relu(x.mm(w)).sum();
    bad.push_back(loss);
    good.push_back(loss.detach());
  }
  std::cout << "  requires_grad: [" << bad[0].requires_grad() << ", " << bad[1].requires_grad() << ", "
            << bad[2].requires_grad() << "] -> [" << good[0].requires_grad() << ", " << good[1].requires_grad()
            << ", " << good[2].requires_grad() << "]\n";
  std::cout << "  bytes held with the graphs: " << memory_allocated() - start << "\n";
  bad.clear();
  std::cout << "  after dropping them (detached copies kept): " << memory_allocated() - start << "\n";

  std::cout << "\n-- views share storage --\n";
  Tensor t = arange(6.).reshape({2, 3});
  Tensor row = t[0];
  row += 100;
  std::cout << "  t[0] after row += 100: " << t[0].tolist_str() << "\n";
  std::cout << "  t._version() = " << t._version() << ", row._version() = " << row._version() << "\n";
  std::cout << "  t.t() is a view: sizes " << to_string(t.t().sizes()) << ", strides " << to_string(t.t().strides())
            << ", contiguous " << t.t().is_contiguous() << "\n";
  std::cout << "  " << t << "\n";

  std::cout << "\n-- no_grad vs inference_mode --\n";
  Tensor a, b;
  {
    NoGradGuard no_grad;
    a = x.mm(w);
  }
  {
    InferenceMode inference;
    b = x.mm(w);
  }
  std::cout << "  no_grad result requires grad: " << a.requires_grad() << ", is inference: " << a.is_inference() << "\n";
  try {
    (b * ones({1}, Options().requires_grad())).sum().backward();
  } catch (const Error& e) {
    std::string message = e.what();
    std::cout << "  inference_mode result: " << message.substr(0, message.find('.')) << "\n";
  }
  return 0;
}
