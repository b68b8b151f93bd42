// The warning channel (engine/warning.h): PyTorch's UserWarning texts (tests/fixtures/errors.json),
// reported through a handler a test can install, and once per text for the warnings a training
// loop would otherwise repeat every step, unless set_warn_always(true).
#include <catch2/catch.hpp>

#include "captured_warnings.h"
#include "fixture.h"

using namespace ember;
using fixture::torch_warning;

namespace {

// Restores torch.set_warn_always's default when the test ends.
struct WarnAlways {
  explicit WarnAlways(bool always) { set_warn_always(always); }
  ~WarnAlways() { set_warn_always(false); }
};

}  // namespace

TEST_CASE("reading the .grad of a non-leaf warns with PyTorch's text, once", "[warnings]") {
  const Tensor leaf = ones({2}, Options().requires_grad());
  const Tensor doubled = leaf * 2;
  CapturedWarnings warnings;
  CHECK_FALSE(doubled.grad().defined());  // the first read in this process warns
  CHECK(warnings.texts.size() <= 1);
  for (const std::string& text : warnings.texts) CHECK(text == torch_warning("non_leaf_grad"));
  const size_t after_first = warnings.texts.size();
  CHECK_FALSE(doubled.grad().defined());
  CHECK_FALSE((leaf * 3).grad().defined());
  CHECK(warnings.texts.size() == after_first);  // the same text is not reported again
  CHECK_FALSE(leaf.grad().defined());           // a leaf before backward: no warning at all
  CHECK(warnings.texts.size() == after_first);
}

TEST_CASE("set_warn_always reports a warn_once text every time", "[warnings]") {
  const Tensor doubled = ones({2}, Options().requires_grad()) * 2;
  WarnAlways always(true);
  CHECK(is_warn_always_enabled());
  CapturedWarnings warnings;
  (void)doubled.grad();
  (void)doubled.grad();
  CHECK(warnings.texts == std::vector<std::string>(2, torch_warning("non_leaf_grad")));
}

TEST_CASE("mse_loss warns when the target's size differs from the input's and broadcasts", "[warnings]") {
  WarnAlways always(true);
  CapturedWarnings warnings;
  const Tensor loss = mse_loss(ones({2, 1}), ones({2}));
  CHECK(loss.item<double>() == 0.0);
  CHECK(warnings.texts == std::vector<std::string>{torch_warning("mse_loss_broadcast")});
  (void)mse_loss(ones({2}), ones({2}));
  CHECK(warnings.texts.size() == 1);
}

TEST_CASE("a warning goes to the installed handler, and the previous handler comes back", "[warnings]") {
  std::vector<std::string> outer_texts;
  const WarningHandler original = set_warning_handler([&](const std::string& text) { outer_texts.push_back(text); });
  {
    CapturedWarnings inner;
    warn("inside");
    CHECK(inner.texts == std::vector<std::string>{"inside"});
  }
  warn("outside");
  set_warning_handler(original);
  CHECK(outer_texts == std::vector<std::string>{"outside"});
}
