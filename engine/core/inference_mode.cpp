// The thread-local flag behind InferenceMode (each thread starts outside the mode, as in PyTorch).
#include "inference_mode.h"

namespace ember {
namespace {
thread_local bool inference_enabled = false;
}  // namespace

bool InferenceMode::is_enabled() { return inference_enabled; }
void InferenceMode::set_enabled(bool enabled) { inference_enabled = enabled; }

}  // namespace ember
