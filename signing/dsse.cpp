#include "signing/dsse.hpp"

#include <array>

#include "signing/strict_json.hpp"

namespace relforge::signing {
namespace {

constexpr std::string_view k_alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

int decode_char(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+' || c == '-') return 62;  // '-' and '_': base64url spellings decode the same
  if (c == '/' || c == '_') return 63;
  return -1;
}

}  // namespace

std::string pae(std::string_view payload_type, std::string_view payload) {
  std::string out = "DSSEv1 ";
  out += std::to_string(payload_type.size());
  out += ' ';
  out += payload_type;
  out += ' ';
  out += std::to_string(payload.size());
  out += ' ';
  out += payload;
  return out;
}

std::string base64_encode(std::string_view bytes) {
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  std::size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    const unsigned value = (static_cast<unsigned char>(bytes[i]) << 16U) |
                           (static_cast<unsigned char>(bytes[i + 1]) << 8U) |
                           static_cast<unsigned char>(bytes[i + 2]);
    out += k_alphabet[(value >> 18U) & 63U];
    out += k_alphabet[(value >> 12U) & 63U];
    out += k_alphabet[(value >> 6U) & 63U];
    out += k_alphabet[value & 63U];
  }
  const std::size_t rest = bytes.size() - i;
  if (rest > 0) {
    unsigned value = static_cast<unsigned char>(bytes[i]) << 16U;
    if (rest == 2) value |= static_cast<unsigned char>(bytes[i + 1]) << 8U;
    out += k_alphabet[(value >> 18U) & 63U];
    out += k_alphabet[(value >> 12U) & 63U];
    out += rest == 2 ? k_alphabet[(value >> 6U) & 63U] : '=';
    out += '=';
  }
  return out;
}

Result<std::string> base64_decode(std::string_view text) {
  std::string out;
  out.reserve(text.size() / 4 * 3);
  unsigned buffer = 0;
  int bits = 0;
  std::size_t symbols = 0, padding = 0;
  bool standard = false, url_safe = false;
  for (const char c : text) {
    if (c == '\n' || c == '\r') continue;
    if (c == '=') {
      ++padding;
      continue;
    }
    const int value = decode_char(c);
    if (value < 0) return fail(ErrorCategory::integrity, "invalid base64: a character outside the alphabet");
    if (padding > 0) return fail(ErrorCategory::integrity, "invalid base64: text after the '=' padding");
    standard = standard || c == '+' || c == '/';
    url_safe = url_safe || c == '-' || c == '_';
    ++symbols;
    buffer = (buffer << 6U) | static_cast<unsigned>(value);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((buffer >> static_cast<unsigned>(bits)) & 0xFFU);
    }
  }
  if (standard && url_safe) {
    return fail(ErrorCategory::integrity,
                "invalid base64: mixes the standard ('+', '/') and URL-safe ('-', '_') alphabets");
  }
  if (symbols % 4 == 1)
    return fail(ErrorCategory::integrity, "invalid base64: a length no encoding produces");
  if (padding > 2 || (padding > 0 && (symbols + padding) % 4 != 0)) {
    return fail(ErrorCategory::integrity, "invalid base64 padding: " + std::to_string(padding) +
                                              " '=' after " + std::to_string(symbols) + " characters");
  }
  return out;
}

nlohmann::ordered_json envelope_to_json(const Envelope& envelope) {
  nlohmann::ordered_json signatures = nlohmann::ordered_json::array();
  for (const auto& signature : envelope.signatures) {
    signatures.push_back({{"keyid", signature.key_id}, {"sig", base64_encode(signature.signature)}});
  }
  return {{"payload", base64_encode(envelope.payload)},
          {"payloadType", envelope.payload_type},
          {"signatures", signatures}};
}

Result<Envelope> envelope_from_json(const nlohmann::json& json) {
  if (!json.is_object() || !json.contains("payload") || !json["payload"].is_string() ||
      !json.contains("payloadType") || !json["payloadType"].is_string() || !json.contains("signatures") ||
      !json["signatures"].is_array()) {
    return fail(ErrorCategory::integrity,
                "the DSSE envelope needs string 'payload', string 'payloadType' and array 'signatures'");
  }
  if (const auto extra = first_key_outside(json, {"payload", "payloadType", "signatures"}); !extra.empty()) {
    return fail(ErrorCategory::integrity, "the DSSE envelope has the field '" + extra +
                                              "', which is not DSSE's (payload, payloadType, signatures)");
  }
  Envelope envelope;
  auto payload = base64_decode(json["payload"].get<std::string>());
  if (!payload)
    return fail(ErrorCategory::integrity,
                "the DSSE payload is not valid base64: " + payload.error().message());
  envelope.payload = std::move(*payload);
  envelope.payload_type = json["payloadType"].get<std::string>();
  for (const auto& item : json["signatures"]) {
    if (!item.is_object() || !item.contains("sig") || !item["sig"].is_string() ||
        (item.contains("keyid") && !item["keyid"].is_string())) {
      return fail(ErrorCategory::integrity,
                  "a DSSE signature needs a string 'sig' (and a string 'keyid', if any)");
    }
    if (const auto extra = first_key_outside(item, {"sig", "keyid"}); !extra.empty()) {
      return fail(ErrorCategory::integrity,
                  "a DSSE signature has the field '" + extra + "', which is not DSSE's (sig, keyid)");
    }
    auto sig = base64_decode(item["sig"].get<std::string>());
    if (!sig)
      return fail(ErrorCategory::integrity, "a DSSE signature is not valid base64: " + sig.error().message());
    DsseSignature signature;
    signature.signature = std::move(*sig);
    if (item.contains("keyid")) signature.key_id = item["keyid"].get<std::string>();
    envelope.signatures.push_back(std::move(signature));
  }
  return envelope;
}

}  // namespace relforge::signing
