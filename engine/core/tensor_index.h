// The indices of Python's basic indexing as libtorch's at::indexing spells them (Slice, None,
// Ellipsis, an integer): the types only, here below Tensor so that its index and index_put_
// methods can take them. What they do is ops/indexing.h's.
#pragma once
#include <cstdint>
#include <optional>
#include <variant>

namespace ember::indexing {

// None: a new dimension of size 1 (an index), or a bound left out (in a Slice), as in libtorch.
inline constexpr std::nullopt_t None = std::nullopt;
struct NoneIndex {
  constexpr NoneIndex() = default;
  constexpr NoneIndex(std::nullopt_t) {}
};
struct EllipsisIndex {};  // ...: as many full slices as the other indices leave
inline constexpr EllipsisIndex Ellipsis;

// start:stop:step, Python's rules: a bound left out means the whole dimension, a negative one
// counts from the end, an out-of-range one is clamped; the step must be positive.
struct Slice {
  std::optional<int64_t> start, stop, step;
  Slice() = default;
  Slice(std::optional<int64_t> start, std::optional<int64_t> stop, std::optional<int64_t> step = std::nullopt)
      : start(start),
        stop(stop),
        step(step) {}
};

using TensorIndex = std::variant<int64_t, Slice, NoneIndex, EllipsisIndex>;

}  // namespace ember::indexing
