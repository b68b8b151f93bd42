// The backward engine: runs the graph from a root to the leaves.
#pragma once
#include "core/tensor.h"

namespace ember::autograd {

// Propagates `gradient` (d root / d root) back through root's graph and accumulates into the
// .grad of every leaf that requires grad. Frees saved tensors unless retain_graph.
void run_backward(const Tensor& root, const Tensor& gradient, bool retain_graph);

}  // namespace ember::autograd
