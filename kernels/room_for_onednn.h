// Room for oneDNN: a check made before oneDNN builds a primitive. Why: building one generates its
// kernels' machine code, and oneDNN 2.6 does not survive running out of address space while doing
// it: under `ulimit -v` with less than about 512 KiB left, mm segfaulted inside
// dnnl_primitive_create instead of failing. So before each primitive is built (once per shape: the
// built ones are kept, matmul.cpp), 8 MiB, room for several kernels and their buffers, are asked
// of the OS and given back; when they cannot be had even after the block cache gave back its
// blocks, the product raises ember's out-of-memory error, as any allocation would.
#pragma once
#include <cstdint>

#include "core/cpu_block_cache.h"

namespace ember::kernels::cpu {

inline constexpr int64_t kRoomForOnednn = int64_t{8} << 20;

inline void check_room_for_onednn() { cpu_block_cache::check_available(kRoomForOnednn); }

}  // namespace ember::kernels::cpu
