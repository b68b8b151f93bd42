// The generator's engine, mt19937 (the Mersenne Twister), written out as PyTorch's
// aten/src/ATen/core/MT19937RNGEngine.h has it: a block of 624 words that is regenerated every 624
// draws, and a "tempering" step that scrambles each word on its way out. Its outputs equal
// std::mt19937's for the same 32-bit seed; it is spelled out here so the state is ours to copy.
#include "generator.h"

#include <algorithm>
#include <random>

namespace ember {

namespace {

constexpr int kWords = GeneratorState::kWords;
constexpr int kShift = 397;  // the twist combines word i with word i + 397
constexpr uint32_t kTwistMatrix = 0x9908b0df;
constexpr uint32_t kUpperBit = 0x80000000;
constexpr uint32_t kLowerBits = 0x7fffffff;

// PyTorch's init_with_uint32: the seed fills word 0, each next word is a hash of the previous one.
// `left = 1` makes the very first draw regenerate the whole block.
GeneratorState seeded_state(uint64_t seed) {
  GeneratorState state;
  state.seed = seed;
  state.words[0] = static_cast<uint32_t>(seed & 0xffffffff);
  for (int i = 1; i < kWords; ++i) {
    const uint32_t previous = state.words[i - 1];
    state.words[i] = 1812433253u * (previous ^ (previous >> 30)) + static_cast<uint32_t>(i);
  }
  state.left = 1;
  state.next = 0;
  return state;
}

// 64 bits from the operating system's entropy source (torch uses /dev/urandom the same way).
uint64_t non_deterministic_seed() {
  std::random_device device;
  return (static_cast<uint64_t>(device()) << 32) | device();
}

}  // namespace

Generator::Generator(uint64_t seed) : state_(seeded_state(seed)) {}

void Generator::manual_seed(uint64_t seed) {
  std::lock_guard<std::mutex> lock(mutex_);
  state_ = seeded_state(seed);  // a fresh state has no cached normal value either
}

uint64_t Generator::seed() {
  const uint64_t chosen = non_deterministic_seed();
  manual_seed(chosen);
  return chosen;
}

uint64_t Generator::initial_seed() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return state_.seed;
}

GeneratorState Generator::get_state() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return state_;
}

void Generator::set_state(const GeneratorState& state) {
  std::lock_guard<std::mutex> lock(mutex_);
  state_ = state;
}

// The twist: each word is replaced by a mix of its top bit, the next word's low 31 bits and the
// word 397 places further on (wrapping around the block). Words already replaced in this pass are
// used as they now are. Written as three loops, so that no index needs a `% kWords`.
void Generator::regenerate_words() {
  std::array<uint32_t, kWords>& words = state_.words;
  auto twist = [&](int i, int further) {
    const uint32_t following = words[i + 1 == kWords ? 0 : i + 1];
    const uint32_t mixed = (words[i] & kUpperBit) | (following & kLowerBits);
    words[i] = words[further] ^ (mixed >> 1) ^ ((following & 1) ? kTwistMatrix : 0);
  };
  int i = 0;
  for (; i < kWords - kShift; ++i) twist(i, i + kShift);
  for (; i < kWords - 1; ++i) twist(i, i + kShift - kWords);
  twist(kWords - 1, kShift - 1);
  state_.left = kWords;
  state_.next = 0;
}

namespace {
// Tempering: spreads the bits of a state word over the whole output.
uint32_t tempered(uint32_t y) {
  y ^= y >> 11;
  y ^= (y << 7) & 0x9d2c5680;
  y ^= (y << 15) & 0xefc60000;
  y ^= y >> 18;
  return y;
}
}  // namespace

uint32_t Generator::random() {
  if (--state_.left == 0) regenerate_words();
  return tempered(state_.words[state_.next++]);
}

// random() hands out words[next] while left > 1 and regenerates when left would reach 0; so
// left - 1 words can be handed out before the next regeneration.
void Generator::random_block(uint32_t* out, int64_t count) {
  while (count > 0) {
    if (state_.left == 1) {
      regenerate_words();
      ++state_.left;  // as random() regenerates first and then hands out words[0]
    }
    const int run = static_cast<int>(std::min<int64_t>(count, state_.left - 1));
    const uint32_t* words = state_.words.data() + state_.next;
    for (int k = 0; k < run; ++k) out[k] = tempered(words[k]);
    state_.next += run;
    state_.left -= run;
    out += run;
    count -= run;
  }
}

uint64_t Generator::random64() {
  const uint64_t high = random();
  const uint64_t low = random();
  return (high << 32) | low;
}

Generator& default_generator() {
  static Generator generator(non_deterministic_seed());
  return generator;
}

void manual_seed(uint64_t seed) { default_generator().manual_seed(seed); }
uint64_t seed() { return default_generator().seed(); }
uint64_t initial_seed() { return default_generator().initial_seed(); }

}  // namespace ember
