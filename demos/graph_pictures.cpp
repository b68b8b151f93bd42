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
#include <set>

#include "command_line.h"
#include "ember.h"

using namespace ember;

namespace {

bool dot_is_installed() { return std::system("command -v dot >/dev/null 2>&1") == 0; }

// The graph's dot text with a title on top and a key of its colours (autograd::to_dot's, which are
// torchviz's). A saved `mat2` is the weight's transpose: a view of a parameter, no bytes of its own.
std::string with_title_and_key(const std::string& dot_text, const std::string& title) {
  const std::string key = "\tlabelloc=t fontname=sans fontsize=14 label=\"" + title +
                          "\"\n"
                          "\tsubgraph cluster_key {\n"
                          "\t\tlabel=\"key\" fontname=sans fontsize=10 style=dashed\n"
                          "\t\tkey_root [label=\"a root: the loss\" fillcolor=darkolivegreen1]\n"
                          "\t\tkey_node [label=\"a backward node (grad_fn)\"]\n"
                          "\t\tkey_leaf [label=\"a leaf: a parameter\" fillcolor=lightblue]\n"
                          "\t\tkey_saved [label=\"a tensor saved for backward\\n(mat2 is weight.t(), a view\\n"
                          "of the parameter: no bytes\\nof its own)\" fillcolor=orange]\n"
                          "\t\tkey_root -> key_node -> key_leaf -> key_saved [style=invis]\n"
                          "\t}\n";
  return dot_text.substr(0, dot_text.rfind('}')) + key + "}\n";
}

// Writes folder/name.dot and, when Graphviz is there, folder/name.png; prints what it wrote.
void draw(const std::string& folder, const std::string& name, const std::string& dot_text, bool with_dot,
          const std::string& title) {
  const std::string dot_path = folder + "/" + name + ".dot", png_path = folder + "/" + name + ".png";
  std::ofstream(dot_path) << with_title_and_key(dot_text, title);
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
  draw(folder, "chapter_big", autograd::to_dot(big(xb).sum(), big->named_parameters()), with_dot,
       "the chapter's big(xb).sum(): Linear, ReLU, Linear");

  std::printf("exercise 1: two kept losses, one picture (the leaves, the batch and the target shared):\n");
  nn::Sequential model(nn::Linear(64, 256), nn::ReLU(), nn::Linear(256, 256), nn::ReLU(), nn::Linear(256, 10));
  const Tensor inputs = randn({32, 64}), targets = randint(0, 10, {32});
  std::vector<Tensor> kept;
  for (int step = 0; step < 2; ++step) kept.push_back(cross_entropy(model(inputs), targets));
  // What the saved tensors cost: counted once per node that saved them, then by the bytes they hold
  // that nothing else does. A saved weight.t() is a parameter's storage; a ReLU's result is the next
  // Linear's mat1 too; the batch and the target exist without the graph.
  int64_t listed_bytes = 0, own_bytes = 0;
  std::set<const void*> counted;
  for (const auto& [name, parameter] : model->named_parameters()) counted.insert(parameter.raw_data());
  counted.insert(inputs.raw_data());
  counted.insert(targets.raw_data());
  for (const Tensor& loss : kept)
    for (const autograd::SavedInGraph& saved : autograd::saved_tensors_in_graph(loss)) {
      const int64_t bytes = saved.tensor.numel() * element_size(saved.tensor.dtype());
      listed_bytes += bytes;
      if (counted.insert(saved.tensor.raw_data()).second) own_bytes += bytes;
    }
  std::printf("  their graphs list %lld bytes of saved tensors, once per node that saved one; most are the\n"
              "  weights (mat2 = weight.t(), a view), the batch and the target, which exist anyway, or the\n"
              "  same activation saved by two nodes. The bytes only the graphs hold: %lld, %lld per loss;\n"
              "  with the loss itself, %lld: exercise 1's growth per step\n",
              static_cast<long long>(listed_bytes), static_cast<long long>(own_bytes),
              static_cast<long long>(own_bytes / 2),
              static_cast<long long>(own_bytes / 2 + kept[0].numel() * element_size(kept[0].dtype())));
  draw(folder, "exercise1_kept_losses", autograd::to_dot(kept, model->named_parameters()), with_dot,
       "exercise 1: two kept losses, each holding its own graph");

  std::printf("exercise 1: the same two losses after backward() (their saved tensors freed):\n");
  for (const Tensor& loss : kept) loss.backward();
  draw(folder, "exercise1_kept_losses_after_backward", autograd::to_dot(kept, model->named_parameters()), with_dot,
       "exercise 1: the same two losses after backward(): nothing saved");
  return 0;
}

int main(int argc, char** argv) {
  return demos::run(argc, argv, "[output folder]   (default ./graph-output)", 1,
                    [&] { return draw_graphs(demos::output_folder(argc, argv, "graph-output")); });
}
