// Event trees for the profiler tests (profiler_trees.h).
#include "profiler_trees.h"

#include <algorithm>

#include "profiler/documented_differences.h"

namespace profiler_trees {
namespace {

bool documented(const std::string& name, const std::string& parent) {
  return std::any_of(
      std::begin(ember::profiler::kDocumentedDifferences), std::end(ember::profiler::kDocumentedDifferences),
      [&](const auto& row) { return name == row.name && (std::string(row.under).empty() || parent == row.under); });
}

std::vector<Node> without_documented(const fixture::json& events, const std::string& parent, WithShapes with_shapes) {
  std::vector<Node> nodes;
  for (const fixture::json& event : events) {
    const std::string name = event["name"];
    std::vector<Node> children = without_documented(event["children"], name, with_shapes);
    if (documented(name, parent)) nodes.insert(nodes.end(), children.begin(), children.end());
    else
      nodes.push_back(
          {name, with_shapes == WithShapes::Yes ? event["input_shapes"].get<Shapes>() : Shapes{}, std::move(children)});
  }
  return nodes;
}

Node ember_subtree(const ember::profiler::EventList& list, int64_t index, WithShapes with_shapes) {
  const ember::profiler::Event& event = list.events()[index];
  Node node{event.name, with_shapes == WithShapes::Yes ? event.input_shapes : Shapes{}, {}};
  for (int64_t child : event.children) node.children.push_back(ember_subtree(list, child, with_shapes));
  return node;
}

void count_edges(const std::vector<Node>& nodes, const std::string& parent, std::map<std::string, int>& counts) {
  for (const Node& node : nodes) {
    ++counts[parent + " > " + node.name];
    count_edges(node.children, node.name, counts);
  }
}

void print(const std::vector<Node>& nodes, int depth, std::string& out) {
  for (const Node& node : nodes) {
    out += std::string(2 * depth, ' ') + node.name;
    if (!node.input_shapes.empty()) out += " " + ember::profiler::shapes_string(node.input_shapes);
    out += "\n";
    print(node.children, depth + 1, out);
  }
}

}  // namespace

std::vector<Node> pytorch_tree(const fixture::json& events, WithShapes with_shapes) {
  return without_documented(events, "", with_shapes);
}

std::vector<Node> ember_tree(const ember::profiler::EventList& list, WithShapes with_shapes) {
  std::vector<Node> roots;
  for (size_t i = 0; i < list.events().size(); ++i)
    if (list.events()[i].parent < 0) roots.push_back(ember_subtree(list, static_cast<int64_t>(i), with_shapes));
  return roots;
}

std::map<std::string, int> edge_counts(const std::vector<Node>& roots) {
  std::map<std::string, int> counts;
  count_edges(roots, "(top)", counts);
  return counts;
}

std::string printed(const std::vector<Node>& roots) {
  std::string out;
  print(roots, 0, out);
  return out;
}

bool pytorch_records(const fixture::json& events, const std::string& name, const std::string& under) {
  for (const fixture::json& event : events) {
    const std::string child_name = event["name"];
    if (child_name == name && under.empty()) return true;
    if (child_name == under && std::any_of(event["children"].begin(), event["children"].end(),
                                           [&](const fixture::json& child) { return child["name"] == name; }))
      return true;
    if (pytorch_records(event["children"], name, under)) return true;
  }
  return false;
}

}  // namespace profiler_trees
