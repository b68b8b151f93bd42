// Generator: where every random number in ember comes from. It is PyTorch's CPU generator
// (CPUGeneratorImpl) rebuilt: the same mt19937 engine, seeded the same way, handing out 32- or
// 64-bit draws the same way, and keeping the same cached second Box–Muller value. That is what
// lets `manual_seed(0)` followed by `randn`, `rand` or `nn::Linear` give PyTorch's numbers bit for
// bit: the sampling kernels (kernels/distributions.h) then only have to transform the draws as
// PyTorch's kernels do.
#pragma once
#include <array>
#include <cstdint>
#include <mutex>
#include <optional>

namespace ember {

// Everything that decides what a generator produces next, as a plain value: copy it to save the
// generator's position and hand it back to set_state() to replay from there (what
// torch.get_rng_state() / torch.set_rng_state() are for).
struct GeneratorState {
  static constexpr int kWords = 624;  // mt19937's state size

  uint64_t seed = 0;                         // the seed as given; initial_seed() reports it
  std::array<uint32_t, kWords> words{};      // the mt19937 state block
  int left = 1;                              // draws left before the block must be regenerated
  int next = 0;                              // index of the word the next draw tempers
  std::optional<double> next_double_normal;  // the unused second value of the last Box–Muller pair

  friend bool operator==(const GeneratorState&, const GeneratorState&) = default;
};

class Generator {
 public:
  // A fresh torch.Generator() starts from this seed.
  static constexpr uint64_t kDefaultSeed = 67280421310721;

  explicit Generator(uint64_t seed = kDefaultSeed);
  // A generator is a stream of numbers: copying one by accident would replay numbers. To branch
  // or rewind, copy its state instead (get_state / set_state).
  Generator(const Generator&) = delete;
  Generator& operator=(const Generator&) = delete;

  // Restarts the stream from `seed`. Only the low 32 bits reach mt19937, as in PyTorch
  // (manual_seed(2**32) gives the same numbers as manual_seed(0)); initial_seed() keeps all 64.
  // Re-seeding also forgets the cached normal value.
  void manual_seed(uint64_t seed);
  // Re-seeds from a non-deterministic source and returns the seed it chose (torch.seed()).
  uint64_t seed();
  uint64_t initial_seed() const;

  GeneratorState get_state() const;
  void set_state(const GeneratorState& state);

  // ---- drawing: for sampling kernels, which hold mutex() for a whole call as PyTorch's do ----
  // One 32-bit output of mt19937.
  uint32_t random();
  // Two outputs, the first one in the high half.
  uint64_t random64();
  // The next `count` outputs, exactly as `count` calls of random() give them, but a whole run of
  // the state block at a time: the loop tempers consecutive words, which the compiler vectorises.
  void random_block(uint32_t* out, int64_t count);
  // The cached second normal sample of the scalar Box–Muller (see kernels/distributions.h).
  std::optional<double> next_double_normal_sample() const { return state_.next_double_normal; }
  void set_next_double_normal_sample(std::optional<double> value) { state_.next_double_normal = value; }

  // Sampling functions lock this for the duration of one call, so two threads sampling from one
  // generator each get a run of consecutive numbers (PyTorch locks per call the same way).
  std::mutex& mutex() const { return mutex_; }

 private:
  void regenerate_words();

  GeneratorState state_;
  mutable std::mutex mutex_;
};

// The process-wide generator that sampling uses when no generator is passed. Like PyTorch's default
// CPU generator it starts from a non-deterministic seed; call manual_seed for reproducible runs.
Generator& default_generator();

// torch.manual_seed / torch.seed / torch.initial_seed: the same, on the default generator.
void manual_seed(uint64_t seed);
uint64_t seed();
uint64_t initial_seed();

}  // namespace ember
