// The cases of tests/fixtures/fidelity.json (tools/fixtures/fidelity.py): what PyTorch 1.13 does
// where a differential fuzz found ember doing something else, looked up by name.
#pragma once
#include <stdexcept>
#include <string>
#include <vector>

#include "fixture.h"

namespace fidelity {

inline const fixture::json& case_named(const std::string& name) {
  for (const fixture::json& c : fixture::load("fidelity.json")["cases"])
    if (c["name"] == name) return c;
  throw std::runtime_error("fidelity.json has no case " + name);
}

// The cases whose name starts with `prefix`, in the fixture's order.
inline std::vector<fixture::json> cases_starting(const std::string& prefix) {
  std::vector<fixture::json> found;
  for (const fixture::json& c : fixture::load("fidelity.json")["cases"])
    if (c["name"].get<std::string>().rfind(prefix, 0) == 0) found.push_back(c);
  return found;
}

inline ember::Dims dims_of(const fixture::json& values) { return ember::Dims(values.get<std::vector<int64_t>>()); }

// A case's recorded error text and output.
inline std::string message(const std::string& name) { return case_named(name)["message"].get<std::string>(); }
inline const fixture::json& output(const std::string& name) { return case_named(name)["output"]; }

// A 1-d bool tensor of `values`; {true, false} when none are given.
inline ember::Tensor bools(std::vector<bool> values = {true, false}) {
  const int64_t n = static_cast<int64_t>(values.size());
  return ember::from_vector(std::move(values), {n});
}

}  // namespace fidelity
