// Shared by tests/test_random_*.cpp: tensors compared with tests/fixtures/random.json and
// nn_random.json by raw bit pattern or by hash, as tools/fixtures/random_bits.py writes them, and
// PyTorch's messages for the random ops' errors.
#pragma once
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "ember.h"
#include "fixture.h"

namespace random_bits {

using ember::Dims;
using ember::DType;
using ember::str_cat;
using ember::Tensor;
using fixture::json;

inline Dims dims_of(const json& list) {
  std::vector<int64_t> values;
  for (const json& v : list) values.push_back(v.get<int64_t>());
  return Dims(values);
}

template <typename T>
inline T element(const char* data, int64_t i) {
  T value;
  std::memcpy(&value, data + i * sizeof(T), sizeof(T));
  return value;
}

// Row-major raw bit patterns, encoded as the fixtures encode them: IEEE bits as unsigned integers
// for floating dtypes, values for int64, 0/1 for bool.
inline json bits_of(const Tensor& t) {
  const Tensor c = t.contiguous();
  const char* data = static_cast<const char*>(c.raw_data());
  json bits = json::array();
  for (int64_t i = 0; i < c.numel(); ++i) {
    switch (c.dtype()) {
      case DType::Float32: bits.push_back(element<uint32_t>(data, i)); break;
      case DType::Float64: bits.push_back(element<uint64_t>(data, i)); break;
      case DType::BFloat16:
      case DType::Float16: bits.push_back(element<uint16_t>(data, i)); break;
      case DType::Int64: bits.push_back(element<int64_t>(data, i)); break;
      case DType::Bool: bits.push_back(element<bool>(data, i) ? 1 : 0); break;
    }
  }
  return bits;
}

// "" when t has the spec's shape, dtype and exact bits; else where they first differ.
inline std::string bit_difference(const Tensor& t, const json& spec) {
  if (t.sizes() != dims_of(spec["shape"])) return "shape " + to_string(t.sizes());
  if (t.dtype() != fixture::parse_dtype(spec["dtype"])) return "dtype " + to_string(t.dtype());
  const json actual = bits_of(t);
  const json& expected = spec["bits"];
  for (size_t i = 0; i < actual.size(); ++i)
    if (actual[i] != expected[i])
      return str_cat("element ", i, ": bits ", actual[i].dump(), " != PyTorch's ", expected[i].dump());
  return "";
}

// FNV-1a (64-bit) over the tensor's bytes, as tools/fixtures/random_bits.py hashes them.
inline uint64_t fnv1a64(const Tensor& t, uint64_t hash = 0xcbf29ce484222325ull) {
  const Tensor c = t.contiguous();
  const unsigned char* bytes = static_cast<const unsigned char*>(c.raw_data());
  for (int64_t i = 0; i < c.numel() * c.element_size(); ++i) {
    hash ^= bytes[i];
    hash *= 0x100000001b3ull;
  }
  return hash;
}

// "" when t hashes to the digest and its sampled elements have the digest's bits.
inline std::string digest_difference(const Tensor& t, const json& digest) {
  if (t.sizes() != dims_of(digest["shape"])) return "shape " + to_string(t.sizes());
  const json bits = bits_of(t);
  for (const json& sample : digest["samples"]) {
    const int64_t index = sample[0].get<int64_t>();
    if (bits[index] != sample[1])
      return str_cat("element ", index, ": bits ", bits[index].dump(), " != PyTorch's ", sample[1].dump());
  }
  if (fnv1a64(t) != digest["fnv1a64"].get<uint64_t>()) return "the hash differs (the samples match)";
  return "";
}

inline std::string torch_message(const std::string& name) {
  for (const json& e : fixture::load("random.json")["errors"])
    if (e["name"] == name) return e["message"];
  throw std::runtime_error("no random.json error " + name);
}

}  // namespace random_bits
