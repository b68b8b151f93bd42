// ember: a small PyTorch-style tensor engine. Include this one header to use it.
#pragma once

#include "allocator.h"
#include "device.h"
#include "dtype.h"
#include "error.h"
#include "grad_mode.h"
#include "inference_mode.h"
#include "ops.h"
#include "tensor.h"
#include "autograd/node.h"
