// Drawing the graph: one walk from the roots over next_edges, torchviz's make_dot(show_saved=True)
// step for step, except that every box is written once, with its final look (torchviz writes a
// box again when a tensor is both saved and a leaf, and lets Graphviz keep the last attributes).
#include "graph_dot.h"

#include <sstream>
#include <unordered_map>
#include <unordered_set>

#include "autograd/autograd_meta.h"

namespace ember::autograd {

namespace {

// A node's saved tensors with their names (a CopySlices shows those of the op it wraps), unpacked.
std::vector<std::pair<std::string, Tensor>> named_saved_tensors(Node& node) {
  std::vector<std::pair<std::string, Tensor>> found;
  for (const auto& [name, saved] : node.named_saved_tensors()) {
    if (saved->is_released()) continue;
    if (Tensor t = saved->unpack(); t.defined()) found.push_back({name.empty() ? "saved" : name, t});
  }
  return found;
}

std::string size_text(const Dims& sizes) {
  std::ostringstream text;
  text << '(';
  for (int64_t d = 0; d < sizes.size(); ++d) text << (d ? ", " : "") << sizes[d];
  text << ')';
  return text.str();
}

// Text inside a dot string: quotes and backslashes escaped.
std::string escaped(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

// torchviz's get_var_name, "<name>\n <sizes>": dot draws the name and the shape on two lines.
std::string tensor_label(const std::string& name, const Dims& sizes) {
  std::ostringstream label;
  label << "label=\"" << escaped(name) << "\\n " << size_text(sizes) << '"';
  return label.str();
}

class DotWriter {
 public:
  explicit DotWriter(const NamedTensors& named_parameters) {
    for (const auto& [name, t] : named_parameters)
      if (t.defined()) parameter_names_[t.impl()] = name;
  }

  void add_root(const Tensor& root, const std::string& color) {
    if (!roots_.insert(root.impl()).second) return;
    const std::string id = tensor_box(root.impl(), root.sizes(), color, name_of(root.impl()));
    if (auto fn = root.grad_fn()) edge(add_nodes(fn.get()), id);
    const AutogradMeta* meta = root.impl()->autograd_meta.get();
    if (meta && meta->is_view && meta->view_base.defined()) {
      add_root(meta->view_base, "darkolivegreen3");
      edge(box_of(meta->view_base.impl()), id, "style=dotted");
    }
  }

  std::string text() const {
    std::ostringstream out;
    out << "digraph {\n\tgraph [size=\"12,12\"]\n"
        << "\tnode [align=left fontname=monospace fontsize=10 height=0.2 ranksep=0.1 shape=box style=filled]\n";
    for (const auto& [id, attributes] : boxes_) out << "\t" << id << " [" << attributes << "]\n";
    for (const std::string& line : edges_) out << "\t" << line << "\n";
    out << "}\n";
    return out.str();
  }

 private:
  std::string name_of(const TensorImpl* impl) const {
    const auto found = parameter_names_.find(impl);
    return found == parameter_names_.end() ? "" : found->second;
  }

  // The box of a tensor, made on first sight; a leaf's look wins over a saved tensor's.
  std::string tensor_box(const TensorImpl* impl, const Dims& sizes, const std::string& color, const std::string& name) {
    auto [at, made] = tensor_boxes_.insert({impl, boxes_.size()});
    if (made) boxes_.push_back({str_cat("t", tensor_boxes_.size() - 1), ""});
    auto& [id, attributes] = boxes_[at->second];
    if (made || color == "lightblue") attributes = str_cat(tensor_label(name, sizes), " fillcolor=", color);
    return id;
  }
  std::string box_of(const TensorImpl* impl) const { return boxes_[tensor_boxes_.at(impl)].first; }

  void edge(const std::string& from, const std::string& to, const std::string& attributes = "") {
    edges_.push_back(attributes.empty() ? str_cat(from, " -> ", to) : str_cat(from, " -> ", to, " [", attributes, "]"));
  }

  // torchviz's add_nodes, without recursion (a 10 000-op chain must not overflow the stack).
  std::string add_nodes(Node* start) {
    std::vector<Node*> to_visit{start};
    while (!to_visit.empty()) {
      Node* node = to_visit.back();
      to_visit.pop_back();
      if (!visited_.insert(node).second) continue;
      const std::string id = node_id(node);
      for (auto& [name, saved] : named_saved_tensors(*node)) {
        edge(id, tensor_box(saved.impl(), saved.sizes(), "orange", name), "dir=none");
        // An unpack hook's tensor is new: kept, so that its address names no other box later.
        shown_.push_back(std::move(saved));
      }
      if (const auto* accumulate = std::get_if<AccumulateGrad>(&node->fn)) {
        const TensorImpl* leaf = accumulate->variable.lock().get();
        edge(tensor_box(leaf, leaf->sizes, "lightblue", name_of(leaf)), id);
      }
      for (auto it = node->next_edges.rbegin(); it != node->next_edges.rend(); ++it) {
        if (!it->node) continue;
        edge(node_id(it->node.get()), id);
        to_visit.push_back(it->node.get());
      }
    }
    return node_ids_.at(start);
  }

  // The box of a node: its PyTorch class name (torchviz shows AccumulateGrad without namespace).
  std::string node_id(Node* node) {
    auto [at, made] = node_ids_.insert({node, ""});
    if (made) {
      at->second = str_cat("n", node_ids_.size() - 1);
      std::string name = node->name();
      if (const size_t colon = name.rfind("::"); colon != std::string::npos) name = name.substr(colon + 2);
      boxes_.push_back({at->second, str_cat("label=\"", escaped(name), '"')});
    }
    return at->second;
  }

  std::unordered_map<const TensorImpl*, std::string> parameter_names_;
  std::unordered_set<const TensorImpl*> roots_;
  std::unordered_map<const TensorImpl*, size_t> tensor_boxes_;  // index into boxes_
  std::unordered_map<Node*, std::string> node_ids_;
  std::unordered_set<Node*> visited_;
  std::vector<std::pair<std::string, std::string>> boxes_;  // id, attributes, in order of first sight
  std::vector<std::string> edges_;
  std::vector<Tensor> shown_;  // the saved tensors drawn, alive until the text is written
};

}  // namespace

std::string to_dot(const Tensor& root, const NamedTensors& named_parameters) {
  return to_dot(std::vector<Tensor>{root}, named_parameters);
}

std::string to_dot(const std::vector<Tensor>& roots, const NamedTensors& named_parameters) {
  DotWriter writer(named_parameters);
  for (const Tensor& root : roots)
    if (root.defined()) writer.add_root(root, "darkolivegreen1");
  return writer.text();
}

}  // namespace ember::autograd
