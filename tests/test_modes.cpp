// no_grad vs inference_mode (engine/inference_mode.h): both stop recording; inference mode also makes
// inference tensors, which have no version counter and may not re-enter autograd. The guards are
// thread-local.
#include <catch2/catch.hpp>

#include <thread>

#include "ember.h"

using namespace ember;

TEST_CASE("tensors made in inference mode are inference tensors without a version counter", "[modes]") {
  Tensor normal = ones({3});
  Tensor made_inside, view_of_normal;
  {
    InferenceMode guard;
    CHECK(InferenceMode::is_enabled());
    CHECK_FALSE(GradMode::is_enabled());
    made_inside = normal * 2;
    view_of_normal = normal[0];
    CHECK(made_inside.is_inference());
    CHECK_FALSE(view_of_normal.is_inference());  // a view follows its base
    made_inside.add_(1);                         // allowed inside, and nothing to bump
    normal.add_(1);                              // a normal tensor still bumps its counter
    CHECK(normal._version() == 1);
  }
  CHECK_FALSE(InferenceMode::is_enabled());
  CHECK(GradMode::is_enabled());
  CHECK(made_inside.is_inference());
  CHECK(made_inside[0].is_inference());
  CHECK(made_inside.detach().is_inference());
  CHECK_FALSE(made_inside.clone().is_inference());  // clone outside makes a normal tensor
  CHECK_THROWS_WITH(made_inside._version(), "Inference tensors do not track version counter.");
}

TEST_CASE("inference tensors are read-only outside inference mode", "[modes]") {
  Tensor t;
  {
    InferenceMode guard;
    t = zeros({2});
  }
  const char* inplace = "Inplace update to inference tensor outside InferenceMode is not allowed.You can make a clone "
                        "to get a normal tensor before doing inplace update.See "
                        "https://github.com/pytorch/rfcs/pull/17 for more details.";
  CHECK_THROWS_WITH(t.add_(1), inplace);
  CHECK_THROWS_WITH(t[0].fill_(1), inplace);
  CHECK_THROWS_WITH(t.requires_grad_(),
                    "Setting requires_grad=True on inference tensor outside InferenceMode is not allowed.");
  Tensor normal = zeros({2});
  normal.copy_(t);  // reading it is fine
  // PyTorch refuses the write when it bumps the version, after writing (torch 1.13 gives [2., 2.]).
  CHECK((t + 1).tolist_str() == "[2.0, 2.0]");
}

TEST_CASE("inference tensors cannot be saved for backward, but may be read by ops that save nothing", "[modes]") {
  Tensor b;
  {
    InferenceMode guard;
    b = ones({2});
  }
  Tensor w = ones({1}, Options().requires_grad());
  try {
    (b * w).sum().backward();
    FAIL("expected an error");
  } catch (const Error& e) {
    const std::string message = e.what();
    CHECK(message.substr(0, message.find('.')) == "Inference tensors cannot be saved for backward");  // the chapter
    CHECK(message == "Inference tensors cannot be saved for backward. To work around you can make a clone to get a "
                     "normal tensor and use it in autograd.");
  }
  Tensor sum = b + w;  // add saves nothing
  CHECK(sum.requires_grad());
  sum.sum().backward();
  CHECK(w.grad().tolist_str() == "[2.0]");
  (b.clone() * w).sum().backward();  // the suggested work-around
}

TEST_CASE("no_grad results stay usable in autograd, inference-mode results do not (the chapter)", "[modes]") {
  Tensor w = ones({4, 4}, Options().requires_grad());
  Tensor x = ones({2, 4});
  Tensor a, b;
  {
    NoGradGuard no_grad;
    a = x.mm(w);
  }
  {
    InferenceMode guard;
    b = x.mm(w);
  }
  CHECK_FALSE(a.requires_grad());
  CHECK_FALSE((a * 1).requires_grad());
  CHECK_FALSE(a.is_inference());
  CHECK(b.is_inference());
  (a * w.sum()).sum().backward();
  CHECK_THROWS_AS(b * w.sum(), Error);
}

TEST_CASE("InferenceMode(false) inside inference mode restores normal behaviour", "[modes]") {
  InferenceMode outer;
  {
    InferenceMode inner(false);
    CHECK_FALSE(InferenceMode::is_enabled());
    CHECK(GradMode::is_enabled());
    CHECK_FALSE(ones({1}).is_inference());
  }
  CHECK(InferenceMode::is_enabled());
  CHECK(ones({1}).is_inference());
}

TEST_CASE("a view made in inference mode of a tensor that requires grad cannot be modified in place outside",
          "[modes]") {
  Tensor x = ones({2, 2}, Options().requires_grad());
  Tensor y = x * 1;
  Tensor view;
  {
    InferenceMode guard;
    view = y[0];
  }
  CHECK_THROWS_WITH(view.mul_(2), "A view was created in inference mode and is being modified inplace in normal mode. "
                                  "Given that this use case is ambiguous and error-prone, it is forbidden. You can "
                                  "clarify your code by moving both the view and the inplace either both inside the "
                                  "inference_mode block (if you don't want the inplace to be tracked) or both outside "
                                  "(if you want the inplace to be tracked).");
}

TEST_CASE("grad mode and inference mode are thread-local", "[modes]") {
  NoGradGuard no_grad;
  InferenceMode guard;
  bool other_grad = false, other_inference = true, other_tensor_inference = true;
  std::thread other([&] {
    other_grad = GradMode::is_enabled();
    other_inference = InferenceMode::is_enabled();
    other_tensor_inference = ones({1}).is_inference();
  });
  other.join();
  CHECK(other_grad);
  CHECK_FALSE(other_inference);
  CHECK_FALSE(other_tensor_inference);
  CHECK_FALSE(GradMode::is_enabled());
  CHECK(InferenceMode::is_enabled());
}
