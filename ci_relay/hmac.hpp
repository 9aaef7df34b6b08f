#pragma once
// HMAC-SHA256 (OpenSSL) and GitHub's `sha256=<hex>` signature check in constant time.
// Candidate to move to platform/digest once platform grows an HMAC.
#include <string>
#include <string_view>

namespace relforge::ci_relay {

std::string hmac_sha256_hex(std::string_view key, std::string_view message);

// "sha256=" + hex HMAC of `body`, the X-Hub-Signature-256 format.
std::string github_signature(std::string_view secret, std::string_view body);

// Compares `header` with the expected signature without early exit.
bool signature_matches(std::string_view secret, std::string_view body, std::string_view header);

}  // namespace relforge::ci_relay
