// A (name, tensor) pair, as Module::named_parameters() lists them and the graph pictures label
// leaves: read as a pair (`for (auto& [name, t] : ...)`, `.first`), or as libtorch's OrderedDict
// item (`item.key()`, `item.value()`), so a loop written for libtorch compiles too.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "tensor.h"

namespace ember {

struct NamedTensor : std::pair<std::string, Tensor> {
  using std::pair<std::string, Tensor>::pair;
  const std::string& key() const { return first; }
  Tensor& value() { return second; }
  const Tensor& value() const { return second; }
};
using NamedTensors = std::vector<NamedTensor>;

}  // namespace ember
