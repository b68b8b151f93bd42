// autograd::to_dot draws PyTorch's graph: for each graph of tests/fixtures/graph_dot.json
// (tools/fixtures/graph_dot.py, torchviz's make_dot(show_saved=True) on PyTorch 1.13), ember's dot
// text has the same boxes (node names, leaves with their parameter names and shapes, saved tensors
// with their names and shapes, roots) and the same edges between them.
#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <map>
#include <regex>
#include <set>
#include <utility>
#include <vector>

#include "fixture.h"

using namespace ember;
using fixture::json;

namespace {

using Box = std::array<std::string, 2>;   // label, fillcolor ("" for a node)
using Line = std::array<std::string, 3>;  // from label, to label, attributes

struct Picture {
  std::vector<Box> boxes;
  std::vector<Line> edges;
};

// The boxes and edges of dot text as label multisets, sorted like the fixture's.
Picture parse(const std::string& dot) {
  static const std::regex box_line(R"re(^\t(\w+) \[label="((?:[^"\\]|\\.)*)"(?: fillcolor=(\w+))?\]$)re");
  static const std::regex edge_line(R"re(^\t(\w+) -> (\w+)(?: \[(.*)\])?$)re");
  std::map<std::string, Box> boxes;
  std::vector<std::array<std::string, 3>> edges;
  std::istringstream lines(dot);
  std::smatch m;
  for (std::string line; std::getline(lines, line);) {
    if (std::regex_match(line, m, box_line)) boxes[m[1]] = {m[2], m[3]};
    else if (std::regex_match(line, m, edge_line)) edges.push_back({m[1], m[2], m[3]});
  }
  Picture picture;
  for (const auto& [id, box] : boxes) picture.boxes.push_back(box);
  for (const auto& [from, to, attributes] : edges) picture.edges.push_back({boxes[from][0], boxes[to][0], attributes});
  std::sort(picture.boxes.begin(), picture.boxes.end());
  std::sort(picture.edges.begin(), picture.edges.end());
  return picture;
}

Picture expected_picture(const std::string& name) {
  for (const json& c : fixture::load("graph_dot.json")["cases"])
    if (c["name"] == name) {
      Picture picture;
      for (const json& b : c["boxes"]) picture.boxes.push_back({b[0], b[1]});
      for (const json& e : c["edges"]) picture.edges.push_back({e[0], e[1], e[2]});
      return picture;
    }
  throw std::runtime_error("graph_dot.json has no case " + name);
}

// Removes one box (and the edges to it) that PyTorch draws and ember does not, failing if absent.
void remove_saved_box(Picture& picture, const std::string& node, const std::string& label) {
  const auto box = std::find(picture.boxes.begin(), picture.boxes.end(), Box{label, "orange"});
  REQUIRE(box != picture.boxes.end());
  picture.boxes.erase(box);
  const auto edge = std::find(picture.edges.begin(), picture.edges.end(), Line{node, label, "dir=none"});
  REQUIRE(edge != picture.edges.end());
  picture.edges.erase(edge);
}

void check_same(const Picture& actual, const Picture& expected) {
  CHECK(actual.boxes == expected.boxes);
  CHECK(actual.edges == expected.edges);
}

}  // namespace

TEST_CASE("to_dot of linear, tanh and sum draws PyTorch's nodes, leaves, saved tensors and edges",
          "[autograd-view][graph-dot]") {
  nn::Linear linear(3, 2);
  const Tensor x = randn({4, 3});
  const Tensor loss = linear(x).tanh().sum();
  const std::string dot = autograd::to_dot(loss, linear->named_parameters());
  check_same(parse(dot), expected_picture("linear_tanh_sum"));
  // Real dot: a digraph with torchviz's node style, and the leaves in blue with their names.
  CHECK(dot.rfind("digraph {\n", 0) == 0);
  CHECK(dot.find("node [align=left fontname=monospace fontsize=10 height=0.2 ranksep=0.1 shape=box style=filled]") !=
        std::string::npos);
  CHECK(dot.find("[label=\"weight\\n (2, 3)\" fillcolor=lightblue]") != std::string::npos);
}

TEST_CASE("to_dot of a view draws its base in darker green, joined by a dotted line", "[autograd-view][graph-dot]") {
  nn::Linear linear(3, 2);
  const Tensor x = randn({4, 3});
  const Tensor out = linear(x).exp();
  check_same(parse(autograd::to_dot(out[1], linear->named_parameters())), expected_picture("view_root"));
}

TEST_CASE("to_dot of the chapter's big network draws PyTorch's graph", "[autograd-view][graph-dot]") {
  nn::Sequential big(nn::Linear(512, 512), nn::ReLU(), nn::Linear(512, 512));
  const Tensor xb = randn({256, 512});
  const Tensor loss = big(xb).sum();
  check_same(parse(autograd::to_dot(loss, big->named_parameters())), expected_picture("chapter_big"));
}

TEST_CASE("to_dot of two kept losses draws one picture, sharing the leaves, the input and the target",
          "[autograd-view][graph-dot]") {
  nn::Sequential model(nn::Linear(64, 256), nn::ReLU(), nn::Linear(256, 256), nn::ReLU(), nn::Linear(256, 10));
  const Tensor inputs = randn({32, 64}), targets = randint(0, 10, {32});
  const std::vector<Tensor> losses{cross_entropy(model(inputs), targets), cross_entropy(model(inputs), targets)};
  Picture expected = expected_picture("kept_losses");
  // PyTorch's NllLossBackward0 keeps its input, which ember's formula does not read (only its
  // sizes: tests/test_saved_tensors.cpp lists the same difference).
  for (int loss = 0; loss < 2; ++loss) remove_saved_box(expected, "NllLossBackward0", "self\\n (32, 10)");
  check_same(parse(autograd::to_dot(losses, model->named_parameters())), expected);
}

TEST_CASE("to_dot after backward draws the nodes without the saved tensors backward freed",
          "[autograd-view][graph-dot]") {
  nn::Linear linear(3, 2);
  const Tensor loss = linear(randn({4, 3})).tanh().sum();
  loss.backward();
  const std::string dot = autograd::to_dot(loss);
  INFO(dot);
  const Picture picture = parse(dot);
  CHECK(std::none_of(picture.boxes.begin(), picture.boxes.end(), [](const Box& b) { return b[1] == "orange"; }));
  CHECK(std::count(picture.boxes.begin(), picture.boxes.end(), Box{"AccumulateGrad", ""}) == 2);
  CHECK(std::count(picture.boxes.begin(), picture.boxes.end(), Box{"\\n (2, 3)", "lightblue"}) == 1);
}

TEST_CASE("to_dot reads a tensor saved through hooks with its unpack hook", "[autograd-view][graph-dot]") {
  int unpacks = 0;
  Tensor a = ones({5}, Options().requires_grad());
  Tensor y;
  {
    autograd::saved_tensors_hooks hooks([](const Tensor& t) -> std::any { return t.to(kBFloat16); },
                                        [&](const std::any& packed) {
                                          ++unpacks;
                                          return std::any_cast<Tensor>(packed).to(kFloat32);
                                        });
    y = a.exp().tanh();  // two outputs saved: each unpack makes a new tensor, each gets its box
  }
  const std::string dot = autograd::to_dot(y, {{"a", a}});
  INFO(dot);
  const Picture picture = parse(dot);
  CHECK(unpacks == 2);
  CHECK(std::count(picture.boxes.begin(), picture.boxes.end(), Box{"result\\n (5)", "orange"}) == 2);
  CHECK(std::count(picture.boxes.begin(), picture.boxes.end(), Box{"a\\n (5)", "lightblue"}) == 1);
}

TEST_CASE("every node kind that saves tensors names them once, with PyTorch's names", "[autograd-view][graph-dot]") {
  std::set<std::string> with_saves;
  auto check_kind = [&]<typename Backward>(Backward*) {
    constexpr size_t count = std::tuple_size_v<decltype(autograd::saved_tensors_of(std::declval<Backward&>()))>;
    INFO(Backward::name);
    if constexpr (count > 0) {
      CHECK(requires { Backward::saved_names; });  // declared with EMBER_SAVED_TENSORS (saved_tensor.h)
      with_saves.insert(Backward::name);
    }
  };
  [&]<size_t... I>(std::index_sequence<I...>) {
    (check_kind(static_cast<std::variant_alternative_t<I, autograd::BackwardFunction>*>(nullptr)), ...);
  }
  (std::make_index_sequence<std::variant_size_v<autograd::BackwardFunction>>());
  CHECK(with_saves.size() >= 30);
  // The names a node gives, in the order saved: what grad_fn._saved_<name> and the pictures use.
  Tensor a = randn({2, 3}, Options().requires_grad()), b = randn({3, 4}, Options().requires_grad());
  Tensor c = randn({2, 4}, Options().requires_grad());
  std::vector<std::string> names;
  for (const auto& [name, saved] : addmm(c, a, b).grad_fn()->named_saved_tensors()) names.push_back(name);
  CHECK(names == std::vector<std::string>{"mat1", "mat2"});
  names.clear();
  for (const auto& [name, saved] : layer_norm(a, {3}).grad_fn()->named_saved_tensors()) names.push_back(name);
  CHECK(names == std::vector<std::string>{"input", "weight", "mean", "rstd"});
}
