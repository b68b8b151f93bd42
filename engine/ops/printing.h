// Numbers written as PyTorch's Python side writes them, for the messages and reprs that quote them.
#pragma once
#include <string>

namespace ember::internal {

// A double as Python's repr() writes it ("2.0", "0.1", "1e+20").
std::string python_float_repr(double value);

}  // namespace ember::internal
