// Random tensors: torch.rand, randn, randint, randperm, bernoulli and the in-place samplers
// uniform_, normal_, bernoulli_, random_. With the same seed they give PyTorch 1.13's CPU numbers
// bit for bit (float32 and float64; bfloat16 and float16 by PyTorch's own rules for them), so a
// test can compare an ember network with a PyTorch one without copying any weights over.
//
// Every function takes an optional Generator; nullptr means default_generator(). CUDA tensors
// are sampled on the CPU generator and copied to the device: the numbers are then the CPU
// numbers, whereas PyTorch's CUDA tensors draw from a different (Philox) stream.
#pragma once
#include <cstdint>

#include "core/generator.h"
#include "core/tensor.h"

namespace ember {

// ---- new tensors ----
// Uniform on [0, 1). Floating dtypes only (float32 unless options say otherwise).
Tensor rand(const Dims& sizes, Options options = {}, Generator* generator = nullptr);
// Standard normal. Floating dtypes only.
Tensor randn(const Dims& sizes, Options options = {}, Generator* generator = nullptr);
// Integers uniform on [low, high) (int64 unless options say otherwise).
// rand and randn of t's sizes, with t's dtype and device unless the options give others.
Tensor rand_like(const Tensor& t, Options options = {}, Generator* generator = nullptr);
Tensor randn_like(const Tensor& t, Options options = {}, Generator* generator = nullptr);
Tensor randint(int64_t low, int64_t high, const Dims& sizes, Options options = {}, Generator* generator = nullptr);
Tensor randint(int64_t high, const Dims& sizes, Options options = {}, Generator* generator = nullptr);
// A random permutation of 0..n-1 (int64 unless options say otherwise).
Tensor randperm(int64_t n, Options options = {}, Generator* generator = nullptr);
// 0/1 samples, element i being 1 with probability probabilities[i]; same dtype and sizes.
Tensor bernoulli(const Tensor& probabilities, Generator* generator = nullptr);

// ---- in place (bump the version counter; PyTorch's in-place rules apply) ----
Tensor& uniform_(Tensor& self, double from = 0, double to = 1, Generator* generator = nullptr);
Tensor& normal_(Tensor& self, double mean = 0, double std = 1, Generator* generator = nullptr);
// Each element 1 with probability p, else 0.
Tensor& bernoulli_(Tensor& self, double p = 0.5, Generator* generator = nullptr);
// Integers uniform on [from, to), converted to self's dtype.
Tensor& random_(Tensor& self, int64_t from, int64_t to, Generator* generator = nullptr);
Tensor& random_(Tensor& self, int64_t to, Generator* generator = nullptr);  // [0, to)
// Every integer from 0 the dtype holds exactly: to its maximum, or to 2^digits for a float dtype.
Tensor& random_(Tensor& self, Generator* generator = nullptr);

}  // namespace ember
