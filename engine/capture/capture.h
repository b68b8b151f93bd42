// Graph capture: while a capture runs on this thread, every op called at the top level (not inside
// another op) is written down as it runs, with its arguments and the values it made. This is the
// part of torch.compile that sees the program: Dynamo records the ops a Python function calls into
// an FX graph, and make_fx records the ops autograd's formulas call. ember has one door for every
// op, call<Op> (dispatch.h), so the recorder sits there: the op runs eagerly as always, and the
// capture keeps its name, its arguments (tensors as graph values, numbers, dims, flags) and a
// replay, a closure that calls the same op again on other tensors. The compiler (engine/compile/)
// fuses the ops it knows and replays the others, so any op can appear in a graph.
//
// A tensor that no recorded op made and that is not an input (a module's weight, a factory's
// result) is a constant of the graph: held, and read again on every run.
#pragma once
#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "api/ops.h"
#include "core/dispatch_trace.h"
#include "core/tensor.h"

namespace ember::capture {

// One argument of a recorded op, as the compiler's lowerings read it.
struct Argument {
  enum class Kind { Value, Number, Dims, Flag, None, Other };
  static Argument of(Kind kind) {
    Argument a;
    a.kind = kind;
    return a;
  }
  Kind kind = Kind::Other;
  int value = -1;        // Value: the graph value
  double number = 0;     // Number
  Dims dims;             // Dims
  bool flag = false;     // Flag
  bool is_list = false;  // Value: one of a list (cat's tensors)
};

// What the graph knows of one value: what the capture saw, and where it came from.
struct ValueInfo {
  std::string name;  // FX's style: "x", "sigmoid", "add_1", "norm_weight"
  Dims sizes, strides;
  DType dtype = kFloat32;
  Device device;
  bool requires_grad = false;
  int producer = -1;  // the node that made it; -1 for an input or a constant
};

// Calls the op again with these tensors in place of the tensor arguments, in order.
using Replay = std::function<std::vector<Tensor>(const std::vector<Tensor>& tensors)>;

struct OpNode {
  std::string op;  // "aten::mul"
  std::vector<Argument> arguments;
  std::vector<int> tensor_inputs;  // the values the replay takes, in order (-1: an undefined tensor)
  std::vector<int> outputs;        // graph values; an in-place op's output is a new value for its self
  bool in_place = false;
  Replay replay;
};

struct Graph {
  std::vector<ValueInfo> values;
  std::vector<int> inputs;     // the function's tensor arguments, in order
  std::vector<int> constants;  // with constant_tensors: weights and other tensors held by the graph
  std::vector<Tensor> constant_tensors;
  std::vector<OpNode> nodes;
  std::vector<int> outputs;
  std::string unreplayable;  // why this graph cannot be run again ("" when it can)
  // The tensor each value was while the capture ran (what the compiler traces backward with);
  // the compiler drops them once it is done.
  std::vector<Tensor> examples;

  // FX's readable form: one line per node, `add_1 = aten::add(mul, bias, alpha=1)`.
  std::string str() const;
};

// A capture on this thread, from construction to finish(). Captures do not nest.
class Session {
 public:
  explicit Session(const std::vector<Tensor>& inputs, const std::vector<std::string>& input_names = {});
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // Autograd's formulas make temporaries and write them in place (libtorch's `1 - y` is
  // empty_like(y).fill_(1).sub_(y)). With this set, an in-place op that overwrites a temporary the
  // graph has not read (fill_, zero_), or updates one so made, is recorded as a functional op,
  // as AOTAutograd's functionalization does, so that the compiler can fuse it. A backward capture
  // sets it; a forward capture does not, since there an unnamed tensor may be the user's own.
  bool functionalize_temporaries = false;
  // Names constants by their tensor (a module's "norm.weight" becomes "norm_weight").
  void name_constant(const Tensor& t, const std::string& name);
  // Tensors that stand for values of another graph (the forward's, in a backward capture): a tensor
  // with the same storage, offset, sizes and strides is taken to be that value.
  void add_known(const Tensor& t, const std::string& name, int* value_out);
  // The graph, its outputs being these tensors.
  Graph finish(const std::vector<Tensor>& outputs);

