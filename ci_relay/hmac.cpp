#include "ci_relay/hmac.hpp"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

namespace relforge::ci_relay {

std::string hmac_sha256_hex(std::string_view key, std::string_view message) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
       reinterpret_cast<const unsigned char*>(message.data()), message.size(), digest, &length);
  static const char* k_hex = "0123456789abcdef";
  std::string out;
  out.reserve(length * 2);
  for (unsigned int i = 0; i < length; ++i) {
    out += k_hex[digest[i] >> 4];
    out += k_hex[digest[i] & 0xF];
  }
  return out;
}

std::string github_signature(std::string_view secret, std::string_view body) {
  return "sha256=" + hmac_sha256_hex(secret, body);
}

bool signature_matches(std::string_view secret, std::string_view body, std::string_view header) {
  const std::string expected = github_signature(secret, body);
  // Length is public (always 71 for a well-formed header); the bytes are compared in constant time.
  if (header.size() != expected.size()) return false;
  return CRYPTO_memcmp(expected.data(), header.data(), expected.size()) == 0;
}

}  // namespace relforge::ci_relay
