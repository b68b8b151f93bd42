// The profiler records every op once, under PyTorch's name, nested as the calls were; self times
// add up; shapes, FLOPs and bytes are PyTorch's; each thread records on its own; misuse raises
// PyTorch's errors.
#include <catch2/catch.hpp>

#include <algorithm>
#include <numeric>
#include <set>
#include <thread>

#include "captured_warnings.h"
#include "ember.h"

using namespace ember;
using profiler::Event;
using profiler::EventList;
using profiler::Profiler;

namespace {

std::vector<std::string> names(const EventList& list) {
  std::vector<std::string> result;
  for (const Event& event : list.events()) result.push_back(event.name);
  return result;
}

const Event& only(const EventList& list, const std::string& name) {
  const auto& events = list.events();
  REQUIRE(std::count_if(events.begin(), events.end(), [&](const Event& e) { return e.name == name; }) == 1);
  return *std::find_if(events.begin(), events.end(), [&](const Event& e) { return e.name == name; });
}

std::string parent_name(const EventList& list, const Event& event) {
  return event.parent < 0 ? "" : list.events()[event.parent].name;
}

// An event as a test writes it: name, thread, start and end in microseconds, parent index.
Event made(const std::string& name, int64_t start_us, int64_t end_us, int64_t parent = -1, uint64_t thread = 1) {
  Event event;
  event.name = name;
  event.thread = thread;
  event.start_ns = start_us * 1000;
  event.end_ns = end_us * 1000;
  event.parent = parent;
  return event;
}

}  // namespace

TEST_CASE("a profiler records the ops that run while it runs, and only those", "[profiler]") {
  Tensor a = ones({2, 3}), b = ones({2, 3});
  (void)(a + b);
  Profiler prof;
  Tensor c = a * b;
  prof.stop();
  (void)(a - b);
  CHECK(names(prof.events()) == std::vector<std::string>{"aten::mul"});
}

TEST_CASE("softmax over a dim not the last records no transpose: ATen's kernel reads the dim in place", "[profiler]") {
  const Tensor x = randn({2, 3, 4});
  Profiler prof;
  const Tensor y = log_softmax(x, 1), z = softmax(x.transpose(1, 2), 2);
  prof.stop();
  CHECK(names(prof.events()) ==
        std::vector<std::string>{"aten::log_softmax", "aten::transpose", "aten::as_strided", "aten::softmax"});
  CHECK(allclose(y, log(softmax(x, 1))));
  CHECK(allclose(z.transpose(1, 2), softmax(x, 1)));
  CHECK((y.is_contiguous() && z.is_contiguous()));
}

TEST_CASE("an op's event holds the events of the ops it calls, as linear holds t and addmm", "[profiler]") {
  Tensor x = ones({4, 3}), w = ones({2, 3}), b = ones({2});
  Profiler prof;
  Tensor y = linear(x, w, b);
  prof.stop();
  const EventList& events = prof.events();
  CHECK(names(events) == std::vector<std::string>{"aten::linear", "aten::t", "aten::transpose", "aten::as_strided",
                                                  "aten::addmm", "aten::expand", "aten::as_strided"});
  CHECK(parent_name(events, only(events, "aten::t")) == "aten::linear");
  CHECK(parent_name(events, only(events, "aten::transpose")) == "aten::t");
  CHECK(parent_name(events, events.events()[3]) == "aten::transpose");
  CHECK(parent_name(events, only(events, "aten::addmm")) == "aten::linear");
  CHECK(parent_name(events, only(events, "aten::expand")) == "aten::addmm");
  CHECK(parent_name(events, events.events()[6]) == "aten::expand");
  CHECK(only(events, "aten::linear").children == std::vector<int64_t>{1, 4});
}

TEST_CASE("every event's self time is at most its total, and self times add up to the top-level totals", "[profiler]") {
  nn::Sequential net{nn::Linear(64, 64), nn::ReLU(), nn::Linear(64, 8)};
  Tensor x = randn({32, 64});
  Profiler prof;
  {
    auto step = profiler::record_function("one training step");
    net(x).pow(2).mean().backward();
  }
  prof.stop();
  const EventList& list = prof.events();
  int64_t self_sum = 0, top_level_sum = 0;
  for (const Event& event : list.events()) {
    CHECK(list.self_cpu_time_ns(event) >= 0);
    CHECK(list.self_cpu_time_ns(event) <= event.duration_ns());
    self_sum += list.self_cpu_time_ns(event);
    if (event.parent < 0) top_level_sum += event.duration_ns();
  }
  REQUIRE(top_level_sum > 0);
  CHECK(std::abs(self_sum - top_level_sum) <= top_level_sum / 100);
  double rows_self_us = 0;
  for (const profiler::EventAverage& row : prof.key_averages()) rows_self_us += row.self_cpu_time_total;
  CHECK(rows_self_us == Approx(top_level_sum / 1000.0).epsilon(0.01));
}

