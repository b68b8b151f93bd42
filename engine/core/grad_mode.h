// Grad mode: a thread-local switch that decides whether ops record the autograd graph.
// NoGradGuard turns it off for a scope (torch.no_grad()). Tensors made under no_grad are ordinary
// tensors: they have a version counter and can take part in autograd later.
#pragma once

namespace ember {

struct GradMode {
  static bool is_enabled();
  static void set_enabled(bool enabled);
};

// Sets grad mode for a scope and restores the previous value on exit.
class AutoGradMode {
 public:
  explicit AutoGradMode(bool enabled) : previous_(GradMode::is_enabled()) { GradMode::set_enabled(enabled); }
  ~AutoGradMode() { GradMode::set_enabled(previous_); }
  AutoGradMode(const AutoGradMode&) = delete;
  AutoGradMode& operator=(const AutoGradMode&) = delete;

 private:
  bool previous_;
};

struct NoGradGuard : AutoGradMode {
  NoGradGuard() : AutoGradMode(false) {}
};

}  // namespace ember
