#include "platform/wal_sync.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "platform/file_errors.hpp"

namespace relforge::platform {

Result<std::unique_ptr<WalSync>> WalSync::open(Database& db) {
  const auto file = db.file();
  if (!file) return std::unique_ptr<WalSync>();
  std::string path = file->string() + "-wal";
  // fsync applies to the file, whichever descriptor names it: a read-only one of our own will do.
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) return detail::open_failed(path, errno);
  return std::unique_ptr<WalSync>(new WalSync(fd.release(), std::move(path)));
}

Status WalSync::sync() const {
  if (::fdatasync(m_fd.get()) == 0) return {};
  return fail(ErrorCategory::io, "cannot make the log " + m_path +
                                     " durable (fdatasync): " + std::strerror(errno) +
                                     "; nothing committed since the last sync is acknowledged");
}

}  // namespace relforge::platform
