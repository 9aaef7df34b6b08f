#pragma once
// minitensor's core: a dense, row-major float32 tensor with create, add, matmul and sum.
// Built without exceptions or the C++ runtime library so the extension needs only libc.
#include <cstddef>
#include <cstdint>

namespace minitensor {

enum class Status { ok, shape_mismatch, out_of_memory, bad_shape, cuda_unavailable };

// Where an operation runs. `any`: on the GPU for large tensors when that works, else on the CPU.
enum class Device { any, cpu, cuda };

const char* status_message(Status status);

class Tensor {
public:
  static constexpr int k_max_rank = 4;

  Tensor() = default;
  ~Tensor();
  Tensor(const Tensor&) = delete;
  Tensor& operator=(const Tensor&) = delete;
  Tensor(Tensor&& other) noexcept;
  Tensor& operator=(Tensor&& other) noexcept;

  // A tensor of `shape` filled with `value`.
  static Status create(const std::int64_t* shape, int rank, float value, Tensor& out);

  int rank() const { return m_rank; }
  std::int64_t dim(int i) const { return m_shape[i]; }
  std::int64_t numel() const { return m_numel; }
  float* data() { return m_data; }
  const float* data() const { return m_data; }

private:
  float* m_data = nullptr;
  std::int64_t m_shape[k_max_rank] = {0, 0, 0, 0};
  int m_rank = 0;
  std::int64_t m_numel = 0;
};

// Elementwise a + b (same shape) on `device`. Device::cuda never falls back to the CPU: it returns
// cuda_unavailable and, when `why` is given, sets *why to the CUDA error (a static string).
Status add(const Tensor& a, const Tensor& b, Tensor& out, Device device = Device::any,
           const char** why = nullptr);
// (m x k) @ (k x n) for 2-D tensors.
Status matmul(const Tensor& a, const Tensor& b, Tensor& out);
// The sum of every element, accumulated in double.
double sum(const Tensor& a);

// CUDA backend hooks (cuda_ops.cu in the CUDA build, cpu_backend.cpp otherwise).
bool cuda_compiled();
int cuda_device_count();  // 0 when there is no driver or no GPU
// Elementwise add on the GPU: nullptr when it ran there, else why it could not (a static string).
const char* cuda_add(const float* a, const float* b, float* out, std::int64_t n);

}  // namespace minitensor
