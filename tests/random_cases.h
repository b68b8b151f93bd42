// Shared by tests/test_random_generator.cpp and test_random_sampling.cpp: a case of
// tests/fixtures/random.json run through ember, call by call, on the generators the case names
// (the "calls" layout is in tools/fixtures/random.py). The generator tests and the sampling tests
// both replay these cases, so the one interpreter of a call lives here.
#pragma once
#include <stdexcept>
#include <string>
#include <vector>

#include "ember.h"
#include "fixture.h"
#include "random_bits.h"

namespace random_cases {

using fixture::json;

// One call of a fixture case, on the default generator or on the case's own one.
inline ember::Tensor run_call(const json& call, ember::Generator& own_generator) {
  using random_bits::dims_of;
  const std::string op = call["op"];
  ember::Generator* generator = call.value("generator", "") == "own" ? &own_generator : nullptr;
  const ember::DType dtype = call.contains("dtype") ? fixture::parse_dtype(call["dtype"]) : ember::kFloat32;
  if (op == "randn") return ember::randn(dims_of(call["sizes"]), dtype, generator);
  if (op == "rand") return ember::rand(dims_of(call["sizes"]), dtype, generator);
  if (op == "randint") return ember::randint(call["low"], call["high"], dims_of(call["sizes"]), dtype, generator);
  if (op == "randperm") return ember::randperm(call["n"], dtype, generator);
  if (op == "bernoulli") return ember::bernoulli(fixture::make(call["probabilities"]), generator);
  const ember::Dims sizes = dims_of(call["sizes"]);
  ember::Tensor t =
      call["layout"] == "transposed" ? ember::empty({sizes[1], sizes[0]}, dtype).t() : ember::empty(sizes, dtype);
  if (op == "uniform_") return ember::uniform_(t, call["from"], call["to"], generator);
  if (op == "normal_") return ember::normal_(t, call["mean"], call["std"], generator);
  if (op == "bernoulli_") return ember::bernoulli_(t, call["p"], generator);
  throw std::runtime_error("unknown op " + op);
}

// Seeds the default generator as the case says and runs its calls in order.
inline std::vector<ember::Tensor> run_case(const json& c) {
  ember::manual_seed(c["seed"].get<uint64_t>());
  ember::Generator own_generator(c.value("generator_seed", ember::Generator::kDefaultSeed));
  std::vector<ember::Tensor> outputs;
  for (const json& call : c["calls"]) outputs.push_back(run_call(call, own_generator));
  return outputs;
}

inline const json& find_case(const std::string& name) {
  for (const json& c : fixture::load("random.json")["cases"])
    if (c["name"] == name) return c;
  throw std::runtime_error("no random.json case " + name);
}

}  // namespace random_cases
