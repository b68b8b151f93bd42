// libtorch's TORCH_ARG (torch/arg.h), which its option classes are written with: a private field
// `name_`, its getter `name()`, and a setter `name(value)` returning the options, so that they
// chain: SGDOptions(0.1).momentum(0.9).weight_decay(1e-4), or
// CrossEntropyLossOptions().weight(w).ignore_index(0).reduction(kSum). `TORCH_ARG(double, eps) = 1e-8;`
// sets a default. The optimizers' options and the loss modules' options both use it.
#pragma once

#define TORCH_ARG(T, name)                                 \
 public:                                                   \
  auto name(const T& new_##name)->decltype(*this) {        \
    this->name##_ = new_##name;                            \
    return *this;                                          \
  }                                                        \
  const T& name() const noexcept { return this->name##_; } \
                                                           \
 private:                                                  \
  T name##_