  // ---- for captured_call (dispatch.h) ----
  bool at_top_level() const { return depth_ == 0; }
  int value_of(const Tensor& t);  // the graph value of a tensor, a new constant if unknown
  void record(const char* op, bool in_place, std::vector<Argument> arguments, std::vector<int> tensor_inputs,
              const std::vector<Tensor>& outputs, Replay replay);
  void cannot_replay(const char* op);
  struct Nested {
    explicit Nested(Session& s) : session(s) { ++session.depth_; }
    ~Nested() { --session.depth_; }
    Session& session;
  };

 private:
  int add_value(const Tensor& t, const std::string& name, int producer);
  int depth_ = 0;
  Graph graph_;
  std::vector<Tensor> also_seen_;  // tensors matched by layout, held so that their addresses stay theirs
  std::map<const void*, int> value_by_impl_;
  std::map<std::tuple<const void*, int64_t, std::vector<int64_t>, std::vector<int64_t>>, int> value_by_layout_;
  std::map<const void*, std::string> constant_names_;
  std::map<std::string, int> name_counts_;
  std::set<int> read_;        // values some recorded op has read
  std::set<int> functional_;  // values made by in-place ops recorded as functional ones
};

// This thread's capture, or null. (Each capture also counts in core/dispatch_trace.h's
// dispatch_observers, call<Op>'s one check.)
Session* current();

// ---- how captured_call (dispatch.h) turns an op call into a node ----
Argument argument(Session& session, const Tensor& t);
Argument argument(Session& session, const std::vector<Tensor>& tensors);  // a list: Other
Argument argument(Session&, const Scalar& number);
Argument argument(Session&, const Dims& dims);
Argument argument(Session&, bool flag);
Argument argument(Session&, double number);
Argument argument(Session&, int64_t number);
template <typename T>
Argument argument(Session&, const std::optional<T>& maybe) {
  return Argument::of(maybe ? Argument::Kind::Other : Argument::Kind::None);
}
template <typename T>
Argument argument(Session&, const T&) {
  return Argument::of(Argument::Kind::Other);
}

// An argument of the replay: the next tensor in place of a tensor, the rest as recorded.
template <typename T>
T rebind(const T& recorded, const std::vector<Tensor>& tensors, size_t& next) {
  if constexpr (std::is_same_v<T, Tensor>) return tensors.at(next++);
  else if constexpr (std::is_same_v<T, std::vector<Tensor>>) {
    std::vector<Tensor> list;
    for (size_t i = 0; i < recorded.size(); ++i) list.push_back(tensors.at(next++));
    return list;
  } else return recorded;
}

// The tensors an op returned, in order; nullopt for a result the capture cannot name.
template <typename Result>
std::optional<std::vector<Tensor>> outputs_of(const Result& result) {
  if constexpr (std::is_same_v<Result, Tensor>) return std::vector<Tensor>{result};
  else if constexpr (std::is_same_v<Result, std::vector<Tensor>>) return result;
  else if constexpr (std::is_same_v<Result, ValuesIndices>) return std::vector<Tensor>{result.values, result.indices};
  else if constexpr (requires { result.output, result.mean, result.rstd; })
    return std::vector<Tensor>{result.output, result.mean, result.rstd};
  else return std::nullopt;
}
// What an op that returns nothing (an in-place composite, swapdims_) made: its self.
template <typename First, typename... Rest>
std::vector<Tensor> first_tensor(const First& first, const Rest&...) {
  if constexpr (std::is_same_v<First, Tensor>) return {first};
  else return {};
}
inline std::vector<Tensor> first_tensor() { return {}; }

}  // namespace ember::capture
