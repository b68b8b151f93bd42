// The pool's protocol, in the order a job goes through it:
// 1. The caller takes the pool (`busy`), records the job, sets the claim counter to
//    (epoch, chunks, next = 0) and the invitation to (epoch, helpers), and bumps `wake`.
// 2. A worker that sees `wake` change takes one invitation (at most `helpers` workers join a job),
//    then claims chunks while the counter still holds its job's epoch and chunks are left.
//    The caller claims chunks the same way, from the start.
// 3. Whoever finishes a chunk counts it in `finished`. When no chunk is left to claim, the caller
//    waits until `finished` reaches the job's chunk count: only chunks already running remain.
// A worker reads the job only after a successful claim, and the job cannot end while one of its
// chunks is unfinished, so a worker never touches a job that has returned. Waiting threads spin a
// little (yielding the core to any other runnable thread) and then sleep on a futex
// (std::atomic::wait), so an idle pool costs nothing.
#include "thread_pool.h"

#include <omp.h>
#include <pthread.h>

#include <atomic>
#include <chrono>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace ember::kernels {

namespace {

thread_local bool in_region = false;

// How long a worker keeps checking for the next job before it sleeps. Ops come in quick
// succession (a training step runs one every few microseconds to milliseconds), and a sleeping
// worker takes tens of microseconds to wake; the spin yields, so a core another thread needs is
// given up at once.
constexpr auto kWorkerSpin = std::chrono::microseconds(500);

// The job, on the caller's stack for as long as run() lasts.
struct Job {
  ChunkBody body;
  void* context;
  std::atomic_flag failed = ATOMIC_FLAG_INIT;
  std::exception_ptr failure;  // written once, by the thread that set `failed`
};

class RegionScope {
 public:
  RegionScope() : outer_(in_region) { in_region = true; }
  ~RegionScope() { in_region = outer_; }
  RegionScope(const RegionScope&) = delete;
  RegionScope& operator=(const RegionScope&) = delete;

 private:
  bool outer_;
};

// The claim counter: epoch in the high 32 bits, the job's chunk count in the next 16, the next
// chunk to hand out in the low 16.
constexpr uint64_t ticket(uint32_t epoch, uint64_t chunks, uint64_t next) {
  return (uint64_t{epoch} << 32) | (chunks << 16) | next;
}

void run_chunk(Job& job, int64_t chunk) {
  if (job.failed.test(std::memory_order_relaxed)) return;  // a chunk failed: skip the rest
  try {
    job.body(job.context, chunk);
  } catch (...) {
    if (!job.failed.test_and_set()) job.failure = std::current_exception();
  }
}

}  // namespace

struct ThreadPool::State {
  std::atomic<uint64_t> claims{0};      // ticket(epoch, chunks, next)
  std::atomic<uint64_t> invitation{0};  // epoch << 32 | helpers still wanted
  std::atomic<uint32_t> wake{0};        // bumped for every job; sleeping workers wait on it
  std::atomic<uint32_t> finished{0};    // chunks of the current job that have run
  std::atomic<bool> busy{false};        // a caller's job holds the pool
  std::atomic<bool> stopping{false};
  Job* job = nullptr;  // the current job: written by its caller before it publishes the claims
  uint32_t epoch = 0;  // the caller's, while it holds `busy`
  std::atomic<int> worker_count{0};
  std::mutex workers_mutex;  // guards `threads`
  std::vector<std::thread> threads;

  // Claims the next chunk of job `for_epoch`: false when none is left (or that job is over).
  bool claim(uint32_t for_epoch, int64_t& chunk, uint32_t& chunks) {
    uint64_t seen = claims.load(std::memory_order_acquire);
    for (;;) {
      chunks = static_cast<uint32_t>((seen >> 16) & 0xffff);
      chunk = static_cast<int64_t>(seen & 0xffff);
      if (seen >> 32 != for_epoch || chunk >= chunks) return false;
      if (claims.compare_exchange_weak(seen, seen + 1, std::memory_order_acq_rel, std::memory_order_acquire))
        return true;
    }
  }

  // Runs chunks of job `for_epoch` until none is left to claim.
  void claim_and_run(uint32_t for_epoch) {
    int64_t chunk;
    uint32_t chunks;
    while (claim(for_epoch, chunk, chunks)) {
      run_chunk(*job, chunk);
      // The last count may let the caller return: nothing of the job is read after it.
      if (finished.fetch_add(1, std::memory_order_acq_rel) + 1 == chunks) finished.notify_one();
    }
  }

