// The roofline verdict: for each op in a profile, is it compute-bound, memory-bound, or
// overhead-bound? (The chapter's third exercise, answered by the tool itself.)
//
// An op cannot finish faster than its arithmetic at the machine's peak FLOP/s, nor faster than
// its bytes at the machine's memory bandwidth; the larger of the two is the time it "should"
// take. If it took about that long, the larger bound names what limits it. If it took far longer
// (kOverheadFactor times) than both, neither arithmetic nor memory is the problem: the time goes
// to per-op overhead (dispatch, checks, allocation), which only fewer or bigger ops remove.
//
// An op's FLOPs are PyTorch's count (profiler.h, flops_of); its bytes are what it reads (the
// distinct elements of its tensor arguments: a broadcast one counts once) plus what it writes (the
// tensors it allocates, or the tensor an in-place op overwrites), each byte once: the least
// traffic the op can get away with. Views and composite ops move no bytes of their own. The time
// is the op's self time, so aten::linear is judged on its own overhead and its aten::addmm on the
// matrix product.
//
// The machine's figures come from a short calibration (a float32 matmul, a large copy: about a
// third of a second), cached in a small file so that it runs once per machine.
#pragma once
#include <string>

#include "profiler.h"

namespace ember::profiler {

struct MachinePeaks {
  double flops_per_second = 0;  // float32 matrix product, all threads
  double bytes_per_second = 0;  // a copy far larger than the caches: bytes read + bytes written
};

// Measures the peaks now (run it with no profiler running, or its ops are in the profile).
MachinePeaks calibrate();
// $EMBER_CACHE_DIR/machine_peaks.json, else $XDG_CACHE_HOME/ember/..., else $HOME/.cache/ember/...
std::string default_machine_peaks_path();
// The cached figures from `cache_path`, calibrating (and writing the file) when it is missing,
// unreadable or was measured with another thread count.
MachinePeaks machine_peaks(const std::string& cache_path = default_machine_peaks_path());
// "98.4 GFLOP/s (float32 matmul), 11.2 GB/s (copy)"
std::string to_string(const MachinePeaks& peaks);

enum class Bound { Compute, Memory, Overhead };
const char* to_string(Bound bound);  // "compute-bound", "memory-bound", "overhead-bound"

constexpr double kOverheadFactor = 10;

struct Verdict {
  Bound bound = Bound::Overhead;
  double compute_seconds = 0;  // flops at peak FLOP/s
  double memory_seconds = 0;   // bytes at peak bandwidth
  double seconds = 0;          // what it took
};
Verdict roofline_verdict(double flops, double bytes, double seconds, const MachinePeaks& peaks);
// The verdict on one row of key_averages(): per call, on its self time.
Verdict roofline_verdict(const EventAverage& row, const MachinePeaks& peaks);

// The top rows by self CPU time with their verdicts, the machine's figures on top.
std::string roofline_table(const KeyAverages& averages, const MachinePeaks& peaks, int64_t row_limit = 10);

}  // namespace ember::profiler
