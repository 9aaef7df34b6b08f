#pragma once
// GitHub's webhook signature: `sha256=<hex HMAC-SHA256 of the raw body>`, checked in constant time.
#include <string>
#include <string_view>

namespace relforge::ci_relay {

std::string hmac_sha256_hex(std::string_view key, std::string_view message);

// "sha256=" + hex HMAC of `body`, the X-Hub-Signature-256 format.
std::string github_signature(std::string_view secret, std::string_view body);

// Compares `header` with the expected signature without early exit.
bool signature_matches(std::string_view secret, std::string_view body, std::string_view header);

}  // namespace relforge::ci_relay
