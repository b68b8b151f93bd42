// What a graph saves for backward, looked at and then made smaller. Exercise 1 asks why a list of
// kept losses grows; the answer is the tensors each loss's graph saved. Part 1 lists them for a
// list of kept losses: which node saved which tensor, its bytes, and which storages the losses
// share (the parameters, the batch) or hold alone (the activations). Part 2 keeps the same loss
// with saved_tensors_hooks that pack each activation as bfloat16 and unpack it to float32: the
// bytes a kept loss holds before and after, and how far the gradients move.
//   build/demos/saved_tensors
#include <algorithm>
#include <any>
#include <cstdio>
#include <map>
#include <set>

#include "command_line.h"
#include "ember.h"

using namespace ember;

namespace {

// Exercise 1's model and batch (demos/exercises/memory_leak.cpp).
struct Setup {
  nn::Sequential model{nn::Linear(64, 256), nn::ReLU(), nn::Linear(256, 256), nn::ReLU(), nn::Linear(256, 10)};
  Tensor inputs = randn({32, 64});
  Tensor targets = randint(0, 10, {32});

  Tensor loss() { return cross_entropy(model(inputs), targets); }
  // The storages that exist whether or not a loss is kept: the parameters' and the batch's.
  std::set<const Storage*> exists_anyway() const {
    std::set<const Storage*> storages{inputs.impl()->storage.get(), targets.impl()->storage.get()};
    for (const Tensor& p : model->parameters()) storages.insert(p.impl()->storage.get());
    return storages;
  }
};

const Storage* storage_of(const Tensor& t) { return t.impl()->storage.get(); }

void list_what_kept_losses_hold() {
  std::printf("== 1. What a list of kept losses holds (exercise 1's question) ==\n");
  manual_seed(0);
  Setup setup;
  const std::set<const Storage*> anyway = setup.exists_anyway();
  const int64_t before = memory_allocated();
  std::vector<Tensor> kept;
  for (int step = 0; step < 3; ++step) kept.push_back(setup.loss());  // no backward: each keeps its graph
  const int64_t grown = memory_allocated() - before;

  std::map<const Storage*, int> first_loss_of;  // the kept loss that first showed each storage
  int64_t held_alone_total = 0;
  for (size_t i = 0; i < kept.size(); ++i) {
    std::printf("kept loss %zu:\n", i + 1);
    int64_t alone = kept[i].impl()->storage->nbytes;  // the loss's own 0-dim value
    first_loss_of.emplace(storage_of(kept[i]), static_cast<int>(i));
    for (const autograd::SavedInGraph& saved : autograd::saved_tensors_in_graph(kept[i])) {
      const Storage* storage = storage_of(saved.tensor);
      const auto [at, first] = first_loss_of.emplace(storage, static_cast<int>(i));
      const char* whose = anyway.count(storage)            ? "a parameter's or the batch's: exists anyway"
                          : !first && at->second != (int)i ? "shared with an earlier loss"
                          : !first                         ? "saved twice in this graph"
                                                           : "held by this loss alone";
      if (first && !anyway.count(storage)) alone += storage->nbytes;
      std::printf("  %-22s %-11s %-8s %7lld bytes  %s\n", saved.node.c_str(), to_string(saved.tensor.sizes()).c_str(),
                  scalar_type_name(saved.tensor.dtype()), static_cast<long long>(storage->nbytes), whose);
    }
    std::printf("  held by this loss alone, with the loss itself: %lld bytes\n", static_cast<long long>(alone));
    held_alone_total += alone;
  }
  std::printf("memory_allocated grew by %lld bytes for %zu kept losses; what they hold alone adds up to %lld: %s\n\n",
              static_cast<long long>(grown), kept.size(), static_cast<long long>(held_alone_total),
              grown == held_alone_total ? "every byte accounted for" : "NOT the same");
}

// Pack: an activation becomes a bfloat16 copy (with its dtype, to come back); a tensor that
// exists anyway (a parameter, the batch, a view of one) stays as it is, since copying it would
// only add bytes. Each saved tensor is packed on its own, so an activation saved by two nodes (a
// ReLU's output: by ReluBackward0 and by the next AddmmBackward0) gets two copies, unless pack
// shares one copy per storage and layout (`share`), checking that the storage is still the same
// one (a freed storage's address can come back).
struct CompactHooks {
  std::set<const Storage*> anyway;
  bool share = false;
  struct Copy {
    std::weak_ptr<Storage> storage;
    Dims sizes, strides;
    int64_t offset = 0;
    Tensor compact;
  };
  std::vector<Copy> copies;
  int64_t packed_bytes = 0, original_bytes = 0;

