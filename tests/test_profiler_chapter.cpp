// The chapter's profiled line, `big(xb).sum().backward()`, profiled by ember reads as PyTorch 1.13
// profiles it: the same events, as often, in the same order, nested the same way
// (tests/fixtures/profiler.json), but for the rows of profiler/documented_differences.h, and a
// matrix product on top of the self-time ranking.
#include <catch2/catch.hpp>

#include <algorithm>
#include <functional>
#include <map>
#include <set>

#include "fixture.h"
#include "profiler_trees.h"
#include "skip.h"

using namespace ember;

namespace {

using namespace profiler_trees;

struct Chapter {
  nn::Sequential big{nn::Linear(512, 512), nn::ReLU(), nn::Linear(512, 512)};
  Tensor xb = randn({256, 512});
  void profiled_line() { big(xb).sum().backward(); }
};

}  // namespace

TEST_CASE("with record_shapes the chapter's profiled line records PyTorch's input shapes, event by event",
          "[profiler]") {
  Chapter chapter;
  profiler::Profiler prof({.record_shapes = true});
  chapter.profiled_line();
  prof.stop();
  const std::vector<Node> ember = ember_tree(prof.events(), WithShapes::Yes);
  const std::vector<Node> pytorch = pytorch_tree(fixture::load("profiler.json")["chapter"]["tree"], WithShapes::Yes);
  INFO("ember:\n" << printed(ember) << "PyTorch 1.13, without the documented differences:\n" << printed(pytorch));
  CHECK(ember == pytorch);
}

TEST_CASE("the chapter's profiled line records PyTorch's events, counts and nesting", "[profiler]") {
  Chapter chapter;
  profiler::Profiler prof;
  chapter.profiled_line();
  prof.stop();

  const std::vector<Node> ember = ember_tree(prof.events());
  const std::vector<Node> pytorch = pytorch_tree(fixture::load("profiler.json")["chapter"]["tree"]);
  INFO("ember:\n" << printed(ember) << "PyTorch 1.13, without the documented differences:\n" << printed(pytorch));
  CHECK(edge_counts(ember) == edge_counts(pytorch));
  CHECK(ember == pytorch);  // even in the same order: the backward engine runs nodes in PyTorch's order
}

// The chapter's claim about its profile: a matrix product leads the ranking by self time. One
// profile is a single wall-clock sample, and on a machine whose cores other programs hold, a
// preemption adds milliseconds to whichever op was running. So each op's self time is taken as its
// median over many profiles: a preemption moves one sample, not the median. One thread, as PyTorch
// 1.13 runs these ops on this kind of machine (torch.get_num_threads() is 1 here).
struct OneThread {
  const int before = get_num_threads();
  OneThread() { set_num_threads(1); }
  ~OneThread() { set_num_threads(before); }
};

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

TEST_CASE("a matrix product leads the chapter's ranking by self CPU time, op by op medians of 15 profiles",
          "[profiler]") {
  if (skip::under_sanitizer("the ranking times real ops, and instrumented copies and element-wise kernels are "
                            "slower than oneDNN's uninstrumented products by more than the ranking's margin"))
    return;
  OneThread as_pytorch_runs_here;
  Chapter chapter;
  chapter.profiled_line();  // warm: oneDNN builds its kernels on the first products
  constexpr int kProfiles = 15;
  std::map<std::string, std::vector<double>> self_times;  // aten op -> its self time in each profile
  for (int run = 0; run < kProfiles; ++run) {
    chapter.big->zero_grad(/*set_to_none=*/true);  // each profile starts as the chapter's: no .grad yet
    profiler::Profiler prof;
    chapter.profiled_line();
    prof.stop();
    for (const profiler::EventAverage& row : prof.key_averages())
      if (row.key.rfind("aten::", 0) == 0) self_times[row.key].push_back(row.self_cpu_time_total);
  }
  std::string leader;
  double leader_median = -1;
  for (const auto& [op, times] : self_times) {
    REQUIRE(times.size() == kProfiles);  // every profile records the same ops
    if (median(times) > leader_median) leader = op, leader_median = median(times);
  }
  INFO("the leader, " << leader << ", at a median of " << leader_median << " us");
  CHECK((leader == "aten::mm" || leader == "aten::addmm"));
}
