// The raw record a memory timeline is drawn from (memory_timeline.h): while a profile with
// profile_memory runs, every block the allocator hands out or takes back, by its address, and
// what the engine said each is for (memory_category.h). Why by address: a free names only the
// block, and tensors come and go as handles of the same storage; the block is what holds bytes.
// Written by recording.cpp (the allocator's observer, op arguments) and tag_memory, under one
// mutex: unlike events, allocations from every thread go into one list, in the order they happened.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "core/device.h"
#include "memory_category.h"

namespace ember::profiler::detail {

struct Argument;

struct MemoryLog {
  struct Allocation {
    Device device;
    int64_t bytes = 0;  // CPU: as requested; GPU: the block handed out
    MemoryCategory category = MemoryCategory::Temporary;
    bool preexisting = false;  // allocated before the profile started: counted from its start
  };
  struct Change {
    int64_t time_ns = 0;     // from the profile's start (the events' clock)
    int64_t allocation = 0;  // index in `allocations`
    bool freed = false;      // else allocated
  };
  std::vector<Allocation> allocations;
  std::vector<Change> changes;  // in the order they happened, times never decreasing
  int64_t stop_ns = 0;          // when the profile stopped, from its start
};

// Profiler::start and stop (recording.cpp). take_memory_log gives the log of the profile that
// ended last, once; null if it did not record memory.
void begin_memory_log(int64_t session_start_ns);
void end_memory_log(int64_t stop_ns);
std::shared_ptr<const MemoryLog> take_memory_log();

// The allocator's observer, while a log is kept: `delta` bytes allocated (> 0) or freed at `data`.
void note_memory(Device device, const void* data, int64_t delta);
// An op's tensor arguments: a block allocated before the profile is an input from its start (a leaf
// that requires grad a parameter); blocks the profile saw allocated keep their category.
void note_op_arguments(const Argument* arguments, size_t count);

}  // namespace ember::profiler::detail
