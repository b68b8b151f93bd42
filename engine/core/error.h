// Errors. ember reports bad input the way PyTorch does: one exception type whose message is
// PyTorch's text, so a user who knows PyTorch's errors recognises ember's.
#pragma once
#include <sstream>
#include <stdexcept>
#include <string>

namespace ember {

struct Error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// An index out of range (c10::IndexError): Python's binding raises it as IndexError, which is what
// stops Python's iteration protocol and what `except IndexError` catches.
struct IndexError : Error {
  using Error::Error;
};

// A value the function cannot take (PyTorch's TORCH_CHECK_VALUE, c10::ValueError): Python's
// binding raises it as ValueError.
struct ValueError : Error {
  using Error::Error;
};

// An argument of the wrong type (PyTorch's TORCH_CHECK_TYPE, c10::TypeError): Python's binding
// raises it as TypeError.
struct TypeError : Error {
  using Error::Error;
};

// A broken invariant inside ember (a bug in the engine, not the user's mistake): raised by
// EMBER_INTERNAL_ASSERT so that it reads differently from a user error.
struct InternalError : Error {
  using Error::Error;
};

// Concatenates any streamable values into one string (only on the failure path).
template <typename... Parts>
std::string str_cat(const Parts&... parts) {
  std::ostringstream out;
  (out << ... << parts);
  return out.str();
}

}  // namespace ember

// Two kinds of check, as PyTorch's TORCH_CHECK and TORCH_INTERNAL_ASSERT:
// EMBER_CHECK(cond, "text ", value, ...): throw ember::Error with the concatenated text when cond
// is false. The message is built only when the check fails, so checks cost nothing on hot paths.
#define EMBER_CHECK(cond, ...)                             \
  do {                                                     \
    if (!(cond)) [[unlikely]]                              \
      throw ::ember::Error(::ember::str_cat(__VA_ARGS__)); \
  } while (0)

// EMBER_INTERNAL_ASSERT(cond, "detail", ...): a can't-happen check. Failing it is an engine bug,
// reported with where it happened (PyTorch: "INTERNAL ASSERT FAILED at ... please report a bug").
#define EMBER_INTERNAL_ASSERT(cond, ...)                                                                           \
  do {                                                                                                             \
    if (!(cond)) [[unlikely]]                                                                                      \
      throw ::ember::InternalError(::ember::str_cat("INTERNAL ASSERT FAILED at ", __FILE__, ":", __LINE__,         \
                                                    ", please report a bug to ember. ", #cond, " ", __VA_ARGS__)); \
  } while (0)
