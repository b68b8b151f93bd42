// The kernel tables. The CPU table points at kernels/, the CUDA table at cuda/ (empty in a build
// without CUDA; an entry left empty says which kernel is missing, and a test walks the list to
// require them all), the checking device's at kernels/ behind its checks.
#include "backend.h"

namespace ember::kernels {

void missing_kernel(const char* name, const char* device_name) {
  throw Error(str_cat("ember: '", name, "' has no ", device_name, " kernel yet"));
}

namespace {

KernelTable cpu_table() {
  KernelTable table("CPU");
  table.binary = cpu::binary;
  table.ternary = cpu::ternary;
  table.compare = cpu::compare;
  table.unary = cpu::unary;
  table.where = cpu::where;
  table.threshold_backward = cpu::threshold_backward;
  table.copy = cpu::copy;
  table.fill = cpu::fill;
  table.reduce_rows = cpu::reduce_rows;
  table.sum_columns = cpu::sum_columns;
  table.scatter_rows = cpu::scatter_rows;
  table.softmax_rows = cpu::softmax_rows;
  table.layer_norm_rows = cpu::layer_norm_rows;
  table.nll_loss_forward = cpu::nll_loss_forward;
  table.nll_loss_backward = cpu::nll_loss_backward;
  table.gemm = cpu::gemm;
  return table;
}

KernelTable cuda_table() {
  KernelTable table("CUDA");
  register_cuda_kernels(table);
  return table;
}

KernelTable checking_table() {
  KernelTable table("checking device");
  register_checking_kernels(table);
  return table;
}

}  // namespace

const KernelTable& on(Device device) {
  if (device.is_cpu()) {  // each table behind its own guard: a CPU op checks one
    static const KernelTable cpu = cpu_table();
    return cpu;
  }
  if (device.is_checked()) {
    static const KernelTable checked = checking_table();
    return checked;
  }
  static const KernelTable cuda = cuda_table();
  return cuda;
}

}  // namespace ember::kernels
