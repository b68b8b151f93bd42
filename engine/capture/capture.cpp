// The capture's bookkeeping: which tensor is which graph value, and the graph's readable form.
#include "capture.h"

#include <algorithm>
#include <charconv>
#include <sstream>

namespace ember::capture {

namespace {
thread_local Session* this_thread_session = nullptr;

// "aten::add" -> "add", as FX names a node after its target.
std::string short_name(const std::string& op) {
  const size_t colon = op.rfind(':');
  std::string name = colon == std::string::npos ? op : op.substr(colon + 1);
  if (!name.empty() && name.back() == '_') name.pop_back();  // add_ writes a value named add
  return name;
}

std::string number_text(double number) {
  char text[32];
  const auto end = std::to_chars(text, text + sizeof text, number).ptr;
  return std::string(text, end);
}

auto layout_key(const Tensor& t) {
  const auto* data = static_cast<const uint8_t*>(t.raw_data());
  return std::make_tuple(static_cast<const void*>(data - t.storage_offset() * t.element_size()), t.storage_offset(),
                         t.sizes().vec(), t.strides().vec());
}
}  // namespace

Session* current() { return this_thread_session; }

Session::Session(const std::vector<Tensor>& inputs, const std::vector<std::string>& input_names) {
  EMBER_CHECK(this_thread_session == nullptr, "ember::compile: a capture is already running on this thread");
  for (size_t i = 0; i < inputs.size(); ++i)
    add_known(inputs[i], i < input_names.size() ? input_names[i] : str_cat("arg", i), nullptr);
  this_thread_session = this;
  dispatch_observers.fetch_add(1, std::memory_order_relaxed);
}

Session::~Session() {
  this_thread_session = nullptr;
  dispatch_observers.fetch_sub(1, std::memory_order_relaxed);
}

void Session::name_constant(const Tensor& t, const std::string& name) {
  std::string clean = name;
  for (char& c : clean)
    if (c == '.') c = '_';
  constant_names_[t.impl()] = clean;
}

void Session::add_known(const Tensor& t, const std::string& name, int* value_out) {
  const int value = add_value(t, name, -1);
  if (t.defined() && t.numel() > 0) value_by_layout_[layout_key(t)] = value;
  graph_.inputs.push_back(value);
  if (value_out) *value_out = value;
}

int Session::add_value(const Tensor& t, const std::string& name, int producer) {
  std::string unique = name;
  const int count = name_counts_[name]++;
  if (count > 0) unique = str_cat(unique, "_", count);
  ValueInfo info{unique, t.sizes(), t.strides(), t.dtype(), t.device(), t.requires_grad(), producer};
  graph_.values.push_back(std::move(info));
  graph_.examples.push_back(t);
  const int value = static_cast<int>(graph_.values.size()) - 1;
  value_by_impl_[t.impl()] = value;
  return value;
}

int Session::value_of(const Tensor& t) {
  if (auto found = value_by_impl_.find(t.impl()); found != value_by_impl_.end()) return found->second;
  if (t.numel() > 0 && !value_by_layout_.empty()) {
    if (auto found = value_by_layout_.find(layout_key(t)); found != value_by_layout_.end()) {
      value_by_impl_[t.impl()] = found->second;
      also_seen_.push_back(t);
      return found->second;
    }
  }
  auto named = constant_names_.find(t.impl());
  const int value = add_value(t, named != constant_names_.end() ? named->second : "constant", -1);
  graph_.constants.push_back(value);
  graph_.constant_tensors.push_back(t);
  return value;
}

void Session::record(const char* op, bool in_place, std::vector<Argument> arguments, std::vector<int> tensor_inputs,
                     const std::vector<Tensor>& outputs, Replay replay) {
  bool functionalized = false;
  if (in_place && functionalize_temporaries && !tensor_inputs.empty() && tensor_inputs[0] >= 0) {
    const int self = tensor_inputs[0];
    const bool temporary =
        std::find(graph_.constants.begin(), graph_.constants.end(), self) != graph_.constants.end() &&
        graph_.values[self].name.rfind("constant", 0) == 0;
    const std::string name = op;
    const bool overwrites = name == "aten::fill_" || name == "aten::zero_";
    functionalized = !read_.count(self) && ((temporary && overwrites) || functional_.count(self));
    if (functionalized) in_place = false;
  }
  read_.insert(tensor_inputs.begin(), tensor_inputs.end());
  OpNode node{op, std::move(arguments), std::move(tensor_inputs), {}, in_place, std::move(replay)};
  const int index = static_cast<int>(graph_.nodes.size());
  for (const Tensor& output : outputs)
    node.outputs.push_back(output.defined() ? add_value(output, short_name(op), index) : -1);
  if (functionalized) functional_.insert(node.outputs.begin(), node.outputs.end());
  graph_.nodes.push_back(std::move(node));
}

void Session::cannot_replay(const char* op) {
  if (graph_.unreplayable.empty()) graph_.unreplayable = str_cat(op, " returns a result the capture cannot name");
}

Graph Session::finish(const std::vector<Tensor>& outputs) {
  for (const Tensor& t : outputs) graph_.outputs.push_back(t.defined() ? value_of(t) : -1);
  return std::move(graph_);
}

Argument argument(Session& session, const Tensor& t) {
  if (!t.defined()) return Argument::of(Argument::Kind::None);
  Argument a = Argument::of(Argument::Kind::Value);
  a.value = session.value_of(t);
  return a;
}
Argument argument(Session&, const std::vector<Tensor>&) {  // no fused op takes a list
  Argument a = Argument::of(Argument::Kind::Other);
  a.is_list = true;
  return a;
}
Argument argument(Session& session, const Scalar& number) { return argument(session, number.to_double()); }
Argument argument(Session&, const Dims& dims) {
  Argument a = Argument::of(Argument::Kind::Dims);
  a.dims = dims;
  return a;
}
Argument argument(Session&, bool flag) {
  Argument a = Argument::of(Argument::Kind::Flag);
  a.flag = flag;
  return a;
}
Argument argument(Session&, double number) {
  Argument a = Argument::of(Argument::Kind::Number);
  a.number = number;
  return a;
}
Argument argument(Session& session, int64_t number) { return argument(session, static_cast<double>(number)); }

std::string Graph::str() const {
  std::ostringstream out;
  out << "graph(";
  for (size_t i = 0; i < inputs.size(); ++i) out << (i ? ", " : "") << values[inputs[i]].name;
  out << "):\n";
  auto describe = [&](int value) {
    const ValueInfo& v = values[value];
    return str_cat(v.name, ": ", to_string(v.sizes), " ", scalar_type_name(v.dtype));
  };
  for (int c : constants) out << "  " << describe(c) << " (constant)\n";
  for (const OpNode& node : nodes) {
    out << "  ";
    for (size_t i = 0; i < node.outputs.size(); ++i)
      out << (i ? ", " : "") << (node.outputs[i] >= 0 ? values[node.outputs[i]].name : "_");
    out << " = " << node.op << "(";
    for (size_t i = 0; i < node.arguments.size(); ++i) {
      const Argument& a = node.arguments[i];
      out << (i ? ", " : "");
      switch (a.kind) {
        case Argument::Kind::Value: out << values[a.value].name; break;
        case Argument::Kind::Number: out << number_text(a.number); break;
        case Argument::Kind::Dims: out << to_string(a.dims); break;
        case Argument::Kind::Flag: out << (a.flag ? "True" : "False"); break;
        case Argument::Kind::None: out << "None"; break;
        case Argument::Kind::Other: out << (a.is_list ? "[...]" : "..."); break;
      }
    }
    out << ")";
    if (!node.outputs.empty() && node.outputs[0] >= 0)
      out << "  # " << to_string(values[node.outputs[0]].sizes) << " "
          << scalar_type_name(values[node.outputs[0]].dtype);
    out << "\n";
  }
  out << "  return ";
  for (size_t i = 0; i < outputs.size(); ++i)
    out << (i ? ", " : "") << (outputs[i] >= 0 ? values[outputs[i]].name : "None");
  out << "\n";
  return out.str();
}

}  // namespace ember::capture