  std::any pack(const Tensor& t) {
    if (anyway.count(storage_of(t)) || !is_floating_point(t.dtype())) return std::make_pair(t.dtype(), t);
    original_bytes += t.numel() * element_size(t.dtype());
    if (share)
      for (const Copy& c : copies)
        if (c.storage.lock() == t.impl()->storage && c.sizes == t.sizes() && c.strides == t.strides() &&
            c.offset == t.storage_offset())
          return std::make_pair(t.dtype(), c.compact);
    Tensor compact = t.to(kBFloat16);
    packed_bytes += compact.numel() * element_size(compact.dtype());
    if (share) copies.push_back({t.impl()->storage, t.sizes(), t.strides(), t.storage_offset(), compact});
    return std::make_pair(t.dtype(), compact);
  }
  static Tensor unpack(const std::any& packed) {
    const auto& [dtype, t] = std::any_cast<const std::pair<DType, Tensor>&>(packed);
    return t.to(dtype);
  }
};

struct Run {
  int64_t held_bytes = 0;
  std::vector<Tensor> grads;
};

// One loss of exercise 1's model, kept (the bytes it holds are measured), then backward.
Run kept_loss_then_backward(CompactHooks* hooks) {
  manual_seed(0);
  Setup setup;
  Run run;
  const int64_t before = memory_allocated();
  Tensor loss;
  if (hooks) {
    hooks->anyway = setup.exists_anyway();
    autograd::saved_tensors_hooks guard([&](const Tensor& t) { return hooks->pack(t); }, CompactHooks::unpack);
    loss = setup.loss();
  } else {
    loss = setup.loss();
  }
  run.held_bytes = memory_allocated() - before;
  loss.backward();
  for (const Tensor& p : setup.model->parameters()) run.grads.push_back(p.grad().clone());
  return run;
}

void compact_saved_activations() {
  std::printf("== 2. Saved activations packed as bfloat16 with saved_tensors_hooks ==\n");
  const Run exact = kept_loss_then_backward(nullptr);
  CompactHooks each, shared;
  shared.share = true;
  const Run compact_each = kept_loss_then_backward(&each);
  const Run compact_shared = kept_loss_then_backward(&shared);
  auto percent = [&](const Run& run) {
    return 100.0 * static_cast<double>(run.held_bytes) / static_cast<double>(exact.held_bytes);
  };
  std::printf("what one kept loss holds:\n");
  std::printf("  %-52s %6lld bytes\n", "without hooks", static_cast<long long>(exact.held_bytes));
  std::printf("  %-52s %6lld bytes (%.0f%%): %lld bytes of float32 packed into %lld\n",
              "bfloat16, each saved tensor packed on its own", static_cast<long long>(compact_each.held_bytes),
              percent(compact_each), static_cast<long long>(each.original_bytes),
              static_cast<long long>(each.packed_bytes));
  std::printf("  %-52s %6lld bytes (%.0f%%): %lld bytes of bfloat16 copies\n", "bfloat16, one copy per activation",
              static_cast<long long>(compact_shared.held_bytes), percent(compact_shared),
              static_cast<long long>(shared.packed_bytes));
  std::printf("Packed on its own, a ReLU output saved by two nodes becomes two half-size copies: no bytes saved.\n");
  double max_difference = 0, max_gradient = 0;
  for (size_t i = 0; i < exact.grads.size(); ++i) {
    max_difference = std::max(max_difference, abs(compact_shared.grads[i] - exact.grads[i]).max().item<double>());
    max_gradient = std::max(max_gradient, abs(exact.grads[i]).max().item<double>());
  }
  std::printf("gradients: largest difference %.3g, %.2g%% of the largest gradient (%.3g); bfloat16 keeps 8 bits\n",
              max_difference, 100 * max_difference / max_gradient, max_gradient);
  std::printf("of mantissa, so each saved value moves by up to 0.4%%: the price of the bytes saved.\n");
}

}  // namespace

int saved_tensors() {
  list_what_kept_losses_hold();
  compact_saved_activations();
  return 0;
}

int main(int argc, char** argv) { return demos::run(argc, argv, "", 0, saved_tensors); }
