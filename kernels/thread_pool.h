// The helper threads of parallel_for (parallel.h), in place of an OpenMP parallel region. Why not
// OpenMP: a region ends in a barrier that waits for every thread of its team, and a team thread
// the OS has not run yet (other processes hold the cores) keeps the whole region waiting for its
// scheduling slice: a relu of 131k floats took 20 ms instead of tens of microseconds. Here a job is
// cut into chunks that threads claim one at a time from one atomic counter, and the calling thread
// claims chunks too: what a helper has not started, the caller does itself; at the end it waits
// only for chunks a helper is still running. A helper that wakes after the chunks are gone goes
// back to sleep without touching the job (its claim names the job, and fails for an older one).
#pragma once
#include <cstdint>
#include <memory>

namespace ember::kernels {

// One chunk of a job: body(context, chunk).
using ChunkBody = void (*)(void* context, int64_t chunk);

class ThreadPool {
 public:
  // Starts `workers` threads, which sleep until a job invites them.
  explicit ThreadPool(int workers);
  ~ThreadPool();  // stops and joins the workers (no job may be running)
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  // Runs body on every chunk of [0, chunks) exactly once, on the calling thread and on at most
  // `helpers` workers (those that wake in time), and returns when all have run. An exception
  // thrown by a chunk is rethrown here, on the caller, once every chunk has finished or been
  // skipped (after a failure, chunks not yet started are skipped). A call made from inside a chunk,
  // or while another thread's job holds the pool, runs every chunk on the calling thread.
  void run(int64_t chunks, int helpers, ChunkBody body, void* context);

  // Starts more workers until there are `count` (never fewer than now).
  void ensure_workers(int count);
  int workers() const;

  // At most this many chunks per job (the claim counter is 16 bits wide).
  static constexpr int64_t kMaxChunks = 65535;

  struct State;  // the atomics shared with the workers (thread_pool.cpp)

 private:
  std::unique_ptr<State> state_;
};

// The process's pool, with at least `helpers` workers. It is never destroyed (worker threads may
// outlive main's return); a child made by fork() starts with a fresh, empty pool.
ThreadPool& intra_op_pool(int helpers);

// The intra-op thread count (ember::set_num_threads; OpenMP's count, which oneDNN and Eigen read).
int intra_op_threads();

// True on a pool worker, on a caller while its job runs, and inside an OpenMP region: there a
// parallel_for runs inline instead of asking for threads that are already busy.
bool in_parallel_region();

}  // namespace ember::kernels
