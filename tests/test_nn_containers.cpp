// ember's containers from C++ (libtorch's names): Sequential's and ModuleList's insert and pop,
// which renumber what follows; ModuleDict, ParameterList and ParameterDict, whose entries are their
// registered children or parameters, so that a module holding them names its parameters as
// PyTorch's does (tests/fixtures/nn_modules.json's "containers", tools/fixtures/nn_modules.py); and
// registering a name again, which replaces its tensor or module where it was.
#include <catch2/catch.hpp>

#include "ember.h"
#include "fixture.h"

using namespace ember;

namespace {

// The names of a module's children, as the fixture shows a Python list of strings: "['0', '1']".
template <typename Pairs>
std::string python_list_of_names(const Pairs& pairs) {
  std::string out = "[";
  for (const auto& [name, value] : pairs) out += (out.size() > 1 ? ", '" : "'") + name + "'";
  return out + "]";
}

std::string shown(const std::string& program, size_t i) {
  return fixture::load("nn_modules.json")["containers"][program]["shown"].at(i);
}

// tools/fixtures/nn_modules.py's ContainerNet, in C++.
struct ContainerNetImpl : nn::Module {
  ContainerNetImpl() {
    blocks->insert("enc", nn::Linear(2, 2));
    blocks->insert("act", nn::ReLU());
    register_module("blocks", blocks);
    register_module("scales", scales);
    register_module("gains", gains);
    register_buffer("steps", zeros({1}));
    register_parameter("scale", ones({1}));
  }
  nn::ModuleDict blocks;
  nn::ParameterList scales{std::vector<Tensor>{ones({2}), ones({1})}};
  nn::ParameterDict gains{nn::ParameterDictImpl::Items{{"out", ones({1})}}};
};

}  // namespace

TEST_CASE("a module holding a ModuleDict, a ParameterList and a ParameterDict names their parameters as PyTorch",
          "[nn]") {
  ContainerNetImpl net;
  CHECK(python_list_of_names(net.named_parameters()) == shown("module_dict_in_a_net", 1));
  CHECK(net.parameters().size() == 6);
}

TEST_CASE("Sequential's insert and pop renumber the modules after them, as torch's", "[nn]") {
  nn::Sequential s{nn::Linear(2, 3), nn::ReLU()};
  s->insert(1, nn::Dropout(0.25));
  s->insert(3, nn::ReLU());
  REQUIRE(s->size() == 4);
  CHECK(python_list_of_names(s->named_children()) == "['0', '1', '2', '3']");
  CHECK(dynamic_cast<nn::DropoutImpl*>(s->ptr(1).get()) != nullptr);
  CHECK(dynamic_cast<nn::ReLUImpl*>(s[2].get()) != nullptr);
  const std::shared_ptr<nn::Module> popped = s->pop(1);
  CHECK(dynamic_cast<nn::DropoutImpl*>(popped.get()) != nullptr);
  CHECK(python_list_of_names(s->named_children()) == "['0', '1', '2']");
  CHECK(s->parameters().size() == 2);
  CHECK_THROWS_WITH(s->insert(4, nn::ReLU()), "Index out of range");  // libtorch's ModuleList::insert
  CHECK_FALSE(s->is_empty());
  CHECK(nn::ModuleList()->is_empty());
  CHECK_THROWS_AS(s->pop(3), IndexError);
  CHECK_THROWS_WITH(s->pop(3), "index 3 is out of range");
}

TEST_CASE("ModuleDict holds modules by key, replacing a key's module where it was", "[nn]") {
  nn::ModuleDict d{nn::ModuleDictImpl::Items{{"b", nn::Linear(2, 2).ptr()}, {"a", nn::ReLU().ptr()}}};
  d->update({{"a", nn::Dropout(0.5).ptr()}, {"c", nn::ReLU().ptr()}});
  CHECK(d->keys() == std::vector<std::string>{"b", "a", "c"});
  CHECK(dynamic_cast<nn::DropoutImpl*>((*d)["a"].get()) != nullptr);
  CHECK(d->contains("c"));
  CHECK(d->parameters().size() == 2);
  CHECK(dynamic_cast<nn::LinearImpl*>(d->pop("b").get()) != nullptr);
  CHECK(d->parameters().empty());  // popped is unregistered, as torch's del d['b']
  CHECK_THROWS_WITH((*d)["b"], "Key 'b' is not defined");
  d->clear();
  CHECK(d->empty());
  CHECK_THROWS_WITH(d->forward(ones({1})), "Module [ModuleDict] is missing the required \"forward\" function");
}

TEST_CASE("ParameterList holds parameters by position and ParameterDict by key, each made to require grad", "[nn]") {
  nn::ParameterList list;
  list->append(ones({2}));
  list->extend({ones({1}), ones({3})});
  list->set(1, zeros({4}));
  CHECK(list->size() == 3);
  CHECK(list[1].sizes() == Dims{4});
  CHECK(list[1].requires_grad());
  CHECK(python_list_of_names(list->named_parameters()) == "['0', '1', '2']");
  CHECK_THROWS_AS(list->at(3), IndexError);
  CHECK_THROWS_WITH(list->at(3), "index 3 is out of range");
  CHECK_THROWS_WITH(list->forward(ones({1})), "ParameterList should not be called.");

  nn::ParameterDict dict;
  dict->insert("b", ones({2}));
  dict->insert("a", ones({1}));
  dict->insert("b", zeros({3}));  // replaced where it was
  CHECK(dict->keys() == std::vector<std::string>{"b", "a"});
  CHECK(dict["b"].sizes() == Dims{3});
  CHECK(dict->pop("b").sizes() == Dims{3});
  CHECK_FALSE(dict->contains("b"));
  CHECK_THROWS_WITH(dict->get("b"), "Parameter 'b' is not defined");
  dict->clear();
  CHECK(dict->empty());
  CHECK_THROWS_WITH(dict->forward(ones({1})), "ParameterDict should not be called.");
}

TEST_CASE("registering a parameter's name again replaces it where it was, and bad names get libtorch's texts", "[nn]") {
  nn::Linear l(2, 2);
  const Tensor w = ones({2, 2});
  l->register_parameter("weight", w);
  CHECK(python_list_of_names(l->named_parameters()) == shown("reregistered_parameter", 0));
  CHECK(l->weight().is_same(w));
  l->register_parameter("bias", Tensor());  // torch's l.bias = None
  CHECK(python_list_of_names(l->named_parameters()) == shown("parameter_set_to_none", 1));
  CHECK(l->forward(ones({1, 2})).tolist_str() == "[[2.0, 2.0]]");
  CHECK_THROWS_WITH(l->register_parameter("", w), "Parameter name must not be empty");
  CHECK_THROWS_WITH(l->register_parameter("a.b", w), "Parameter name must not contain a dot (got 'a.b')");
}

TEST_CASE("replace_module and unregister_module change a module's children as libtorch's", "[nn]") {
  nn::Sequential s{nn::Linear(2, 3), nn::ReLU()};
  s->replace_module("1", nn::Dropout(0.5));
  CHECK(dynamic_cast<nn::DropoutImpl*>(s[1].get()) != nullptr);
  s->unregister_module("0");
  CHECK(s->parameters().empty());
  CHECK_THROWS_WITH(s->unregister_module("0"), "No Module with name `0` is registered");
  CHECK_THROWS_WITH(s->replace_module("7", nn::ReLU()), "No Module with name `7` is registered");
}
