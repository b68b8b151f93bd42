// The reference values are only as good as what made them: every file under tests/fixtures says
// which PyTorch, which BLAS and which script wrote it (tools/fixtures/provenance.py), and those are
// the ones the README's regeneration recipe pins.
#include <catch2/catch.hpp>

#include <filesystem>
#include <set>

#include "fixture.h"

TEST_CASE("every fixture file records that PyTorch 1.13 on netlib's BLAS made it, and with which script",
          "[fixtures]") {
  const std::set<std::string> expected_files = {
      "autocast.json",    "autograd_debug.json", "composite_views.json", "errors.json",    "fidelity.json",
      "mlp.json",         "nn_modules.json",     "nn_random.json",       "ops.json",       "optim.json",
      "printing.json",    "profiler.json",       "random.json",          "replay.json",    "size_sweep.json",
      "saved_hooks.json", "graph_dot.json",      "exact_sums.json",      "exact_pow.json", "integer_dtypes.json",
      "views_more.json",  "losses.json"};
  std::set<std::string> found;
  for (const auto& entry : std::filesystem::directory_iterator(EMBER_FIXTURE_DIR))
    if (entry.path().extension() == ".json") found.insert(entry.path().filename().string());
  CHECK(found == expected_files);
  for (const std::string& name : found) {
    INFO("fixture " << name);
    const fixture::json& file = fixture::load(name);
    REQUIRE(file.contains("provenance"));
    const fixture::json& made_by = file["provenance"];
    CHECK(made_by["torch"].get<std::string>().rfind("1.13", 0) == 0);
    CHECK(made_by["blas"].get<std::string>().rfind("netlib /usr/lib/", 0) == 0);
    const std::string script = made_by["script"];
    CHECK(script.rfind("tools/fixtures/", 0) == 0);
    CHECK(std::filesystem::exists(std::filesystem::path(EMBER_FIXTURE_DIR) / "../.." / script));
  }
}
