// Warnings: PyTorch's TORCH_WARN. Some misuse is not an error but deserves a word (an autocast
// region that cannot run and is disabled instead); ember prints it to stderr as Python would show
// it, "UserWarning: <PyTorch's text>", or hands it to a handler that a program or test installed.
#pragma once
#include <functional>
#include <string>

namespace ember {

// Reports `message` through the current handler (by default: "UserWarning: message" on stderr).
void warn(const std::string& message);

// Installs `handler` for this process until the returned previous handler is put back
// (an empty handler restores the default).
using WarningHandler = std::function<void(const std::string& message)>;
WarningHandler set_warning_handler(WarningHandler handler);

}  // namespace ember
