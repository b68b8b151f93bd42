// libtorch's "Tensor Basics" page as a program: element access, tensors over one's own memory,
// scalars and zero-dimensional tensors, and indexing. Prints the same built on libtorch or ember.
#include <iostream>

#include "torch_or_ember.h"

int main() {
  // Element access on the CPU: an accessor checks dtype and dimensions once.
  torch::Tensor foo = torch::arange(9, torch::kFloat32).reshape({3, 3});
  auto foo_a = foo.accessor<float, 2>();
  float trace = 0;
  for (int i = 0; i < foo_a.size(0); i++) trace += foo_a[i][i];
  std::cout << "trace: " << trace << std::endl;

  // Memory someone else owns: from_blob, without and with a deleter.
  float data[] = {1, 2, 3, 4, 5, 6};
  torch::Tensor blob = torch::from_blob(data, {2, 3});
  std::cout << blob << std::endl;
  std::cout << blob.sizes() << " " << blob.strides() << " " << blob.toString() << std::endl;
  data[0] = 100;  // the tensor sees it: no copy was made
  std::cout << blob[0][0].item<float>() << std::endl;
  int freed = 0;
  {
    auto* owned = new double[3]{0.5, 1.5, 2.5};
    torch::Tensor t = torch::from_blob(
        owned, {3},
        [&](void* p) {
          delete[] static_cast<double*>(p);
          ++freed;
        },
        torch::kFloat64);
    std::cout << t << std::endl;
  }
  std::cout << "deleter calls: " << freed << std::endl;

  // Scalars and zero-dimensional tensors.
  torch::Scalar s = 2.5;
  torch::Tensor ones = torch::ones({2, 2});
  torch::Tensor shifted = ones + s;
  torch::Tensor total = shifted.sum();
  std::cout << total << std::endl;
  std::cout << total.dim() << " " << total.item<float>() << std::endl;

  // Indexing with torch::indexing: Slice, None, Ellipsis.
  using namespace torch::indexing;
  torch::Tensor t = torch::arange(12).reshape({3, 4});
  std::cout << t.index({Slice(), 1}) << std::endl;
  std::cout << t.index({Slice(1, None), Slice(None, None, 2)}) << std::endl;
  std::cout << t.index({Ellipsis, -1}) << std::endl;
  std::cout << t.index({None, 0}).sizes() << std::endl;
  t.index_put_({0, Slice(0, 2)}, 100);
  t.index_put_({Slice(), 3}, torch::full({3}, 7, torch::kInt64));
  t[2][0] = -1;
  std::cout << t << std::endl;
  std::cout << t.sum(1, true) << std::endl;
  std::cout << t.to(torch::kFloat64).mean() << std::endl;
  std::cout << (t > 6).to(torch::kFloat32) * 0.25 << std::endl;
  std::cout << torch::tensor({0.001, 1000.0}) << std::endl;
}
