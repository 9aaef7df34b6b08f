#include "signing/file_bytes.hpp"

#include <system_error>

#include "platform/digest.hpp"
#include "platform/file_chunks.hpp"

namespace relforge::signing {
namespace fs = std::filesystem;
namespace {

// Checked before the open for a clear message; FileChunks checks the open file again (a FIFO
// swapped in between is refused there without waiting for a writer).
Result<platform::FileChunks> open_regular(const fs::path& file, std::size_t chunk) {
  std::error_code error;
  const auto status = fs::status(file, error);
  if (!error && fs::exists(status) && !fs::is_regular_file(status)) {
    return fail(ErrorCategory::invalid_input,
                file.string() + " is not a regular file (a folder, FIFO or device); name the file itself");
  }
  return platform::FileChunks::open(file, chunk);
}

}  // namespace

Status check_regular_file(const fs::path& file) {
  auto chunks = open_regular(file, 1);
  if (!chunks) return tl::unexpected(chunks.error());
  return {};
}

Result<std::string> sha256_of_regular_file(const fs::path& file) {
  auto chunks = open_regular(file, std::size_t{1} << 20);
  if (!chunks) return tl::unexpected(chunks.error());
  platform::Sha256 hasher;
  while (true) {
    auto chunk = chunks->next();
    if (!chunk) return tl::unexpected(chunk.error());
    if (chunk->empty()) break;
    hasher.update(*chunk);
  }
  return platform::to_hex(hasher.finish());
}

Result<std::string> read_regular_file(const fs::path& file, std::size_t max_bytes, const std::string& what,
                                      ErrorCategory category, const std::string& advice) {
  auto chunks = open_regular(file, std::size_t{1} << 16);
  if (!chunks) return tl::unexpected(chunks.error());
  std::string out;
  while (true) {
    auto chunk = chunks->next();
    if (!chunk) return tl::unexpected(chunk.error());
    if (chunk->empty()) return out;
    if (chunk->size() > max_bytes - out.size()) {
      return fail(category, what + " " + file.string() + " is over the limit of " +
                                std::to_string(max_bytes) + " bytes; " + advice);
    }
    out.append(*chunk);
  }
}

}  // namespace relforge::signing
