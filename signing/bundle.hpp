#pragma once
// Sigstore bundle v0.3 (key-based: a public key hint, no tlog entries) holding a DSSE envelope of
// an in-toto Statement v1 with an SLSA provenance v1 predicate; signing a file and verifying it.
#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "signing/keys.hpp"

namespace relforge::signing {

inline constexpr std::string_view k_bundle_media_type = "application/vnd.dev.sigstore.bundle.v0.3+json";
inline constexpr std::string_view k_statement_type = "https://in-toto.io/Statement/v1";
inline constexpr std::string_view k_slsa_predicate_type = "https://slsa.dev/provenance/v1";
inline constexpr std::string_view k_build_type = "https://relforge.dev/build/wheel/v1";
// A relforge bundle is a few KiB; verify reads and parses no more than this, and sign writes no more.
inline constexpr std::size_t k_max_bundle_bytes = std::size_t{1} << 20;
// A build ledger (`--provenance-from`) and an images lock are read whole, up to these sizes.
inline constexpr std::size_t k_max_ledger_bytes = std::size_t{256} << 20;
inline constexpr std::size_t k_max_images_lock_bytes = std::size_t{64} << 20;

// What the provenance says about a build; empty fields are left out of the predicate.
struct BuildFacts {
  nlohmann::ordered_json cell = nlohmann::ordered_json::object();  // the matrix cell
  std::string channel;
  std::string source_repository;  // "git+https://github.com/org/repo@refs/heads/main"
  std::string source_commit;
  std::string builder_id;  // URI of the builder / runner
  std::string image;       // builder image reference
  std::string image_digest;
  std::string images_lock;  // the images lock of the run (`relforge images lock`), as a URI
  std::string images_lock_sha256;
  std::string invocation_id;
  std::string started_on;  // RFC 3339
  std::string finished_on;
  std::string log_name;
  std::string log_sha256;
};

// Reads facts from a JSON file (an object, an array or JSON lines): the entry whose "wheel" (or
// "file") is `file_name`, even when it is the only one; not_found when no entry names it.
Result<BuildFacts> load_build_facts(const std::filesystem::path& ledger, const std::string& file_name);

struct Subject {
  std::string name;
  std::string sha256;  // hex
};

nlohmann::ordered_json provenance_predicate(const BuildFacts& facts);
nlohmann::ordered_json statement(const Subject& subject, const nlohmann::ordered_json& predicate);

// The bundle JSON text for `file` (streamed through sha256).
Result<std::string> sign_file(const std::filesystem::path& file, const PrivateKey& key,
                              const BuildFacts& facts);

struct VerifiedBundle {
  Subject subject;
  std::string key_id;
  std::string predicate_type;
  nlohmann::json statement;
  nlohmann::json envelope;  // the dsseEnvelope object, as in the bundle
};

// FILE.sigstore.json for `file`: a regular file (after links) of at most k_max_bundle_bytes.
// not_found ("no such file: ...") when there is none, io when it cannot be opened, integrity otherwise.
Result<std::string> read_bundle(const std::filesystem::path& file);

// Checks, in order: bundle shape (strict JSON; only the fields relforge writes and checks: no
// certificate, tlog entry, timestamp or messageSignature it would ignore), key id (the public key
// hint and the DSSE keyid both), payload type,
// signature over the PAE, statement (in-toto v1, one subject, SLSA provenance v1), subject name,
// and the subject's sha256 (the only digest) against the bytes of `file`, a regular file read once.
// The error (integrity) names the check that failed; a `file` that is gone or cannot be opened is
// not_found or io.
Result<VerifiedBundle> verify_bundle(const std::filesystem::path& file, std::string_view bundle_json,
                                     const PublicKey& key);

}  // namespace relforge::signing
