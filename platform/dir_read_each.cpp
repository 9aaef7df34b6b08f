// Directory::read_each: the channel index reads one ~600-byte sidecar per stored wheel, and three
// system calls per file (openat, read, close) were most of a rebuild's time on virtual machines,
// where entering the kernel is dear. An io_uring chain per file (open into a ring-owned slot, read,
// close) does the same work with one io_uring_enter per batch.
#include <liburing.h>

#include <atomic>
#include <cerrno>

#include "platform/file_errors.hpp"
#include "platform/fs.hpp"

namespace relforge::platform {
namespace {

constexpr unsigned k_ring_files = 64;      // files per io_uring_enter, and direct-descriptor slots
constexpr std::size_t k_ring_slot = 4096;  // bytes read per file; a file that fills it is read again
constexpr unsigned k_ops_per_file = 3;     // open, read, close

// Set once a ring was refused, so that other threads do not ask the kernel again.
std::atomic<bool> g_ring_refused{false};

class ReadRing {
public:
  // This thread's ring, made on first use; nullptr where the kernel refuses io_uring.
  static ReadRing* for_this_thread() {
    if (g_ring_refused.load(std::memory_order_relaxed)) return nullptr;
    thread_local ReadRing ring;
    return ring.m_ready ? &ring : nullptr;
  }
  ReadRing(const ReadRing&) = delete;
  ReadRing& operator=(const ReadRing&) = delete;
  ~ReadRing() {
    if (m_ready) io_uring_queue_exit(&m_ring);
  }

  // Reads names[first, first + count) relative to dir_fd: opened[k] and got[k] are the open's and
  // the read's results (-errno on failure), slot(k) the bytes read. False when the ring failed: no
  // thread uses a ring again (what failed here would fail there).
  bool read_batch(int dir_fd, const std::vector<std::string>& names, std::size_t first, unsigned count,
                  int* opened, int* got) {
    if (submit_and_reap(dir_fd, names, first, count, opened, got)) return true;
    g_ring_refused = true;
    return false;
  }

  const char* slot(unsigned k) const { return m_buffer.data() + k * k_ring_slot; }

private:
  bool submit_and_reap(int dir_fd, const std::vector<std::string>& names, std::size_t first, unsigned count,
                       int* opened, int* got) {
    for (unsigned k = 0; k < count; ++k) {
      // Hard links: the read and the close run whatever the step before returned (a short read
      // counts as a failure for an ordinary link), so every slot is empty again at the end.
      io_uring_sqe* open = io_uring_get_sqe(&m_ring);
      io_uring_sqe* read = io_uring_get_sqe(&m_ring);
      io_uring_sqe* close = io_uring_get_sqe(&m_ring);
      if (open == nullptr || read == nullptr || close == nullptr) return false;
      // No O_CLOEXEC: a ring-owned descriptor is in no descriptor table, and the kernel refuses it.
      io_uring_prep_openat_direct(open, dir_fd, names[first + k].c_str(), O_RDONLY, 0, k);
      open->flags |= IOSQE_IO_HARDLINK;
      open->user_data = k * k_ops_per_file;
      io_uring_prep_read(read, static_cast<int>(k), writable_slot(k), k_ring_slot, 0);
      read->flags |= IOSQE_FIXED_FILE | IOSQE_IO_HARDLINK;
      read->user_data = k * k_ops_per_file + 1;
      io_uring_prep_close_direct(close, k);
      close->user_data = k * k_ops_per_file + 2;
    }
    // Fewer taken than queued: the kernel refused an operation (an older kernel's prep), and
    // waiting for the rest would never end.
    if (io_uring_submit(&m_ring) != static_cast<int>(count * k_ops_per_file)) return false;
    for (unsigned seen = 0; seen < count * k_ops_per_file;) {
      io_uring_cqe* cqe = nullptr;
      const int waited = io_uring_wait_cqe(&m_ring, &cqe);
      if (waited == -EINTR) continue;
      if (waited < 0) return false;
      const auto k = static_cast<unsigned>(cqe->user_data / k_ops_per_file);
      const auto op = cqe->user_data % k_ops_per_file;
      if (op == 0) opened[k] = cqe->res;
      if (op == 1) got[k] = cqe->res;
      io_uring_cqe_seen(&m_ring, cqe);
      ++seen;
    }
    return true;
  }

  ReadRing() {
    if (io_uring_queue_init(k_ring_files * k_ops_per_file, &m_ring, 0) < 0) {
      g_ring_refused = true;
      return;
    }
    if (io_uring_register_files_sparse(&m_ring, k_ring_files) < 0) {
      io_uring_queue_exit(&m_ring);
      g_ring_refused = true;
      return;
    }
    m_buffer.resize(k_ring_files * k_ring_slot);
    m_ready = true;
  }
  char* writable_slot(unsigned k) { return m_buffer.data() + k * k_ring_slot; }

  io_uring m_ring{};
  std::vector<char> m_buffer;
  bool m_ready = false;
};

}  // namespace

Status Directory::read_each(const std::vector<std::string>& names, const ReadVisitor& visit,
                            Batching batching) const {
  ReadRing* ring = batching == Batching::ring ? ReadRing::for_this_thread() : nullptr;
  std::size_t i = 0;
  while (ring != nullptr && i < names.size()) {
    const auto count = static_cast<unsigned>(std::min<std::size_t>(k_ring_files, names.size() - i));
    int opened[k_ring_files] = {};
    int got[k_ring_files] = {};
    if (!ring->read_batch(m_fd, names, i, count, opened, got)) break;  // the rest one by one
    for (unsigned k = 0; k < count; ++k, ++i) {
      Result<std::string> content;
      if (opened[k] < 0) {
        content = detail::open_failed(m_path / names[i], -opened[k]);
      } else if (got[k] < 0) {
        content = detail::read_failed(m_path / names[i], -got[k]);
      } else if (static_cast<std::size_t>(got[k]) == k_ring_slot) {
        content = read(names[i]);  // larger than a slot, or exactly its size: read whole
      } else {
        content = std::string(ring->slot(k), static_cast<std::size_t>(got[k]));
      }
      if (auto status = visit(i, std::move(content)); !status) return status;
    }
  }
  for (; i < names.size(); ++i) {
    if (auto status = visit(i, read(names[i])); !status) return status;
  }
  return {};
}

}  // namespace relforge::platform
