// What a profile's events add up to, by PyTorch's rules (torch/autograd/profiler_util.py):
// - an event's self time is its time minus its direct children's times, so the self times of a
//   thread's events add up to the time of its top-level events: nothing counted twice (CPU and,
//   with the CUDA activity, GPU time alike, as in PyTorch's legacy profiler);
// - an only child with its parent's name is folded into the parent (_remove_dup_nodes), so an op
//   that forwards to an overload of itself shows once;
// - key_averages() sums the events of each name (and input shapes, if asked) into one row, in the
//   order the names first appear; the steps of a scheduled profile ("ProfilerStep#3") share one
//   row, "ProfilerStep*" (_rewrite_name with_wildcard);
// - FLOPs are counted only for the ops PyTorch counts, with its formulas (computeFlops).
#include <unordered_map>

#include "profiler.h"

namespace ember::profiler {

std::string shapes_string(const std::vector<std::vector<int64_t>>& shapes) {  // Python's str(list)
  std::string text = "[";
  for (size_t i = 0; i < shapes.size(); ++i) {
    text += i == 0 ? "[" : ", [";
    for (size_t d = 0; d < shapes[i].size(); ++d) text += (d == 0 ? "" : ", ") + std::to_string(shapes[i][d]);
    text += "]";
  }
  return text + "]";
}

namespace {

bool is_tensor_type(const std::string& type) { return !type.empty() && type != "Scalar" && type != "TensorList"; }

int64_t product(const std::vector<int64_t>& sizes) {
  int64_t p = 1;
  for (int64_t s : sizes) p *= s;
  return p;
}

// 2·M·K·N for mat1 [M, K] @ mat2 [K, N]; 2·B·M·K·N for batches [B, M, K] @ [B, K, N].
int64_t matmul_flops(const Event& event, size_t first, size_t dims) {
  if (event.input_shapes.size() < first + 2) return 0;
  const std::vector<int64_t>& mat1 = event.input_shapes[first];
  const std::vector<int64_t>& mat2 = event.input_shapes[first + 1];
  if (mat1.size() != dims || mat2.size() != dims || mat1.back() == 0) return 0;
  return 2 * (product(mat1) / mat1.back() / (dims == 3 ? mat1[0] : 1)) * product(mat2);
}

}  // namespace

int64_t flops_of(const Event& event) {
  const std::string& name = event.name;
  if (name == "aten::mm") return matmul_flops(event, 0, 2);
  if (name == "aten::addmm") return matmul_flops(event, 1, 2);
  if (name == "aten::bmm") return matmul_flops(event, 0, 3);
  if (name == "aten::baddbmm") return matmul_flops(event, 1, 3);
  if ((name == "aten::add" || name == "aten::mul") && !event.input_types.empty() &&
      is_tensor_type(event.input_types[0]))
    return product(event.input_shapes[0]);  // one per element of the first input
  return 0;
}

EventList::EventList(std::vector<Event> events, ProfilerOptions options) : options_(std::move(options)) {
  const int64_t n = static_cast<int64_t>(events.size());
  for (int64_t i = 0; i < n; ++i) {
    EMBER_CHECK(events[i].parent < i, "Event ", i, " (", events[i].name, ") names event ", events[i].parent,
                " as its parent; a parent must come before its children");
    events[i].children.clear();
    if (events[i].parent >= 0) events[events[i].parent].children.push_back(i);
  }
  // Fold an only child with its parent's name into the parent (parents are visited first, so a
  // chain of such children folds into the top one).
  std::vector<bool> folded(n, false);
  for (int64_t i = 0; i < n; ++i) {
    const int64_t p = events[i].parent;
    if (p < 0 || events[p].name != events[i].name || events[p].children.size() != 1) continue;
    folded[i] = true;
    events[p].children = events[i].children;
    for (int64_t child : events[i].children) events[child].parent = p;
  }
  std::vector<int64_t> new_index(n, -1);
  for (int64_t i = 0, kept = 0; i < n; ++i)
    if (!folded[i]) new_index[i] = kept++;
  for (int64_t i = 0; i < n; ++i) {
    if (folded[i]) continue;
    Event& event = events[i];
    if (event.parent >= 0) event.parent = new_index[event.parent];
    for (int64_t& child : event.children) child = new_index[child];
    events_.push_back(std::move(event));
  }
}

int64_t EventList::self_cpu_time_ns(const Event& event) const {
  int64_t self = event.duration_ns();
  for (int64_t child : event.children) self -= events_[child].duration_ns();
  return self;
}

int64_t EventList::self_cuda_time_ns(const Event& event) const {
  int64_t self = event.cuda_duration_ns();
  for (int64_t child : event.children) self -= events_[child].cuda_duration_ns();
  return self;
}

int64_t EventList::self_cpu_memory_usage(const Event& event) const {
  int64_t self = event.cpu_memory_usage();
  for (int64_t child : event.children) self -= events_[child].cpu_memory_usage();
  return self;
}

int64_t EventList::self_cuda_memory_usage(const Event& event) const {
  int64_t self = event.cuda_memory_usage();
  for (int64_t child : event.children) self -= events_[child].cuda_memory_usage();
  return self;
}

namespace {
std::string wildcard_name(const std::string& name) {
  return name.starts_with("ProfilerStep#") ? "ProfilerStep*" : name;
}
}  // namespace

KeyAverages EventList::key_averages(bool group_by_input_shape) const {
  std::vector<EventAverage> rows;
  // Summed exactly in nanoseconds, turned into microseconds at the end: CPU and CUDA, total and self.
  struct Times {
    int64_t cpu = 0, self_cpu = 0, cuda = 0, self_cuda = 0;
  };
  std::vector<Times> times;
  std::unordered_map<std::string, size_t> row_of_key;
  for (const Event& event : events_) {
    const std::string name = wildcard_name(event.name);
    const std::string key = group_by_input_shape ? name + '\n' + shapes_string(event.input_shapes) : name;
    auto [it, is_new] = row_of_key.try_emplace(key, rows.size());
    if (is_new) {
      rows.push_back({name, group_by_input_shape ? event.input_shapes : std::vector<std::vector<int64_t>>{}});
      times.emplace_back();
    }
    EventAverage& row = rows[it->second];
    row.count += 1;
    Times& time = times[it->second];
    time.cpu += event.duration_ns();
    time.self_cpu += self_cpu_time_ns(event);
    time.cuda += event.cuda_duration_ns();
    time.self_cuda += self_cuda_time_ns(event);
    row.cpu_memory_usage += event.cpu_memory_usage();
    row.self_cpu_memory_usage += self_cpu_memory_usage(event);
    row.cuda_memory_usage += event.cuda_memory_usage();
    row.self_cuda_memory_usage += self_cuda_memory_usage(event);
    row.flops += event.flops;
    row.bytes_read += event.bytes_read;
    row.bytes_written += event.bytes_written;
  }
  for (size_t i = 0; i < rows.size(); ++i) {
    rows[i].cpu_time_total = static_cast<double>(times[i].cpu) / 1000.0;
    rows[i].self_cpu_time_total = static_cast<double>(times[i].self_cpu) / 1000.0;
    rows[i].cuda_time_total = static_cast<double>(times[i].cuda) / 1000.0;
    rows[i].self_cuda_time_total = static_cast<double>(times[i].self_cuda) / 1000.0;
  }
  return KeyAverages(std::move(rows), options_, group_by_input_shape);
}

}  // namespace ember::profiler
