// The CUDA build: kernels compiled by nvcc for the cell's arch list; cudart is linked statically,
// so without a driver or GPU every call fails softly and the CPU path is used.
#include <cuda_runtime.h>

#include "tensor.hpp"

namespace minitensor {

namespace {
__global__ void add_kernel(const float* a, const float* b, float* out, long long n) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a[i] + b[i];
}
}  // namespace

bool cuda_compiled() {
  return true;
}

int cuda_device_count() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();  // clear the sticky "no driver" error
    return 0;
  }
  return count;
}

const char* cuda_add(const float* a, const float* b, float* out, std::int64_t n) {
  if (cuda_device_count() == 0)
    return "no CUDA device is visible (no driver, or CUDA_VISIBLE_DEVICES hides it)";
  const size_t bytes = sizeof(float) * static_cast<size_t>(n);
  float *da = nullptr, *db = nullptr, *dout = nullptr;
  cudaError_t error = cudaSuccess;
  // The first failing call's error is the one reported; the later calls are skipped.
  auto ok = [&error](cudaError_t result) {
    if (error == cudaSuccess) error = result;
    return error == cudaSuccess;
  };
  if (ok(cudaMalloc(&da, bytes)) && ok(cudaMalloc(&db, bytes)) && ok(cudaMalloc(&dout, bytes)) &&
      ok(cudaMemcpy(da, a, bytes, cudaMemcpyHostToDevice)) &&
      ok(cudaMemcpy(db, b, bytes, cudaMemcpyHostToDevice))) {
    const int threads = 256;
    const long long blocks = (n + threads - 1) / threads;
    add_kernel<<<static_cast<unsigned>(blocks), threads>>>(da, db, dout, n);
    if (ok(cudaGetLastError())) ok(cudaMemcpy(out, dout, bytes, cudaMemcpyDeviceToHost));
  }
  cudaFree(da);
  cudaFree(db);
  cudaFree(dout);
  if (error == cudaSuccess) return nullptr;
  cudaGetLastError();  // a non-sticky error must not fail the next call
  return cudaGetErrorString(error);
}

}  // namespace minitensor
