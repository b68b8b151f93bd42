// The device-independent op sweep (op_sweep.h).
#include "op_sweep.h"

#include "op_runner.h"

using namespace ember;
using fixture::json;

namespace op_sweep {

Report run_each(const json& cases, const CaseCheck& check) {
  Report report;
  for (const json& c : cases) {
    const std::string name = c.value("name", std::string("(unnamed)"));
    try {
      const std::string difference = check(c);
      ++report.checked;
      if (!difference.empty()) report.failures.push_back("op case " + name + ": " + difference);
    } catch (const std::exception& e) {
      report.failures.push_back("op case " + name + " threw: " + e.what());
    }
  }
  return report;
}

std::string check_outputs(const json& c, Device device, double factor) {
  std::vector<Tensor> inputs;
  for (const json& spec : c["inputs"]) inputs.push_back(fixture::make(spec, false, nullptr, device));
  const std::vector<Tensor> outputs = fixture::run_op(c["op"], inputs, c["args"]);
  const json& expected = c["output"];
  const size_t wanted = expected.is_array() ? expected.size() : 1;
  if (outputs.size() != wanted)
    return std::to_string(outputs.size()) + " outputs, PyTorch gave " + std::to_string(wanted);
  for (size_t i = 0; i < outputs.size(); ++i) {
    if (outputs[i].device() != device) return "output " + std::to_string(i) + " is on " + outputs[i].device().str();
    const std::string difference =
        fixture::compare_loosely(outputs[i].to(kCPU), expected.is_array() ? expected[i] : expected, factor);
    if (!difference.empty()) return "output " + std::to_string(i) + ": " + difference;
  }
  return "";
}

std::string check_gradients(const json& c, Device device, double factor) {
  std::vector<Tensor> inputs, bases;
  for (const json& spec : c["inputs"]) {
    Tensor base;
    inputs.push_back(fixture::make(spec, /*requires_grad=*/true, &base, device));
    bases.push_back(base);
  }
  const Tensor out = fixture::run_op(c["op"], inputs, c["args"])[0];
  if (!out.requires_grad()) return "the output does not require grad";
  out.backward(fixture::make(c["grad_output"], false, nullptr, device));
  for (size_t i = 0; i < bases.size(); ++i) {
    const json& expected = c["grads"][i];
    if (expected.is_null()) continue;
    const std::string input = "gradient of input " + std::to_string(i);
    const Tensor grad = bases[i].grad();
    if (!grad.defined()) return input + " is undefined";
    if (grad.device() != device) return input + " is on " + grad.device().str();
    const std::string difference = fixture::compare_loosely(grad.to(kCPU), expected, factor);
    if (!difference.empty()) return input + ": " + difference;
  }
  return "";
}

}  // namespace op_sweep
