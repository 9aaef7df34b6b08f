#include "tensor.hpp"

#include <cstdlib>
#include <cstring>

namespace minitensor {

const char* status_message(Status status) {
  switch (status) {
    case Status::ok:
      return "ok";
    case Status::shape_mismatch:
      return "shapes do not match";
    case Status::out_of_memory:
      return "out of memory";
    case Status::bad_shape:
      return "bad shape (rank 1 to 4, non-negative dimensions)";
    case Status::cuda_unavailable:
      return "the operation could not run on the GPU";
  }
  return "unknown error";
}

Tensor::~Tensor() {
  std::free(m_data);
}

Tensor::Tensor(Tensor&& other) noexcept {
  *this = static_cast<Tensor&&>(other);
}

Tensor& Tensor::operator=(Tensor&& other) noexcept {
  if (this == &other) return *this;
  std::free(m_data);
  m_data = other.m_data;
  std::memcpy(m_shape, other.m_shape, sizeof m_shape);
  m_rank = other.m_rank;
  m_numel = other.m_numel;
  other.m_data = nullptr;
  other.m_rank = 0;
  other.m_numel = 0;
  return *this;
}

Status Tensor::create(const std::int64_t* shape, int rank, float value, Tensor& out) {
  if (rank < 1 || rank > k_max_rank) return Status::bad_shape;
  std::int64_t numel = 1;
  for (int i = 0; i < rank; ++i) {
    if (shape[i] < 0) return Status::bad_shape;
    numel *= shape[i];
  }
  Tensor made;
  // malloc(0) may return null; always ask for at least one element.
  made.m_data =
      static_cast<float*>(std::malloc(sizeof(float) * static_cast<std::size_t>(numel > 0 ? numel : 1)));
  if (made.m_data == nullptr) return Status::out_of_memory;
  for (std::int64_t i = 0; i < numel; ++i) made.m_data[i] = value;
  for (int i = 0; i < rank; ++i) made.m_shape[i] = shape[i];
  made.m_rank = rank;
  made.m_numel = numel;
  out = static_cast<Tensor&&>(made);
  return Status::ok;
}

static bool same_shape(const Tensor& a, const Tensor& b) {
  if (a.rank() != b.rank()) return false;
  for (int i = 0; i < a.rank(); ++i)
    if (a.dim(i) != b.dim(i)) return false;
  return true;
}

Status add(const Tensor& a, const Tensor& b, Tensor& out, Device device, const char** why) {
  if (!same_shape(a, b)) return Status::shape_mismatch;
  std::int64_t shape[Tensor::k_max_rank];
  for (int i = 0; i < a.rank(); ++i) shape[i] = a.dim(i);
  Tensor result;
  if (Status s = Tensor::create(shape, a.rank(), 0.0f, result); s != Status::ok) return s;
  // By default large tensors go to the GPU when one is there; the CPU loop is the reference.
  const bool try_gpu = device == Device::cuda || (device == Device::any && a.numel() >= (1 << 16));
  const char* gpu_error = try_gpu ? cuda_add(a.data(), b.data(), result.data(), a.numel()) : "";
  if (gpu_error != nullptr) {
    if (device == Device::cuda) {
      if (why != nullptr) *why = gpu_error;
      return Status::cuda_unavailable;
    }
    for (std::int64_t i = 0; i < a.numel(); ++i) result.data()[i] = a.data()[i] + b.data()[i];
  }
  out = static_cast<Tensor&&>(result);
  return Status::ok;
}

Status matmul(const Tensor& a, const Tensor& b, Tensor& out) {
  if (a.rank() != 2 || b.rank() != 2 || a.dim(1) != b.dim(0)) return Status::shape_mismatch;
  const std::int64_t m = a.dim(0), k = a.dim(1), n = b.dim(1);
  const std::int64_t shape[2] = {m, n};
  Tensor result;
  if (Status s = Tensor::create(shape, 2, 0.0f, result); s != Status::ok) return s;
  // i-k-j order walks b and the result row by row.
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t p = 0; p < k; ++p) {
      const float scale = a.data()[i * k + p];
      for (std::int64_t j = 0; j < n; ++j) result.data()[i * n + j] += scale * b.data()[p * n + j];
    }
  out = static_cast<Tensor&&>(result);
  return Status::ok;
}

double sum(const Tensor& a) {
  double total = 0.0;
  for (std::int64_t i = 0; i < a.numel(); ++i) total += a.data()[i];
  return total;
}

}  // namespace minitensor