TEST_CASE("record_function opens a user range that holds the ops run inside it", "[profiler]") {
  Tensor a = ones({3});
  Profiler prof;
  {
    auto range = profiler::record_function("data loading");
    Tensor b = a.exp();
  }
  prof.stop();
  const EventList& events = prof.events();
  CHECK(names(events) == std::vector<std::string>{"data loading", "aten::exp"});
  CHECK(events.events()[0].is_user_annotation);
  CHECK_FALSE(events.events()[1].is_user_annotation);
  CHECK(parent_name(events, only(events, "aten::exp")) == "data loading");
}

TEST_CASE("the supported activities are the CPU, and CUDA where a GPU is, without Kineto", "[profiler]") {
  using profiler::ProfilerActivity;
  const std::vector<ProfilerActivity> expected = cuda::is_available()
                                                     ? std::vector{ProfilerActivity::CPU, ProfilerActivity::CUDA}
                                                     : std::vector{ProfilerActivity::CPU};
  CHECK(profiler::supported_activities() == expected);
  CHECK_FALSE(profiler::kineto_available());
}

TEST_CASE("the ranges of a scheduled profile's steps share one row, ProfilerStep*, as PyTorch's", "[profiler]") {
  Profiler prof;
  for (int step = 0; step < 2; ++step) auto range = profiler::record_function("ProfilerStep#" + std::to_string(step));
  prof.stop();
  CHECK(names(prof.events()) == std::vector<std::string>{"ProfilerStep#0", "ProfilerStep#1"});
  const profiler::KeyAverages averages = prof.key_averages();
  REQUIRE(averages.size() == 1);
  CHECK(averages.rows()[0].key == "ProfilerStep*");
  CHECK(averages.rows()[0].count == 2);
}

TEST_CASE("record_shapes records every argument's shape and type as PyTorch names them", "[profiler]") {
  Tensor bias = ones({4}), mat1 = ones({2, 3}), mat2 = ones({3, 4}, kFloat32);
  Profiler prof({.record_shapes = true});
  Tensor y = addmm(bias, mat1, mat2);
  Tensor s = from_vector(std::vector<int64_t>{1, 2}, {2}).sum();
  prof.stop();
  const Event& addmm_event = only(prof.events(), "aten::addmm");
  CHECK(addmm_event.input_shapes == std::vector<std::vector<int64_t>>{{4}, {2, 3}, {3, 4}, {}, {}});
  CHECK(addmm_event.input_types == std::vector<std::string>{"float", "float", "float", "Scalar", "Scalar"});
  // expand(self, size, implicit) and sum(self, dtype=None), as PyTorch 1.13 records them.
  CHECK(only(prof.events(), "aten::expand").input_types == std::vector<std::string>{"float", "", "Scalar"});
  CHECK(only(prof.events(), "aten::sum").input_types == std::vector<std::string>{"long int", ""});
}

TEST_CASE("without record_shapes, with_flops and profile_memory, events carry no shapes, FLOPs or memory",
          "[profiler]") {
  Profiler prof;
  Tensor y = ones({2, 2}).mm(ones({2, 2}));
  prof.stop();
  const Event& mm = only(prof.events(), "aten::mm");
  CHECK(mm.input_shapes.empty());
  CHECK(mm.input_types.empty());
  CHECK(mm.flops == 0);
  CHECK(mm.bytes_allocated == 0);
  CHECK(mm.bytes_written == 2 * 2 * 4);  // the roofline's traffic is always there
}

TEST_CASE("with_flops counts 2·M·K·N for mm and addmm, and none for linear itself", "[profiler]") {
  Profiler prof({.with_flops = true});
  Tensor a = ones({16, 8}).mm(ones({8, 4}));
  Tensor b = linear(ones({5, 7}), ones({3, 7}), ones({3}));
  Tensor c = bmm(ones({2, 3, 4}), ones({2, 4, 5}));
  Tensor d = ones({3, 4}) + ones({4});
  Tensor e = ones({3, 4}) * 2;
  Tensor f = ones({3, 4}).exp();
  prof.stop();
  const EventList& events = prof.events();
  CHECK(only(events, "aten::mm").flops == 2 * 16 * 8 * 4);
  CHECK(only(events, "aten::addmm").flops == 2 * 5 * 7 * 3);
  CHECK(only(events, "aten::linear").flops == 0);
  CHECK(only(events, "aten::bmm").flops == 2 * 2 * 3 * 4 * 5);
  CHECK(only(events, "aten::add").flops == 12);  // one per element of the first input, as PyTorch counts
  CHECK(only(events, "aten::mul").flops == 12);
  CHECK(only(events, "aten::exp").flops == 0);
  CHECK(only(events, "aten::mm").input_shapes == std::vector<std::vector<int64_t>>{{16, 8}, {8, 4}});
}

