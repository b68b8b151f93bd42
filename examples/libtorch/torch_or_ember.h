// The one switch a libtorch program needs to run on ember: these programs are written for
// libtorch's C++ frontend, and built with EMBER_AS_TORCH they get ember under libtorch's name.
#pragma once
#ifdef EMBER_AS_TORCH
#include "ember.h"
namespace torch = ember;
#else
#include <torch/torch.h>
#endif
