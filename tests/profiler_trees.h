// Event trees as the profiler tests compare them with PyTorch 1.13's (tests/fixtures/profiler.json):
// names in the order the events started, nested as they ran, and, when asked, each event's input
// shapes as record_shapes records them. PyTorch's tree leaves out the calls
// of profiler/documented_differences.h (an event left out passes its children up to its parent);
// nothing else may differ.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "ember.h"
#include "fixture.h"

namespace profiler_trees {

using Shapes = std::vector<std::vector<int64_t>>;

struct Node {
  std::string name;
  Shapes input_shapes;  // empty unless the tree was taken with shapes
  std::vector<Node> children;
  bool operator==(const Node&) const = default;
};

enum class WithShapes : bool { No, Yes };
// A fixture tree ([{"name", "input_shapes", "children"}, ...]) without the documented differences.
std::vector<Node> pytorch_tree(const fixture::json& events, WithShapes with_shapes = WithShapes::No);
// The top-level events of a profile, each with the events inside it.
std::vector<Node> ember_tree(const ember::profiler::EventList& list, WithShapes with_shapes = WithShapes::No);
// "parent > name" -> how many times: the names, their counts and their nesting, without order.
std::map<std::string, int> edge_counts(const std::vector<Node>& roots);
// One name a line (and its shapes, if taken), indented two spaces a level.
std::string printed(const std::vector<Node>& roots);
// Whether PyTorch's tree (as in the fixture, nothing left out) has `name` directly inside `under`
// ("" : anywhere).
bool pytorch_records(const fixture::json& events, const std::string& name, const std::string& under);

}  // namespace profiler_trees
