// A thread's buffer of raw events: what recording.cpp appends as ops open and close, and what
// stop() reads and turns into Events. Chunks of 4096 events (appending allocates only when one
// fills), an arena of argument shapes, and the innermost open event, which is the parent of the
// next. Its own mutex is taken only by its thread while recording and by stop() once, to read.
// (ThreadBuffer is declared in profiler.h, whose Handle points at one.)
#pragma once
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "profiler.h"

namespace ember::profiler::detail {

struct RawEvent {
  const char* name;          // a string constant, or a copy kept in the buffer's `names`
  int64_t start_ns, end_ns;  // steady clock; end_ns is 0 while the event is open
  int32_t parent;            // index in the same buffer, -1 at top level
  uint32_t inputs_begin;     // where its arguments start in the buffer's `inputs` (record_shapes)
  uint32_t input_count;
  Traffic traffic;
  bool is_user_annotation;
  int64_t bytes_read, bytes_overwritten;
  int64_t self_allocated, self_freed;            // CPU bytes, while it was the innermost open event
  int64_t self_cuda_allocated, self_cuda_freed;  // GPU bytes (the blocks handed out), the same
  int32_t cuda_start, cuda_end;                  // marks on the GPU timeline (CUDA activity), -1: none
};

constexpr uint32_t kChunkEvents = 4096;
constexpr size_t kInputsReserved = 1 << 14;  // int64s of recorded shapes before the arena grows
struct Chunk {
  RawEvent events[kChunkEvents];
};

// How an argument is kept in `inputs`: its kind (a DType's value for a tensor), then for a tensor
// its dimension count and sizes.
enum ArgumentCode : int64_t { kNumber = -1, kTensorList = -2, kOther = -3 };

struct ThreadBuffer {
  std::mutex mutex;
  uint64_t thread_id = 0;
  uint64_t session = 0;  // the profile this buffer's events belong to; 0: none
  bool thread_alive = true;
  std::vector<std::unique_ptr<Chunk>> chunks;
  uint32_t size = 0;
  int32_t innermost = -1;
  std::vector<int64_t> inputs;
  std::deque<std::string> names;

  RawEvent& at(uint32_t i) { return chunks[i / kChunkEvents]->events[i % kChunkEvents]; }
  RawEvent& append() {
    if (size == chunks.size() * kChunkEvents) chunks.push_back(std::unique_ptr<Chunk>(new Chunk));
    return at(size++);
  }
  void restart(uint64_t new_session) {
    session = new_session;
    size = 0;
    innermost = -1;
    inputs.clear();
    names.clear();
  }
  void release_memory() {  // between profiles, keep one chunk: a long profile's do not stay behind
    chunks.resize(std::min<size_t>(chunks.size(), 1));
    if (inputs.capacity() > kInputsReserved) {
      std::vector<int64_t>().swap(inputs);
      inputs.reserve(kInputsReserved);
    }
  }
};

}  // namespace ember::profiler::detail
