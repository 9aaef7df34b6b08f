#include <system_error>

#include "signing/bundle.hpp"
#include "signing/dsse.hpp"
#include "signing/file_bytes.hpp"
#include "signing/strict_json.hpp"

namespace relforge::signing {
namespace fs = std::filesystem;
namespace {

using JsonValue = nlohmann::json;

const std::string k_sign_again = "; sign the file again with relforge sign";

// A file that is gone or cannot be opened says nothing about the bundle: it keeps its own exit code
// (not_found, io); any other failure to read it (a FIFO, a device, over the limit) is a refusal.
ErrorCategory unreadable_or_integrity(const Error& error) {
  const auto category = error.category();
  return category == ErrorCategory::not_found || category == ErrorCategory::io ? category
                                                                               : ErrorCategory::integrity;
}

std::string text_of(const JsonValue& object, const char* key) {
  if (object.is_object() && object.contains(key) && object[key].is_string())
    return object[key].get<std::string>();
  return {};
}

bool is_empty_array(const JsonValue& object, const char* key) {
  return !object.contains(key) || (object[key].is_array() && object[key].empty());
}

// The unsigned part of the bundle: only what relforge writes, so nothing another verifier would
// check (a certificate, a tlog entry, a timestamp, a messageSignature) is silently ignored here.
Status check_bundle_shape(const JsonValue& bundle, const std::string& where) {
  const auto check = [&where](const std::string& problem) {
    return fail(ErrorCategory::integrity, "bundle check failed: " + where + " " + problem);
  };
  if (text_of(bundle, "mediaType") != k_bundle_media_type) {
    return check("has media type '" + text_of(bundle, "mediaType") + "', expected " +
                 std::string(k_bundle_media_type));
  }
  if (bundle.contains("messageSignature")) {
    return check(
        "carries a messageSignature beside its DSSE envelope; Sigstore verifiers check that one, "
        "relforge the envelope, so the two could disagree" +
        k_sign_again);
  }
  if (!bundle.contains("dsseEnvelope")) return check("has no dsseEnvelope");
  if (const auto extra = first_key_outside(bundle, {"mediaType", "verificationMaterial", "dsseEnvelope"});
      !extra.empty()) {
    return check("has the field '" + extra + "', which relforge neither writes nor checks" + k_sign_again);
  }
  const JsonValue material = bundle.value("verificationMaterial", JsonValue::object());
  if (!material.is_object()) return check("has a verificationMaterial that is not an object");
  for (const char* name : {"certificate", "x509CertificateChain"}) {
    if (material.contains(name)) {
      return check(std::string("carries a ") + name +
                   ", which relforge does not check: relforge verifies key-based bundles against --key only");
    }
  }
  if (const auto extra =
          first_key_outside(material, {"publicKey", "tlogEntries", "timestampVerificationData"});
      !extra.empty()) {
    return check("has the verificationMaterial field '" + extra +
                 "', which relforge neither writes nor checks");
  }
  if (!is_empty_array(material, "tlogEntries")) {
    return check("carries transparency log entries, which relforge does not check (its bundles have none)" +
                 k_sign_again);
  }
  const JsonValue timestamps = material.value("timestampVerificationData", JsonValue::object());
  if (!timestamps.is_object() || !first_key_outside(timestamps, {"rfc3161Timestamps"}).empty() ||
      !is_empty_array(timestamps, "rfc3161Timestamps")) {
    return check("carries timestamps, which relforge does not check (its bundles have none)" + k_sign_again);
  }
  const JsonValue public_key = material.value("publicKey", JsonValue::object());
  if (!public_key.is_object() || !first_key_outside(public_key, {"hint"}).empty()) {
    return check("has a publicKey other than {\"hint\": key id}");
  }
  return {};
}

// The signed statement: in-toto v1 about exactly this file, by its sha256 alone, with an SLSA
// provenance v1 predicate.
Result<Subject> check_statement(const JsonValue& statement, const std::string& file_name) {
  const auto check = [](const std::string& problem) {
    return fail(ErrorCategory::integrity, "statement check failed: the signed statement " + problem);
  };
  if (!statement.is_object() || text_of(statement, "_type") != k_statement_type) {
    return check("is not an in-toto Statement v1 (_type " + std::string(k_statement_type) + ")");
  }
  if (const auto extra = first_key_outside(statement, {"_type", "subject", "predicateType", "predicate"});
      !extra.empty()) {
    return check("has the field '" + extra + "', which an in-toto Statement v1 does not have");
  }
  if (!statement.contains("subject") || !statement["subject"].is_array() ||
      statement["subject"].size() != 1) {
    return check("does not have exactly one subject (relforge signs one file per bundle)");
  }
  if (text_of(statement, "predicateType") != k_slsa_predicate_type || !statement.contains("predicate") ||
      !statement["predicate"].is_object()) {
    return check("has predicate type '" + text_of(statement, "predicateType") + "', not an " +
                 std::string(k_slsa_predicate_type) + " object");
  }
  const JsonValue& subject = statement["subject"][0];
  if (!subject.is_object() || !first_key_outside(subject, {"name", "digest"}).empty()) {
    return check("has a subject other than {\"name\", \"digest\"}");
  }
  Subject out{text_of(subject, "name"), {}};
  if (out.name != file_name) {
    return fail(ErrorCategory::integrity, "subject name check failed: the statement is about '" + out.name +
                                              "', not '" + file_name + "'");
  }
  const JsonValue digest = subject.value("digest", JsonValue::object());
  if (!digest.is_object() || !first_key_outside(digest, {"sha256"}).empty() || !digest.contains("sha256")) {
    return fail(ErrorCategory::integrity,
                "subject digest check failed: the statement's digest of " + file_name +
                    " is not {\"sha256\": ...} "
                    "alone; relforge binds a file by its sha256 and checks no other algorithm");
  }
  out.sha256 = text_of(digest, "sha256");
  if (out.sha256.size() != 64 || out.sha256.find_first_not_of("0123456789abcdef") != std::string::npos) {
    return fail(ErrorCategory::integrity, "subject digest check failed: the statement's sha256 of " +
                                              file_name + " is '" + out.sha256 +
                                              "', not 64 lowercase hex digits");
  }
  return out;
}

}  // namespace

Result<std::string> read_bundle(const fs::path& file) {
  const fs::path bundle_path = file.string() + ".sigstore.json";
  std::error_code error;
  if (fs::status(bundle_path, error).type() == fs::file_type::not_found) {
    return fail(ErrorCategory::not_found, "no such file: " + bundle_path.string() +
                                              " (the file has no bundle; sign it with relforge sign)");
  }
  auto text = read_regular_file(bundle_path, k_max_bundle_bytes, "bundle", ErrorCategory::integrity,
                                "it was not written by relforge sign");
  if (!text) {
    const auto category = unreadable_or_integrity(text.error());
    return fail(category, (category == ErrorCategory::integrity ? "bundle check failed: " : "") +
                              text.error().message());
  }
  return text;
}

Result<VerifiedBundle> verify_bundle(const fs::path& file, std::string_view bundle_json,
                                     const PublicKey& key) {
  const std::string name = file.filename().string();
  const std::string where = "bundle for " + name;
  auto bundle = parse_strict_json(bundle_json, where, k_max_bundle_bytes);
  if (!bundle) return fail(ErrorCategory::integrity, "bundle check failed: " + bundle.error().message());
  if (!bundle->is_object())
    return fail(ErrorCategory::integrity, "bundle check failed: " + where + " is not a JSON object");
  if (auto shape = check_bundle_shape(*bundle, where); !shape) return tl::unexpected(shape.error());
  auto envelope = envelope_from_json((*bundle)["dsseEnvelope"]);
  if (!envelope) return fail(ErrorCategory::integrity, "bundle check failed: " + envelope.error().message());
  if (envelope->signatures.size() != 1) {
    return fail(ErrorCategory::integrity, "bundle check failed: " + where + " has " +
                                              std::to_string(envelope->signatures.size()) +
                                              " signatures; exactly one is accepted");
  }
  const std::string hint = text_of(
      bundle->value("verificationMaterial", JsonValue::object()).value("publicKey", JsonValue::object()),
      "hint");
  if (hint != key.key_id()) {
    return fail(ErrorCategory::integrity, "key id check failed: " + where + " was signed by key " +
                                              (hint.empty() ? "(none named)" : hint) +
                                              ", the given public key is " + key.key_id());
  }
  // The DSSE keyid is unsigned too, and relforge writes the key id there as well: a verifier that
  // picks its key by keyid must be sent to the same key as one that picks it by the hint.
  if (const std::string& keyid = envelope->signatures.front().key_id; keyid != key.key_id()) {
    return fail(ErrorCategory::integrity, "key id check failed: the DSSE signature in " + where + " names " +
                                              (keyid.empty() ? "no key id" : "key " + keyid) +
                                              ", the given public key is " + key.key_id());
  }
  if (envelope->payload_type != k_in_toto_payload_type) {
    return fail(ErrorCategory::integrity, "bundle check failed: payload type '" + envelope->payload_type +
                                              "' is not " + std::string(k_in_toto_payload_type));
  }
  if (!key.verify(pae(envelope->payload_type, envelope->payload), envelope->signatures.front().signature)) {
    return fail(ErrorCategory::integrity, "signature check failed: the signature in " + where +
                                              " does not verify over the DSSE PAE with key " + key.key_id() +
                                              " (the bundle was altered or signed by another key)");
  }
  auto statement = parse_strict_json(envelope->payload, "the signed statement", k_max_bundle_bytes);
  if (!statement)
    return fail(ErrorCategory::integrity, "statement check failed: " + statement.error().message());
  auto subject = check_statement(*statement, name);
  if (!subject) return tl::unexpected(subject.error());
  auto actual = sha256_of_regular_file(file);
  if (!actual) return fail(unreadable_or_integrity(actual.error()), actual.error().message());
  if (subject->sha256 != *actual) {
    return fail(ErrorCategory::integrity, "subject digest check failed: " + file.string() + " has sha256 " +
                                              *actual + ", the statement says " + subject->sha256 +
                                              " (the file was changed after signing)");
  }
  VerifiedBundle verified;
  verified.subject = std::move(*subject);
  verified.key_id = hint;
  verified.predicate_type = text_of(*statement, "predicateType");
  verified.statement = std::move(*statement);
  verified.envelope = (*bundle)["dsseEnvelope"];
  return verified;
}

}  // namespace relforge::signing
