// The CPU-only build: no CUDA, so every GPU hook reports "not here".
#include "tensor.hpp"

namespace minitensor {

bool cuda_compiled() {
  return false;
}
int cuda_device_count() {
  return 0;
}
const char* cuda_add(const float*, const float*, float*, std::int64_t) {
  return "this minitensor build has no CUDA kernels: install a +cu wheel";
}

}  // namespace minitensor
