// The timeline drawn from a memory log (memory_timeline.h) and its JSON file, laid out as
// PyTorch's MemoryProfileTimeline.export_memory_timeline writes it.
#include "memory_timeline.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "memory_log.h"

namespace ember::profiler {

namespace {
size_t slot(MemoryCategory category) { return static_cast<size_t>(category); }
bool ends_with(const std::string& text, const std::string& end) {
  return text.size() >= end.size() && text.compare(text.size() - end.size(), end.size(), end) == 0;
}
}  // namespace

MemoryTimeline::MemoryTimeline(const detail::MemoryLog& log, Device device) : device_(device) {
  Bytes current{};
  for (const detail::MemoryLog::Allocation& allocation : log.allocations)
    if (allocation.preexisting && allocation.device == device) current[slot(allocation.category)] += allocation.bytes;
  times_ns_.push_back(0);
  sizes_.push_back(current);
  for (const detail::MemoryLog::Change& change : log.changes) {
    const detail::MemoryLog::Allocation& allocation = log.allocations[change.allocation];
    if (allocation.device != device) continue;
    current[slot(allocation.category)] += change.freed ? -allocation.bytes : allocation.bytes;
    if (change.time_ns == times_ns_.back()) {  // changes at one instant make one step
      sizes_.back() = current;
    } else {
      times_ns_.push_back(change.time_ns);
      sizes_.push_back(current);
    }
  }
  if (log.stop_ns > times_ns_.back()) {  // the chart runs to the profile's end
    times_ns_.push_back(log.stop_ns);
    sizes_.push_back(current);
  }
}

MemoryTimeline::Bytes MemoryTimeline::at(int64_t time_ns) const {
  const auto after = std::upper_bound(times_ns_.begin(), times_ns_.end(), time_ns);
  if (after == times_ns_.begin()) return Bytes{};
  return sizes_[static_cast<size_t>(after - times_ns_.begin()) - 1];
}

int64_t MemoryTimeline::peak_total() const {
  int64_t peak = 0;
  for (const Bytes& bytes : sizes_) {
    int64_t total = 0;
    for (int64_t b : bytes) total += b;
    peak = std::max(peak, total);
  }
  return peak;
}

void MemoryTimeline::export_memory_timeline(const std::string& path) const {
  if (ends_with(path, ".json")) write_json(path);
  else if (ends_with(path, ".png")) write_png(path);
  else if (ends_with(path, ".html")) write_html(path);
  else
    EMBER_CHECK(false, "export_memory_timeline: cannot tell what to write from the name '", path,
                "': use .json (PyTorch's [times, sizes] points), .png (a chart drawn by gnuplot) or .html (a page "
                "with the chart as SVG)");
}

// PyTorch's [times, sizes]: times in microseconds (its int(t / 1000)), instants that fall in the
// same microsecond made one; each size a list of 0 (the stack's floor) and then the bytes of each
// category in its plot order, None's (unknown) last.
void MemoryTimeline::write_json(const std::string& path) const {
  using nlohmann::json;
  json times = json::array(), sizes = json::array();
  for (size_t i = 0; i < times_ns_.size(); ++i) {
    const int64_t us = times_ns_[i] / 1000;
    json row = json::array({0});
    for (const PlottedCategory& plotted : kPlotOrder) row.push_back(sizes_[i][slot(plotted.category)]);
    if (!times.empty() && times.back().get<int64_t>() == us) {
      sizes.back() = row;
    } else {
      times.push_back(us);
      sizes.push_back(row);
    }
  }
  std::ofstream file(path);
  EMBER_CHECK(file.good(), "[Errno ", errno, "] ", std::strerror(errno), ": '", path, "'");  // Python's OSError text
  file << json::array({times, sizes}).dump() << "\n";
  file.flush();
  EMBER_CHECK(file.good(), "could not write the memory timeline to '", path, "'");
}

}  // namespace ember::profiler
