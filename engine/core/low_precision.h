// bfloat16 and float16 as storage formats. Arithmetic happens in float32; these convert with
// round-to-nearest-even and keep NaN a NaN, exactly as c10::BFloat16 and c10::Half do.
#pragma once
#include <bit>
#include <cmath>
#include <cstdint>

namespace ember {

struct BFloat16 {
  uint16_t bits = 0;
  BFloat16() = default;
  BFloat16(float value) : bits(round_to_bits(value)) {}
  operator float() const { return std::bit_cast<float>(static_cast<uint32_t>(bits) << 16); }

  // bfloat16 is the top half of a float32; round the dropped half to nearest, ties to even.
  static uint16_t round_to_bits(float value) {
    if (std::isnan(value)) return 0x7FC0;
    uint32_t u = std::bit_cast<uint32_t>(value);
    uint32_t rounding_bias = 0x7FFF + ((u >> 16) & 1);
    return static_cast<uint16_t>((u + rounding_bias) >> 16);
  }
};

struct Float16 {
  uint16_t bits = 0;
  Float16() = default;
  Float16(float value) : bits(round_to_bits(value)) {}
  operator float() const { return bits_to_float(bits); }

  // IEEE binary16 from float32 with round-to-nearest-even, via the scaling trick of the FP16
  // library that c10::Half uses: the float unit does the rounding for us.
  static uint16_t round_to_bits(float value) {
    const float scale_to_inf = 0x1.0p+112f;
    const float scale_to_zero = 0x1.0p-110f;
    float base = (std::fabs(value) * scale_to_inf) * scale_to_zero;
    const uint32_t w = std::bit_cast<uint32_t>(value);
    const uint32_t shl1_w = w + w;
    const uint32_t sign = w & 0x80000000u;
    uint32_t bias = shl1_w & 0xFF000000u;
    if (bias < 0x71000000u) bias = 0x71000000u;
    base = std::bit_cast<float>((bias >> 1) + 0x07800000u) + base;
    const uint32_t bits = std::bit_cast<uint32_t>(base);
    const uint32_t exp_bits = (bits >> 13) & 0x00007C00u;
    const uint32_t mantissa_bits = bits & 0x00000FFFu;
    const uint32_t nonsign = exp_bits + mantissa_bits;
    return static_cast<uint16_t>((sign >> 16) | (shl1_w > 0xFF000000u ? 0x7E00u : nonsign));
  }
  static float bits_to_float(uint16_t h) {
    const uint32_t w = static_cast<uint32_t>(h) << 16;
    const uint32_t sign = w & 0x80000000u;
    const uint32_t two_w = w + w;
    const uint32_t exp_offset = 0xE0u << 23;
    const float normalized = std::bit_cast<float>((two_w >> 4) + exp_offset) * 0x1.0p-112f;
    const float denormalized = std::bit_cast<float>((two_w >> 17) | (126u << 23)) - 0.5f;
    const uint32_t result =
        sign | (two_w < (1u << 27) ? std::bit_cast<uint32_t>(denormalized) : std::bit_cast<uint32_t>(normalized));
    return std::bit_cast<float>(result);
  }
};

}  // namespace ember
