// The interpreter of the differential replay (tests/fixtures/replay.json, written by
// tools/fixtures/replay.py): runs one random op program through ember, statement by statement,
// and compares everything PyTorch 1.13 recorded for it. Shared by the checked-in replay and the
// long run over a generated file (tests/test_replay.cpp).
#pragma once
#include <optional>
#include <string>

#include "fixture.h"

namespace replay {

// Where and how a program first parted from PyTorch. The program stops there: what follows ran on
// different state.
struct Divergence {
  size_t statement = 0;
  std::string op;      // the statement's op ("add_", "view:transpose", "backward", ...)
  std::string aspect;  // "values", "shape", "dtype", "requires_grad", "grad_fn", "version", "contiguity",
                       // "error text", "raised", "did not raise", "grad", "final state", "crash"
  std::string detail;  // what differed: both sides' value or text
};

struct ProgramRun {
  std::optional<Divergence> divergence;  // the first, or nothing when every statement matched
  // A tensor of the program is saved by its own graph (an in-place op on a tensor a node of its
  // graph saved): a reference cycle that keeps its memory allocated. PyTorch 1.13 has the same
  // cycle (it saves such a tensor as it is, saved_variable.cpp), so it leaks there too.
  bool keeps_itself_alive = false;
};

// Runs `program` through ember, statement by statement.
ProgramRun run_program(const fixture::json& program);

// The cause bucket a divergence counts under: "<aspect>: <op>".
std::string bucket(const Divergence& divergence);

}  // namespace replay
