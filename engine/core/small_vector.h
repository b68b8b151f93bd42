// SmallVector: a vector that keeps its first N elements inside itself and goes to the heap only
// past them (PyTorch's c10::SmallVector). An autograd node has one edge and one input record per
// tensor input of its op, almost always one or two: kept inline, they cost the node no
// allocations of their own, and `a + b` with a graph no malloc for them.
//
// Deliberately plain: the inline slots are ordinary default-constructed elements, and a vector that
// grows past N moves all its elements to `overflow_` (so its elements are always in one place).
#pragma once
#include <array>
#include <cstddef>
#include <iterator>
#include <utility>
#include <vector>

namespace ember {

template <typename T, size_t N>
class SmallVector {
 public:
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

  T* data() { return on_heap() ? overflow_.data() : inline_.data(); }
  const T* data() const { return on_heap() ? overflow_.data() : inline_.data(); }
  T& operator[](size_t i) { return data()[i]; }
  const T& operator[](size_t i) const { return data()[i]; }
  T& back() { return data()[size_ - 1]; }

  T* begin() { return data(); }
  T* end() { return data() + size_; }
  const T* begin() const { return data(); }
  const T* end() const { return data() + size_; }
  std::reverse_iterator<const T*> rbegin() const { return std::reverse_iterator<const T*>(end()); }
  std::reverse_iterator<const T*> rend() const { return std::reverse_iterator<const T*>(begin()); }

  void reserve(size_t capacity) {
    if (capacity > N) move_to_heap(capacity);
  }
  void push_back(T value) {
    if (!on_heap() && size_ < N) {
      inline_[size_++] = std::move(value);
      return;
    }
    move_to_heap(size_ + 1);
    overflow_.push_back(std::move(value));
    ++size_;
  }
  void resize(size_t count) {
    if (count > N || on_heap()) {
      move_to_heap(count);
      overflow_.resize(count);
    } else {
      for (size_t i = count; i < size_; ++i) inline_[i] = T();
    }
    size_ = count;
  }

 private:
  bool on_heap() const { return overflow_.capacity() > 0; }
  void move_to_heap(size_t capacity) {
    if (!on_heap()) {
      overflow_.reserve(capacity > 2 * N ? capacity : 2 * N);
      for (size_t i = 0; i < size_; ++i) overflow_.push_back(std::move(inline_[i]));
    }
  }

  std::array<T, N> inline_{};
  size_t size_ = 0;
  std::vector<T> overflow_;  // all the elements, once there have been more than N
};

}  // namespace ember
