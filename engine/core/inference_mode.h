// InferenceMode: no_grad taken further (c10/core/InferenceMode.h). Inside it grad mode is off,
// and every tensor *allocated* inside is an inference tensor: it has no version counter and no
// autograd metadata, so ops skip that bookkeeping and run faster. The price: outside the mode an
// inference tensor cannot be modified in place, cannot require grad and cannot be saved for
// backward. Views follow their base; views of normal tensors made inside stay normal.
// Thread-local and nestable: InferenceMode(false) inside restores normal behaviour.
#pragma once

#include "grad_mode.h"

namespace ember {

class InferenceMode {
 public:
  explicit InferenceMode(bool enabled = true)
      : previous_inference_(is_enabled()),
        previous_grad_(GradMode::is_enabled()) {
    set_enabled(enabled);
    // Entering the mode turns grad off; InferenceMode(false) restores grad mode to on.
    GradMode::set_enabled(!enabled);
  }
  ~InferenceMode() {
    set_enabled(previous_inference_);
    GradMode::set_enabled(previous_grad_);
  }
  InferenceMode(const InferenceMode&) = delete;
  InferenceMode& operator=(const InferenceMode&) = delete;

  static bool is_enabled() { return enabled_on_this_thread; }

 private:
  static void set_enabled(bool enabled) { enabled_on_this_thread = enabled; }
  // Inline, so that the dispatcher's test of it on every op is a load, not a call.
  static inline thread_local bool enabled_on_this_thread = false;
  bool previous_inference_;
  bool previous_grad_;
};

}  // namespace ember
