#pragma once
// DSSE: the pre-authentication encoding that signatures cover, the envelope JSON, and the standard
// (padded) base64 that DSSE and Sigstore bundles use.
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/error.hpp"

namespace relforge::signing {

inline constexpr std::string_view k_in_toto_payload_type = "application/vnd.in-toto+json";

// "DSSEv1" SP len(type) SP type SP len(body) SP body, lengths as decimal byte counts.
std::string pae(std::string_view payload_type, std::string_view payload);

std::string base64_encode(std::string_view bytes);
Result<std::string> base64_decode(std::string_view text);  // integrity error on bad input

struct DsseSignature {
  std::string key_id;
  std::string signature;  // raw bytes
};

struct Envelope {
  std::string payload;  // raw bytes (the in-toto statement JSON)
  std::string payload_type{k_in_toto_payload_type};
  std::vector<DsseSignature> signatures;
};

nlohmann::ordered_json envelope_to_json(const Envelope& envelope);
Result<Envelope> envelope_from_json(const nlohmann::json& json);

}  // namespace relforge::signing
