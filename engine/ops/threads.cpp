// Intra-op threads. oneDNN (built on OpenMP in Debian) and Eigen (compiled with OpenMP here) both
// follow OpenMP's thread count, so one setting drives both, like torch.set_num_threads.
#include "kernels/eigen.h"

#include <omp.h>

#include "api/ops.h"

namespace ember {

void set_num_threads(int n) {
  EMBER_CHECK(n > 0, "set_num_threads expects a positive integer");
  omp_set_num_threads(n);
  Eigen::setNbThreads(n);
}

int get_num_threads() { return omp_get_max_threads(); }

}  // namespace ember
