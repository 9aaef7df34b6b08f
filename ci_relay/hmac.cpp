#include "ci_relay/hmac.hpp"

#include "platform/digest.hpp"

namespace relforge::ci_relay {

std::string hmac_sha256_hex(std::string_view key, std::string_view message) {
  return platform::to_hex(platform::hmac_sha256(key, message));
}

std::string github_signature(std::string_view secret, std::string_view body) {
  return "sha256=" + hmac_sha256_hex(secret, body);
}

bool signature_matches(std::string_view secret, std::string_view body, std::string_view header) {
  return platform::constant_time_equal(github_signature(secret, body), header);
}

}  // namespace relforge::ci_relay
