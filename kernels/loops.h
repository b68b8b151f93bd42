// The strided loop behind every element-wise kernel (PyTorch's TensorIterator, in miniature).
// N operands of the same sizes, each with its own strides (0 where an input was broadcast).
// Dimensions that are laid out back-to-back in every operand are merged first, so contiguous
// tensors become a single run; the body is then called once per innermost run with the
// operands' pointers and byte strides, and a body can special-case unit strides for speed.
// Above kGrainSize elements the runs (or the one long run, in pieces) are shared among the
// threads (parallel.h), so a body must only write its own run's outputs. The dispatch trace shows
// the runs it found ("loop: one contiguous run of 131072 elements").
#pragma once
#include <algorithm>
#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <tuple>
#include <utility>

#include "core/dispatch_trace.h"
#include "core/tensor.h"
#include "parallel.h"

namespace ember::kernels {

template <size_t N>
struct Run {
  std::array<char*, N> data;      // first element of this run, per operand
  std::array<int64_t, N> stride;  // byte stride along the run, per operand
  int64_t count;                  // elements in the run
};

// The tensors a loop reads and writes, referred to rather than copied (a copy of a Tensor is a
// reference count up and down, which for a 1-element op is a good part of its cost).
template <size_t N>
using Operands = std::array<std::reference_wrapper<const Tensor>, N>;

// One run of `count` elements from `base` with these byte strides: large ones are split into
// pieces, one per thread.
template <size_t N, typename Body>
void one_run(const std::array<char*, N>& base, const std::array<int64_t, N>& stride, int64_t count, Body& body) {
  parallel_for(0, count, kGrainSize, [&](int64_t first, int64_t last) {
    Run<N> run{base, stride, last - first};
    for (size_t k = 0; k < N; ++k) run.data[k] += first * stride[k];
    body(run);
  });
}

template <size_t N, typename Body>
void for_each_run(const Operands<N>& operands, Body&& body) {
  const Dims& sizes = operands[0].get().sizes();
  if (operands[0].get().numel() == 0) return;
  std::array<char*, N> base;
  for (size_t k = 0; k < N; ++k) base[k] = static_cast<char*>(operands[k].get().raw_data());
  // The common case first, from each tensor's cached flag: all contiguous, so one run of unit strides.
  if (std::all_of(operands.begin(), operands.end(), [](const Tensor& t) { return t.is_contiguous(); })) {
    std::array<int64_t, N> unit;
    for (size_t k = 0; k < N; ++k) unit[k] = operands[k].get().element_size();
    if (trace::enabled()) [[unlikely]]
      trace::say("loop: one contiguous run of ", operands[0].get().numel(),
                 operands[0].get().numel() == 1 ? " element" : " elements");
    one_run<N>(base, unit, operands[0].get().numel(), body);
    return;
  }
  // Per-operand byte strides, dropping size-1 dims and merging mergeable neighbours.
  Dims merged_sizes;
  std::array<Dims, N> strides;
  for (int64_t d = 0; d < sizes.size(); ++d) {
    if (sizes[d] == 1) continue;
    bool mergeable = !merged_sizes.empty();
    for (size_t k = 0; k < N && mergeable; ++k)
      mergeable = strides[k].back() == operands[k].get().stride(d) * operands[k].get().element_size() * sizes[d];
    if (mergeable) {
      merged_sizes[merged_sizes.size() - 1] *= sizes[d];
      for (size_t k = 0; k < N; ++k)
        strides[k][strides[k].size() - 1] = operands[k].get().stride(d) * operands[k].get().element_size();
    } else {
      merged_sizes.push_back(sizes[d]);
      for (size_t k = 0; k < N; ++k)
        strides[k].push_back(operands[k].get().stride(d) * operands[k].get().element_size());
    }
  }
  if (merged_sizes.empty()) {  // a single element
    Run<N> run{base, {}, 1};
    body(run);
    return;
  }
  const int64_t inner = merged_sizes.size() - 1;
  const int64_t count = merged_sizes[inner];
  std::array<int64_t, N> inner_stride;
  for (size_t k = 0; k < N; ++k) inner_stride[k] = strides[k][inner];
  int64_t outer = 1;
  for (int64_t d = 0; d < inner; ++d) outer *= merged_sizes[d];
  if (trace::enabled()) [[unlikely]] {  // "loop: 512 runs of 256 elements, byte strides 4 0 4"
    std::string byte_strides;
    for (int64_t stride : inner_stride) byte_strides += str_cat(" ", stride);
    trace::say("loop: ", outer, outer == 1 ? " run of " : " runs of ", count, count == 1 ? " element" : " elements",
               ", byte strides", byte_strides);
  }
  if (outer == 1) {
    one_run<N>(base, inner_stride, count, body);
    return;
  }
  // Runs [first, last) of the outer dimensions, walked with an odometer from the first one's index.
  auto runs = [&](int64_t first, int64_t last) {
    Dims counter = Dims::filled(inner, 0);
    for (int64_t d = inner - 1, rest = first; d >= 0; --d) {
      counter[d] = rest % merged_sizes[d];
      rest /= merged_sizes[d];
    }
    Run<N> run{base, inner_stride, count};
    for (int64_t r = first; r < last; ++r) {
      for (size_t k = 0; k < N; ++k) {
        char* p = base[k];
        for (int64_t e = 0; e < inner; ++e) p += counter[e] * strides[k][e];
        run.data[k] = p;
      }
      body(run);
      for (int64_t d = inner - 1; d >= 0 && ++counter[d] == merged_sizes[d]; --d) counter[d] = 0;
    }
  };
  parallel_for(0, outer, std::max<int64_t>(1, kGrainSize / count), runs);
}

// Applies `f` element by element: out[i] = f(in[i]...), all operands of the given C++ types.
template <typename Out, typename... In, typename F>
void map_elements(const Tensor& out, const Operands<sizeof...(In)>& inputs, F&& f) {
  constexpr size_t N = sizeof...(In) + 1;
  const Operands<N> operands = [&]<size_t... I>(std::index_sequence<I...>) { return Operands<N>{out, inputs[I]...}; }
  (std::index_sequence_for<In...>{});
  for_each_run<N>(operands, [&](const Run<N>& run) {
    auto body = [&]<size_t... I>(std::index_sequence<I...>) {
      const bool unit = run.stride[0] == sizeof(Out) && ((run.stride[I + 1] == sizeof(In)) && ...);
      const bool unit_or_repeated =
          run.stride[0] == sizeof(Out) && ((run.stride[I + 1] == sizeof(In) || run.stride[I + 1] == 0) && ...);
      if (unit) {  // the contiguous case: a plain loop the compiler vectorises
        Out* o = reinterpret_cast<Out*>(run.data[0]);
        std::tuple<const In*...> ins{reinterpret_cast<const In*>(run.data[I + 1])...};
        for (int64_t i = 0; i < run.count; ++i) o[i] = f(std::get<I>(ins)[i]...);
      } else if (unit_or_repeated) {
        // Contiguous but for inputs that repeat one value along the run (a number, a broadcast
        // scalar: stride 0). Those are read from a buffer holding their value kChunk times, so
        // the loop over each chunk is the contiguous loop above and vectorises too.
        constexpr int64_t kChunk = 256;
        const int64_t filled = std::min(kChunk, run.count);
        std::tuple<std::array<In, kChunk>...> repeated;
        ((run.stride[I + 1] == 0
              ? void(std::fill_n(std::get<I>(repeated).data(), filled, *reinterpret_cast<const In*>(run.data[I + 1])))
              : void()),
         ...);
        std::tuple<const In*...> ins{run.stride[I + 1] == 0 ? std::get<I>(repeated).data()
                                                            : reinterpret_cast<const In*>(run.data[I + 1])...};
        Out* o = reinterpret_cast<Out*>(run.data[0]);
        for (int64_t first = 0; first < run.count; first += kChunk) {
          const int64_t n = std::min(kChunk, run.count - first);
          for (int64_t i = 0; i < n; ++i) o[first + i] = f(std::get<I>(ins)[i]...);
          ((std::get<I>(ins) += run.stride[I + 1] == 0 ? 0 : n), ...);
        }
      } else {
        for (int64_t i = 0; i < run.count; ++i)
          *reinterpret_cast<Out*>(run.data[0] + i * run.stride[0]) =
              f(*reinterpret_cast<const In*>(run.data[I + 1] + i * run.stride[I + 1])...);
      }
    };
    body(std::index_sequence_for<In...>{});
  });
}

}  // namespace ember::kernels
