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

// Concatenates any streamable values into one string (only on the failure path).
template <typename... Parts>
std::string str_cat(const Parts&... parts) {
  std::ostringstream out;
  (out << ... << parts);
  return out.str();
}

}  // namespace ember

// EMBER_CHECK(cond, "text ", value, ...): throw ember::Error with the concatenated text when cond
// is false. The message is built only when the check fails, so checks cost nothing on hot paths.
#define EMBER_CHECK(cond, ...)                                  \
  do {                                                          \
    if (!(cond)) [[unlikely]]                                   \
      throw ::ember::Error(::ember::str_cat(__VA_ARGS__));      \
  } while (0)