TEST_CASE("an empty inner dimension counts no FLOPs", "[profiler]") {
  Profiler prof({.with_flops = true});
  Tensor a = ones({3, 0}).mm(ones({0, 2}));
  prof.stop();
  CHECK(only(prof.events(), "aten::mm").flops == 0);
}

TEST_CASE("an event's memory counts the bytes allocated and freed inside it, its children's included", "[profiler]") {
  Tensor x = ones({256});
  Profiler prof({.profile_memory = true});
  {
    auto range = profiler::record_function("copies");
    Tensor kept = x.clone();
    Tensor temporary = x.clone();
  }
  prof.stop();
  const EventList& list = prof.events();
  const Event& range = only(list, "copies");
  CHECK(range.bytes_allocated == 2 * 256 * 4);
  CHECK(range.bytes_freed == 2 * 256 * 4);  // both copies die inside the range
  CHECK(range.cpu_memory_usage() == 0);
  CHECK(list.self_cpu_memory_usage(range) == -2 * 256 * 4);  // the frees happen in the range itself
  for (int64_t child : range.children) CHECK(list.events()[child].cpu_memory_usage() == 256 * 4);
}

TEST_CASE("an op reads its tensor arguments and writes what it allocates, and a view moves no bytes", "[profiler]") {
  Tensor a = ones({8, 16}), b = ones({16});
  Tensor broadcast = b.expand({8, 16});
  Profiler prof;
  Tensor sum = a + b;
  Tensor view = a.t();
  a.mul_(2);
  Tensor copy = broadcast.clone();
  prof.stop();
  const EventList& list = prof.events();
  CHECK(only(list, "aten::add").bytes_read == (8 * 16 + 16) * 4);
  CHECK(only(list, "aten::add").bytes_written == 8 * 16 * 4);
  CHECK(only(list, "aten::t").bytes_read == 0);
  CHECK(only(list, "aten::t").bytes_written == 0);
  CHECK(only(list, "aten::mul_").bytes_read == 8 * 16 * 4);
  CHECK(only(list, "aten::mul_").bytes_written == 8 * 16 * 4);  // the tensor it overwrites
  // clone's work is its copy_ (profiler/steps.h), which reads a broadcast input's distinct elements
  // (and, as every in-place op, the tensor it overwrites) and writes its output.
  CHECK(only(list, "aten::clone").bytes_read == 0);
  CHECK(only(list, "aten::clone").bytes_written == 0);
  CHECK(only(list, "aten::copy_").bytes_read == (8 * 16 + 16) * 4);
  CHECK(only(list, "aten::copy_").bytes_written == 8 * 16 * 4);
}

TEST_CASE("the backward pass shows PyTorch's engine event around each node and its formula's ops", "[profiler]") {
  Tensor x = ones({3}, Options().requires_grad());
  Tensor y = (x * 2).sum();
  Profiler prof;
  y.backward();
  prof.stop();
  const EventList& list = prof.events();
  const Event& node = only(list, "MulBackward1");  // C++'s `x * 2`, as libtorch names it
  CHECK(parent_name(list, node) == "autograd::engine::evaluate_function: MulBackward1");
  CHECK(parent_name(list, only(list, "aten::mul")) == "MulBackward1");
  CHECK(parent_name(list, only(list, "torch::autograd::AccumulateGrad")) ==
        "autograd::engine::evaluate_function: torch::autograd::AccumulateGrad");
  CHECK(names(list).front() == "aten::ones_like");  // backward()'s implicit gradient
}

TEST_CASE("an only child with its parent's name is folded into the parent, as PyTorch does", "[profiler]") {
  EventList list({made("aten::sum", 0, 10), made("aten::sum", 1, 9, 0), made("aten::fill_", 2, 3, 1),
                  made("aten::to", 20, 30), made("aten::to", 21, 25, 3), made("aten::copy_", 26, 28, 3)},
                 {});
  CHECK(names(list) == std::vector<std::string>{"aten::sum", "aten::fill_", "aten::to", "aten::to", "aten::copy_"});
  CHECK(list.events()[1].parent == 0);  // fill_ now sits in the outer sum
  CHECK(list.events()[0].duration_ns() == 10000);
  CHECK(list.events()[3].parent == 2);  // a same-named child with a sibling stays
}

