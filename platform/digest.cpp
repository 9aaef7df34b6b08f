#include "platform/digest.hpp"

// SHA256_Init/Update/Final are deprecated in OpenSSL 3 in favour of EVP, which routes through
// providers. They are kept (and run the same assembly, SHA-NI included), and they need no library
// initialisation: EVP's first use loads the configuration and the default provider, ~3 ms of a
// publish or a `wheel hash` that hashes a few small files (docs/performance.md).
#define OPENSSL_SUPPRESS_DEPRECATED
#include <fcntl.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/sha.h>
#include <unistd.h>

#include <cassert>
#include <cerrno>
#include <cstring>
#include <memory>
#include <new>
#include <vector>

#include "platform/file_errors.hpp"

namespace relforge::platform {

struct Sha256::Impl {
  SHA256_CTX ctx{};
};

Sha256::Sha256() : m_impl(std::make_unique<Impl>()) {
  SHA256_Init(&m_impl->ctx);
}

Sha256::~Sha256() = default;

void Sha256::update(std::string_view bytes) {
  SHA256_Update(&m_impl->ctx, bytes.data(), bytes.size());
}

Sha256Digest Sha256::finish() {
  Sha256Digest digest{};
  SHA256_Final(digest.data(), &m_impl->ctx);
  return digest;
}

struct WideDigest::Impl {
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx{EVP_MD_CTX_new(), &EVP_MD_CTX_free};
};

WideDigest::WideDigest(WideAlgorithm algorithm) : m_impl(std::make_unique<Impl>()) {
  // Only allocation can fail here, and then nothing else would work either.
  if (!m_impl->ctx ||
      EVP_DigestInit_ex(m_impl->ctx.get(), algorithm == WideAlgorithm::sha384 ? EVP_sha384() : EVP_sha512(),
                        nullptr) != 1)
    throw std::bad_alloc();
}

WideDigest::~WideDigest() = default;

void WideDigest::update(std::string_view bytes) {
  EVP_DigestUpdate(m_impl->ctx.get(), bytes.data(), bytes.size());
}

std::string WideDigest::finish() {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  EVP_DigestFinal_ex(m_impl->ctx.get(), digest, &length);
  return std::string(reinterpret_cast<const char*>(digest), length);
}

Sha256Digest sha256(std::string_view bytes) {
  Sha256 hasher;
  hasher.update(bytes);
  return hasher.finish();
}

Result<Sha256Digest> sha256_file(const std::filesystem::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return detail::open_failed(path, errno);
  Sha256 hasher;
  // Not zero-filled: clearing 1 MiB cost more than hashing a small wheel; only the pages a read
  // fills are ever touched.
  constexpr std::size_t k_buffer = std::size_t{1} << 20;
  const auto buffer = std::make_unique_for_overwrite<char[]>(k_buffer);
  while (true) {
    const ssize_t n = ::read(fd, buffer.get(), k_buffer);
    if (n < 0) {
      if (errno == EINTR) continue;
      const std::string message = "cannot read " + path.string() + ": " + std::strerror(errno);
      ::close(fd);
      return fail(ErrorCategory::io, message);
    }
    if (n == 0) break;
    hasher.update(std::string_view(buffer.get(), static_cast<std::size_t>(n)));
  }
  ::close(fd);
  return hasher.finish();
}

std::string to_hex(const Sha256Digest& digest) {
  static constexpr char k_digits[] = "0123456789abcdef";
  std::string out;
  out.reserve(digest.size() * 2);
  for (const std::uint8_t byte : digest) {
    out += k_digits[byte >> 4];
    out += k_digits[byte & 0x0f];
  }
  return out;
}

Sha256Digest hmac_sha256(std::string_view key, std::string_view message) {
  Sha256Digest digest{};
  unsigned int length = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
       reinterpret_cast<const unsigned char*>(message.data()), message.size(), digest.data(), &length);
  assert(length == digest.size());
  return digest;
}

bool constant_time_equal(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  return CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

std::string base64url_nopad(std::string_view bytes) {
  // EVP_EncodeBlock writes standard base64 with padding; translate to the URL-safe alphabet.
  std::string out(4 * ((bytes.size() + 2) / 3) + 1, '\0');
  const int length =
      EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                      reinterpret_cast<const unsigned char*>(bytes.data()), static_cast<int>(bytes.size()));
  out.resize(static_cast<std::size_t>(length));
  while (!out.empty() && out.back() == '=') out.pop_back();
  for (char& c : out) {
    if (c == '+')
      c = '-';
    else if (c == '/')
      c = '_';
  }
  return out;
}

std::string base64url_nopad(const Sha256Digest& digest) {
  return base64url_nopad(std::string_view(reinterpret_cast<const char*>(digest.data()), digest.size()));
}

}  // namespace relforge::platform
