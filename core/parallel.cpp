#include "core/parallel.hpp"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

namespace relforge::core {

Status parallel_for(std::size_t count, const std::function<Status(std::size_t)>& task) {
  const std::size_t threads = std::min<std::size_t>(count, std::max(1u, std::thread::hardware_concurrency()));
  std::atomic<std::size_t> next{0};
  std::atomic<bool> failed{false};
  std::mutex mutex;
  std::optional<std::pair<std::size_t, Error>> first_failure;
  auto work = [&] {
    while (!failed.load(std::memory_order_relaxed)) {
      const std::size_t index = next.fetch_add(1, std::memory_order_relaxed);
      if (index >= count) return;
      Status status = task(index);
      if (status) continue;
      const std::lock_guard lock(mutex);
      if (!first_failure || index < first_failure->first) first_failure.emplace(index, status.error());
      failed = true;
    }
  };
  if (threads <= 1) {
    work();
  } else {
    std::vector<std::thread> pool;
    for (std::size_t i = 1; i < threads; ++i) pool.emplace_back(work);
    work();  // the calling thread is one of the workers
    for (auto& thread : pool) thread.join();
  }
  if (first_failure) return tl::unexpected(std::move(first_failure->second));
  return {};
}

}  // namespace relforge::core