TEST_CASE("an event list whose parent comes after its child is refused", "[profiler]") {
  CHECK_THROWS_WITH(EventList({made("aten::add", 0, 5, 1), made("aten::mul", 1, 2)}, {}),
                    "Event 0 (aten::add) names event 1 as its parent; a parent must come before its children");
}

TEST_CASE("each thread records into its own buffer, and its events nest on that thread", "[profiler]") {
  constexpr int kThreads = 4, kOpsPerThread = 3000;  // past one 4096-event chunk in all
  Profiler prof;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([] {
      Tensor a = ones({2});
      auto range = profiler::record_function("worker");
      for (int i = 0; i < kOpsPerThread; ++i) Tensor b = a.neg();
    });
  for (std::thread& thread : threads) thread.join();
  prof.stop();
  const EventList& list = prof.events();
  std::set<uint64_t> thread_ids;
  int64_t negs = 0;
  for (const Event& event : list.events()) {
    if (event.name == "aten::neg") {
      ++negs;
      REQUIRE(event.parent >= 0);
      CHECK(list.events()[event.parent].name == "worker");
      CHECK(list.events()[event.parent].thread == event.thread);
    }
    thread_ids.insert(event.thread);
  }
  CHECK(negs == kThreads * kOpsPerThread);
  CHECK(thread_ids.size() == kThreads);
}

TEST_CASE("a range still open when the profiler stops ends at the stop", "[profiler]") {
  Profiler prof;
  auto range = std::make_unique<profiler::RecordFunction>("still open");
  prof.stop();
  range.reset();  // closing after the stop changes nothing
  const Event& event = only(prof.events(), "still open");
  CHECK(event.end_ns >= event.start_ns);
}

TEST_CASE("a profiler without the CPU activity records no CPU events", "[profiler]") {
  CapturedWarnings warnings;  // without a GPU: "CUDA is not available, disabling CUDA profiling"
  Profiler prof({.activities = {profiler::ProfilerActivity::CUDA}});
  Tensor y = ones({2}) + 1;
  prof.stop();
  CHECK(prof.events().events().empty());
}

TEST_CASE("a profiler destroyed while running stops recording", "[profiler]") {
  const Tensor x = ones({2});
  { Profiler forgotten; }
  Profiler next;  // would raise "already enabled" if the first were still running
  Tensor y = x.exp();
  next.stop();
  CHECK(names(next.events()) == std::vector<std::string>{"aten::exp"});
}

TEST_CASE("start() after stop() records anew", "[profiler]") {
  const Tensor x = ones({2});
  Profiler prof;
  Tensor a = x.exp();
  prof.stop();
  prof.start();
  Tensor b = x.neg();
  prof.stop();
  CHECK(names(prof.events()) == std::vector<std::string>{"aten::neg"});
}

TEST_CASE("starting a second profiler while one runs raises PyTorch's error", "[profiler][errors]") {
  Profiler first;
  CHECK_THROWS_WITH(Profiler(), "Profiler is already enabled on this thread.");
  CHECK_THROWS_WITH(first.start(), "Profiler is already enabled on this thread.");
}

TEST_CASE("stopping a profiler that is not running raises PyTorch's error", "[profiler][errors]") {
  Profiler prof;
  prof.stop();
  CHECK_THROWS_WITH(prof.stop(), "Can't disable Kineto profiler when it's not running");
}

TEST_CASE("asking a running profiler for its results raises PyTorch's error", "[profiler][errors]") {
  Profiler prof;
  CHECK_THROWS_WITH(prof.events(), "Profiler didn't finish running");
  CHECK_THROWS_WITH(prof.key_averages(), "Profiler didn't finish running");
  CHECK_THROWS_WITH(prof.export_chrome_trace("/tmp/never_written.json"), "Profiler didn't finish running");
}

TEST_CASE("record_shapes shows the shapes an op was called with: mm's clone of a strided matrix is 2-D", "[profiler]") {
  // Every other column: no unit stride, so mm copies it for the kernel, as ATen's does (aten::clone).
  Tensor a = ones({8, 12}).slice(1, 0, 12, 2), b = ones({6, 4});
  Profiler prof({.record_shapes = true});
  Tensor c = a.mm(b);
  prof.stop();
  const EventList& events = prof.events();
  const Event& clone = only(events, "aten::clone");
  CHECK(parent_name(events, clone) == "aten::mm");
  CHECK(clone.input_shapes == std::vector<std::vector<int64_t>>{{8, 6}, {}});
  CHECK(only(events, "aten::mm").input_shapes == std::vector<std::vector<int64_t>>{{8, 6}, {6, 4}});
  CHECK(only(events, "aten::copy_").input_shapes == std::vector<std::vector<int64_t>>{{8, 6}, {8, 6}, {}});
}
