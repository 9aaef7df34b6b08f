#pragma once
// SHA-256 through OpenSSL, streaming (bounded memory for any file size), and the
// base64url-without-padding encoding that wheel RECORD files and DSSE use.
#include <array>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

#include "core/error.hpp"

namespace relforge::platform {

using Sha256Digest = std::array<std::uint8_t, 32>;

class Sha256 {
public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;

  void update(std::string_view bytes);
  Sha256Digest finish();  // the hasher is spent afterwards

private:
  struct Impl;
  std::unique_ptr<Impl> m_impl;
};

// SHA-384 or SHA-512 through OpenSSL's EVP, streaming; finish() gives the raw digest (48 or 64
// bytes). For RECORD lines that use the stronger hashes PEP 427 allows.
enum class WideAlgorithm { sha384, sha512 };

class WideDigest {
public:
  explicit WideDigest(WideAlgorithm algorithm);
  ~WideDigest();
  WideDigest(const WideDigest&) = delete;
  WideDigest& operator=(const WideDigest&) = delete;

  void update(std::string_view bytes);
  std::string finish();  // the hasher is spent afterwards

private:
  struct Impl;
  std::unique_ptr<Impl> m_impl;
};

Sha256Digest sha256(std::string_view bytes);
Result<Sha256Digest> sha256_file(const std::filesystem::path& path);

std::string to_hex(const Sha256Digest& digest);

// HMAC-SHA256 of `message` under `key` (webhook signatures, callback tokens).
Sha256Digest hmac_sha256(std::string_view key, std::string_view message);

// Compares without an early exit, so the time taken does not reveal where two secrets differ;
// unequal lengths compare unequal (a length is not secret).
bool constant_time_equal(std::string_view a, std::string_view b);
std::string base64url_nopad(std::string_view bytes);
std::string base64url_nopad(const Sha256Digest& digest);

}  // namespace relforge::platform
