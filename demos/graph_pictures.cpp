// The autograd graph drawn, as torchviz draws PyTorch's (autograd::to_dot): the chapter's `big`
// network (shared/chapter/debug.py: Linear, ReLU, Linear, then .sum() as its profiled line does),
// and exercise 1's kept losses, two of them in one picture, then the same two after backward().
// Seeing them answers what a kept loss holds: every orange box is a tensor saved for backward,
// alive as long as the loss is; the blue leaves and the batch are shared, the activations are not;
// after backward the orange boxes are gone. Each graph is written as .dot text and drawn into a
// PNG with Graphviz's `dot` when it is installed (Debian's graphviz; tools/ember.sh installs it).
//   build/demos/graph_pictures [output folder]   (default ./graph-output)
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "command_line.h"
#include "ember.h"

using namespace ember;

namespace {

bool dot_is_installed() { return std::system("command -v dot >/dev/null 2>&1") == 0; }

// Writes folder/name.dot and, when Graphviz is there, folder/name.png; prints what it wrote.
void draw(const std::string& folder, const std::string& name, const std::string& dot_text, bool with_dot) {
  const std::string dot_path = folder + "/" + name + ".dot", png_path = folder + "/" + name + ".png";
  std::ofstream(dot_path) << dot_text;
  std::printf("  wrote %s\n", dot_path.c_str());
  if (!with_dot) return;
  const std::string command = "dot -Tpng " + demos::shell_quoted(dot_path) + " -o " + demos::shell_quoted(png_path);
  if (std::system(command.c_str()) == 0) std::printf("  wrote %s\n", png_path.c_str());
  else std::printf("  dot failed on %s: no picture\n", dot_path.c_str());
}

}  // namespace

int draw_graphs(const std::string& folder) {
  const bool with_dot = dot_is_installed();
  if (!with_dot)
    std::printf("Graphviz's dot is not installed, so only the .dot files are written. Install it (apt-get install "
                "graphviz, or bash tools/ember.sh demo) and draw one with: dot -Tpng FILE.dot -o FILE.png\n");
  manual_seed(0);

  std::printf("the chapter's big network, big(xb).sum():\n");
  nn::Sequential big(nn::Linear(512, 512), nn::ReLU(), nn::Linear(512, 512));
  const Tensor xb = randn({256, 512});
  draw(folder, "chapter_big", autograd::to_dot(big(xb).sum(), big.named_parameters()), with_dot);

  std::printf("exercise 1: two kept losses, one picture (the leaves, the batch and the target shared):\n");
  nn::Sequential model(nn::Linear(64, 256), nn::ReLU(), nn::Linear(256, 256), nn::ReLU(), nn::Linear(256, 10));
  const Tensor inputs = randn({32, 64}), targets = randint(0, 10, {32});
  std::vector<Tensor> kept;
  for (int step = 0; step < 2; ++step) kept.push_back(cross_entropy(model(inputs), targets));
  int64_t saved_bytes = 0;
  for (const Tensor& loss : kept)
    for (const autograd::SavedInGraph& saved : autograd::saved_tensors_in_graph(loss))
      saved_bytes += saved.tensor.numel() * element_size(saved.tensor.dtype());
  std::printf("  (their graphs list %lld bytes of saved tensors, counting shared ones once per node)\n",
              static_cast<long long>(saved_bytes));
  draw(folder, "exercise1_kept_losses", autograd::to_dot(kept, model.named_parameters()), with_dot);

  std::printf("exercise 1: the same two losses after backward() (their saved tensors freed):\n");
  for (const Tensor& loss : kept) loss.backward();
  draw(folder, "exercise1_kept_losses_after_backward", autograd::to_dot(kept, model.named_parameters()), with_dot);
  return 0;
}

int main(int argc, char** argv) {
  return demos::run(argc, argv, "[output folder]   (default ./graph-output)", 1,
                    [&] { return draw_graphs(demos::output_folder(argc, argv, "graph-output")); });
}
