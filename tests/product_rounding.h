// How far a library's matrix product may be from the exact product of its operands, by what the
// library promises, so that GPU products (cuBLAS) are checked against that promise rather than
// against another library's bits (oneDNN's on the CPU sums in another order and rounds alike only
// by chance). Three sources of error, each bounded:
//   - each operand may be rounded to a narrower format before multiplying (TF32: 10 mantissa bits,
//     truncated or rounded: 2^-10 relative), `operand_rounding`;
//   - the K products are summed in float32, in any order, blocked or split: the textbook bound
//     K * 2^-24 * sum |a_ik * b_kj|, `accumulation_unit` being float32's 2^-24;
//   - the sum is rounded once to the result's dtype: half its unit in the last place.
#pragma once
#include <string>

#include "ember.h"

namespace product_rounding {

struct Promise {
  double operand_rounding = 0;         // relative error of each operand's conversion; 0: used as stored
  double accumulation_unit = 0x1p-24;  // float32's unit roundoff
};

// "" when every element of the 2-D `product` (on any device) lies within the promise's bound of
// a @ b computed exactly (in float64, from the values a and b hold), else the first element
// outside it with its error and its bound.
std::string within_promise(const ember::Tensor& product, const ember::Tensor& a, const ember::Tensor& b,
                           Promise promise = {});

}  // namespace product_rounding
