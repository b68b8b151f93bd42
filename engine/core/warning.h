// Warnings: PyTorch's TORCH_WARN. Some misuse is not an error but deserves a word (an autocast
// region that cannot run and is disabled instead); ember prints it to stderr as Python would show
// it, "UserWarning: <PyTorch's text>", or hands it to a handler that a program or test installed.
//
// Some warnings come from code a loop runs every step (reading a non-leaf's .grad, mse_loss with
// mismatched sizes). Python's default filter shows such a warning once per line of code, and
// TORCH_WARN_ONCE once per process; ember, without line numbers, reports each text once
// (warn_once), unless set_warn_always(true), PyTorch's torch.set_warn_always, asks for every one.
#pragma once
#include <functional>
#include <string>

namespace ember {

// Reports `message` through the current handler (by default: "UserWarning: message" on stderr).
void warn(const std::string& message);
// Reports `message` the first time this text is warned in the process (or always: set_warn_always).
void warn_once(const std::string& message);

// torch.set_warn_always / torch.is_warn_always_enabled: warn_once reports every time while set.
void set_warn_always(bool always);
bool is_warn_always_enabled();

// Installs `handler` for this process until the returned previous handler is put back
// (an empty handler restores the default).
using WarningHandler = std::function<void(const std::string& message)>;
WarningHandler set_warning_handler(WarningHandler handler);

}  // namespace ember
