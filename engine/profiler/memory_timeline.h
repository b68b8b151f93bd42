// A memory timeline by category: how many bytes of one device were parameters, optimizer state,
// inputs, temporaries, activations, gradients and autograd detail at each moment of a profile, as
// PyTorch 2's memory profiler draws it (torch.profiler's export_memory_timeline). Why: the
// chapter's first exercise is a leak of activations, and memory_allocated() says only *that*
// memory grows; this says *what* grows.
//
//   profiler::Profiler prof({.profile_memory = true});
//   for (int step = 0; step < 5; ++step) train_step();
//   prof.stop();
//   prof.export_memory_timeline("memory.html");   // or .json (PyTorch's layout), .png (gnuplot)
//
// Drawn after the profile from its memory log (memory_log.h): each allocation counts from its
// allocation (or the profile's start, if it existed before) to its free, under the one category
// the engine gave it (memory_category.h).
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "core/device.h"
#include "memory_category.h"

namespace ember::profiler {

namespace detail {
struct MemoryLog;
}

class MemoryTimeline {
 public:
  using Bytes = std::array<int64_t, kMemoryCategories>;  // indexed by MemoryCategory

  MemoryTimeline(const detail::MemoryLog& log, Device device);

  Device device() const { return device_; }
  // The moments memory changed, in nanoseconds from the profile's start: the first is 0 (what
  // existed before the profile), the last the profile's stop.
  const std::vector<int64_t>& times_ns() const { return times_ns_; }
  // The bytes of each category from times_ns()[i] on.
  const std::vector<Bytes>& sizes() const { return sizes_; }
  // The bytes of each category after every change at or before `time_ns`.
  Bytes at(int64_t time_ns) const;
  int64_t peak_total() const;  // the most bytes alive at once, all categories together

  // By the path's extension: ".json", PyTorch's [times in microseconds, [bytes per category, in
  // PyTorch's plot order]]; ".png", stacked areas per category drawn by gnuplot; ".html", one page
  // with the same chart as inline SVG (no scripts).
  void export_memory_timeline(const std::string& path) const;

 private:
  void write_json(const std::string& path) const;
  void write_png(const std::string& path) const;   // memory_timeline_chart.cpp
  void write_html(const std::string& path) const;  // memory_timeline_chart.cpp

  Device device_;
  std::vector<int64_t> times_ns_;
  std::vector<Bytes> sizes_;
};

// PyTorch's plot order of the categories (its _CATEGORY_TO_COLORS), with its colours: the JSON's
// columns after the leading 0, and the stacking order of the charts, bottom first.
struct PlottedCategory {
  MemoryCategory category;
  const char* color;  // PyTorch's matplotlib colour name
  const char* rgb;    // the same colour as gnuplot and SVG both read it
};
inline constexpr std::array<PlottedCategory, kMemoryCategories> kPlotOrder = {{
    {MemoryCategory::Parameter, "darkgreen", "#006400"},
    {MemoryCategory::OptimizerState, "goldenrod", "#daa520"},
    {MemoryCategory::Input, "black", "#000000"},
    {MemoryCategory::Temporary, "mediumpurple", "#9370db"},
    {MemoryCategory::Activation, "red", "#ff0000"},
    {MemoryCategory::Gradient, "mediumblue", "#0000cd"},
    {MemoryCategory::AutogradDetail, "royalblue", "#4169e1"},
    {MemoryCategory::Unknown, "grey", "#808080"},
}};

}  // namespace ember::profiler