  // A worker's life; `seen` is the value of `wake` when it was started.
  void work(uint32_t seen) {
    in_region = true;
    for (;;) {
      const auto spin_until = std::chrono::steady_clock::now() + kWorkerSpin;
      while (wake.load(std::memory_order_acquire) == seen && !stopping.load(std::memory_order_acquire)) {
        if (std::chrono::steady_clock::now() < spin_until) std::this_thread::yield();
        else wake.wait(seen, std::memory_order_acquire);
      }
      seen = wake.load(std::memory_order_acquire);
      if (stopping.load(std::memory_order_acquire)) return;
      uint64_t offer = invitation.load(std::memory_order_acquire);
      while ((offer & 0xffffffff) != 0 && !invitation.compare_exchange_weak(offer, offer - 1, std::memory_order_acq_rel,
                                                                            std::memory_order_acquire)) {
      }
      if ((offer & 0xffffffff) != 0) claim_and_run(static_cast<uint32_t>(offer >> 32));
    }
  }

  // Waits until `chunks` chunks have finished: spins briefly (a chunk in progress usually ends
  // within microseconds), then sleeps until the last one is counted.
  void wait_for(uint32_t chunks) {
    for (int round = 0;; ++round) {
      const uint32_t done = finished.load(std::memory_order_acquire);
      if (done == chunks) return;
      if (round < 64) std::this_thread::yield();
      else finished.wait(done, std::memory_order_acquire);
    }
  }
};

ThreadPool::ThreadPool(int workers) : state_(std::make_unique<State>()) { ensure_workers(workers); }

ThreadPool::~ThreadPool() {
  state_->stopping.store(true, std::memory_order_release);
  state_->wake.fetch_add(1, std::memory_order_release);
  state_->wake.notify_all();
  for (std::thread& thread : state_->threads) thread.join();
}

void ThreadPool::ensure_workers(int count) {
  if (state_->worker_count.load(std::memory_order_acquire) >= count) return;
  std::lock_guard<std::mutex> lock(state_->workers_mutex);
  while (static_cast<int>(state_->threads.size()) < count) {
    State* state = state_.get();
    const uint32_t seen = state->wake.load(std::memory_order_acquire);
    state_->threads.emplace_back([state, seen] { state->work(seen); });
    state_->worker_count.store(static_cast<int>(state_->threads.size()), std::memory_order_release);
  }
}

int ThreadPool::workers() const { return state_->worker_count.load(std::memory_order_acquire); }

void ThreadPool::run(int64_t chunks, int helpers, ChunkBody body, void* context) {
  Job job{body, context, {}, {}};
  State& s = *state_;
  bool idle = false;
  const bool inline_only = helpers <= 0 || chunks <= 1 || chunks > kMaxChunks || in_parallel_region() ||
                           !s.busy.compare_exchange_strong(idle, true, std::memory_order_acquire);
  RegionScope region;
  if (inline_only) {
    for (int64_t chunk = 0; chunk < chunks; ++chunk) run_chunk(job, chunk);
  } else {
    const uint32_t epoch = ++s.epoch;
    s.job = &job;
    s.finished.store(0, std::memory_order_relaxed);
    s.claims.store(ticket(epoch, static_cast<uint64_t>(chunks), 0), std::memory_order_release);
    s.invitation.store(uint64_t{epoch} << 32 | static_cast<uint32_t>(helpers), std::memory_order_release);
    s.wake.fetch_add(1, std::memory_order_release);
    if (helpers >= s.worker_count.load(std::memory_order_relaxed)) s.wake.notify_all();
    else
      for (int i = 0; i < helpers; ++i) s.wake.notify_one();  // the other sleepers sleep on
    s.claim_and_run(epoch);
    s.wait_for(static_cast<uint32_t>(chunks));
    s.busy.store(false, std::memory_order_release);
  }
  if (job.failure) std::rethrow_exception(job.failure);
}

namespace {

std::atomic<ThreadPool*> process_pool{nullptr};
ThreadPool* left_behind = nullptr;  // still reachable, so leak checkers do not report it

// After fork() the child has only the thread that forked: the parent's workers are not there, and
// a job the parent was running may hold the pool. The child leaves that pool behind (freeing it
// would join threads that do not exist) and starts a new one when it first needs helpers.
void forget_pool_in_child() { left_behind = process_pool.exchange(nullptr); }

}  // namespace

ThreadPool& intra_op_pool(int helpers) {
  ThreadPool* pool = process_pool.load(std::memory_order_acquire);
  if (pool == nullptr) {
    static std::once_flag registered;
    std::call_once(registered, [] { pthread_atfork(nullptr, nullptr, forget_pool_in_child); });
    auto* created = new ThreadPool(0);  // never freed: see the header
    if (process_pool.compare_exchange_strong(pool, created, std::memory_order_acq_rel)) pool = created;
    else delete created;
  }
  pool->ensure_workers(helpers);
  return *pool;
}

int intra_op_threads() { return omp_get_max_threads(); }

bool in_parallel_region() { return in_region || omp_in_parallel(); }

}  // namespace ember::kernels
