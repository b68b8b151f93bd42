// What the grown replay (out=, resize_, inference mode, autocast) found ember doing otherwise than
// PyTorch 1.13 in its products: how matmul folds a batch into one mm or mv (which decides its
// errors, its graph and the tensor a version error names) and the order in which the out= variants
// check, resize and write (which decides what an error leaves in out). Every expected text, shape,
// version and name is PyTorch's (fidelity.json, tools/fixtures/fidelity_products.py).
#include <catch2/catch.hpp>

#include "captured_warnings.h"
#include "ember.h"
#include "fidelity_fixture.h"

using namespace ember;
using fidelity::bools;
using fidelity::case_named;

namespace {

std::string products_message(const std::string& name) {
  return case_named("products_" + name)["message"].get<std::string>();
}

// The names of t's grad_fn and of the first input of each node below it, `depth` nodes.
std::vector<std::string> grad_fn_chain(const Tensor& t, size_t depth) {
  std::vector<std::string> names;
  for (autograd::Node* node = t.grad_fn().get(); node && names.size() < depth;
       node = node->next_edges.empty() ? nullptr : node->next_edges[0].node.get())
    names.push_back(node->name());
  return names;
}

std::vector<std::string> expected_chain(const std::string& name) {
  return case_named("products_" + name)["grad_fns"].get<std::vector<std::string>>();
}

Tensor requiring_grad(Tensor t) { return t.requires_grad_(); }

// The error backward raises after matmul's input was changed in place.
std::string version_error(const Tensor& input) {
  const Tensor z = matmul(input, ones({input.size(-1), 5}, Options().requires_grad()));
  Tensor(input).add_(1);
  try {
    z.sum().backward();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

// What an out= call left in out: PyTorch's shape and version after the same call.
void check_left(const Tensor& out, const std::string& name) {
  const fixture::json& expected = case_named("products_" + name);
  CHECK(out.sizes() == fidelity::dims_of(expected["shape"]));
  CHECK(out._version() == expected["version"].get<uint32_t>());
}

}  // namespace

TEST_CASE("matmul folds a batch times a vector into one mv, whose text names the folded rows", "[fidelity][products]") {
  CHECK_THROWS_WITH(matmul(ones({2, 3, 4}), ones({3})),
                    products_message("matmul_batch_vector_mismatch"));  // was mm's text
  const Tensor batch = requiring_grad(arange(24.0).view({2, 3, 4}));
  CHECK(grad_fn_chain(matmul(batch, ones({4})), 3) == expected_chain("matmul_batch_vector_graph"));
  CHECK(grad_fn_chain(matmul(batch, ones({4, 5})), 3) == expected_chain("matmul_batch_matrix_graph"));
}

TEST_CASE("matmul runs bmm on a batch of transposed matrices instead of copying it to fold it",
          "[fidelity][products]") {
  const Tensor transposed = requiring_grad(arange(24.0).view({2, 4, 3})).permute({0, 2, 1});
  CHECK(grad_fn_chain(matmul(transposed, ones({4, 5})), 2) == expected_chain("matmul_transposed_batch_graph"));
  CHECK_THROWS_WITH(matmul(ones({2, 4, 3}).permute({0, 2, 1}), ones({3, 5})),
                    products_message("matmul_transposed_batch_mismatch"));  // was mm's text
}

TEST_CASE("a version error after matmul names the folded or batched tensor it saved", "[fidelity][products]") {
  CHECK(version_error(ones({2, 3, 4}, Options().requires_grad()) * 1) ==
        products_message("matmul_batch_matrix_version_error"));
  // Folded, a transposed batch was a copy that no in-place change reached: backward raised nothing.
  CHECK(version_error((ones({2, 4, 3}, Options().requires_grad()) * 1).permute({0, 2, 1})) ==
        products_message("matmul_transposed_batch_version_error"));
}

TEST_CASE("matmul folds a batch on the right through its transpose", "[fidelity][products]") {
  const fixture::json& expected = case_named("products_matmul_matrix_batch");
  const Tensor product = matmul(requiring_grad(arange(12.0).view({3, 4})), arange(40.0).view({2, 4, 5}));
  CHECK(fixture::compare(product.detach(), expected["output"]) == "");
  CHECK(grad_fn_chain(product, 1) == expected_chain("matmul_matrix_batch"));
  CHECK(product.is_contiguous() == expected["contiguous"].get<bool>());
  CHECK_THROWS_WITH(matmul(ones({3}), ones({2, 4, 5})), products_message("matmul_vector_batch_mismatch"));
}

TEST_CASE("an out= that is also an input cannot be resized to the broadcast shape", "[fidelity][products][resize]") {
  Tensor out = ones({1});
  CHECK_THROWS_WITH(add_out(out, out, ones({4})),
                    products_message("out_read_and_written_keeps_its_shape"));  // was resized
  check_left(out, "out_read_and_written_keeps_its_shape");
}

TEST_CASE("sub_out refuses bools before it looks at out", "[fidelity][products][resize]") {
  Tensor out = bools({true, false});
  CHECK_THROWS_WITH(sub_out(out, ones({2, 2}, Options().dtype(kFloat64)), out),
                    products_message("sub_out_refuses_bools_first"));
}

TEST_CASE("mm_out checks out's dtype before the kernel refuses bools", "[fidelity][products][resize]") {
  Tensor out = ones({2, 2}, Options().dtype(kInt64));
  CHECK_THROWS_WITH(mm_out(out, bools({true, false}).view({2, 1}), bools({true, false}).view({1, 2})),
                    products_message("mm_out_dtype_before_the_kernel"));  // was the kernel's text
}

TEST_CASE("matmul_out resizes out to the folded product's shape before autograd refuses it", "[fidelity][products]") {
  CapturedWarnings resized;  // PyTorch warns too
  Tensor out = ones({3, 2}, Options().requires_grad());
  CHECK_THROWS_WITH(matmul_out(out, ones({1, 2, 2}), ones({2, 3})),
                    products_message("matmul_out_folded_resizes_before_autograd_refuses"));
  check_left(out, "matmul_out_folded_resizes_before_autograd_refuses");
}

TEST_CASE("matmul_out of two vectors resizes out to a scalar before dot refuses bools", "[fidelity][products]") {
  CapturedWarnings resized;  // PyTorch warns too
  Tensor out = ones({3}, Options().dtype(kBool));
  CHECK_THROWS_WITH(matmul_out(out, bools({true, false}), bools({true, false})),
                    products_message("matmul_out_dot_resizes_before_the_kernel"));
  check_left(out, "matmul_out_dot_resizes_before_the_kernel");
}

TEST_CASE("matmul_out of a vector and a matrix writes a row, then squeezes it in place", "[fidelity][products]") {
  Tensor out = zeros({5});
  {
    CapturedWarnings resized;  // mm's out is [1, 5]: PyTorch warns too
    matmul_out(out, ones({4}), ones({4, 5}));
  }
  check_left(out, "matmul_out_vector_matrix");  // version 2: the product, then squeeze_
}

TEST_CASE("matmul_out into its own operand resizes it before the kernel refuses bools", "[fidelity][products]") {
  CapturedWarnings resized;  // PyTorch warns too
  Tensor flat = bools({true, false, false, false, false, false});
  CHECK_THROWS_WITH(matmul_out(flat, flat, from_vector(std::vector<bool>(6, true), {6, 1})),
                    products_message("matmul_out_row_of_itself_bool"));
  check_left(flat, "matmul_out_row_of_itself_bool");
}

TEST_CASE("sub_out into a tensor that a detached alias reads grows it: the overlap is checked before",
          "[fidelity][products]") {
  Tensor shared = scalar_tensor(0.2);
  {
    CapturedWarnings resized;
    sub_out(shared, ones({1, 3}), shared.detach());  // was refused once out had grown over the alias
  }
  check_left(shared, "sub_out_into_a_detached_alias_grows");
}
