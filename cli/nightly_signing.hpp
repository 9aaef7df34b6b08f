#pragma once
// Signing for `relforge nightly`: the key pair (checked before any build), and a Sigstore bundle
// per built wheel whose SLSA provenance comes from the build ledger's attempt for that cell.
#include <filesystem>
#include <optional>
#include <string>

#include "builders/executor.hpp"
#include "core/error.hpp"
#include "signing/keys.hpp"

namespace relforge::cli {

struct SignedWheel {
  std::string wheel;
  std::string bundle;
  std::string key_id;
};

struct SigningKeys {
  signing::PrivateKey private_key;
  signing::PublicKey public_key;
  std::filesystem::path public_key_path;
};

// Loads the private key (refused when group/others can read it) and its public key: `public_key`,
// else the .pub beside it (signing.key -> signing.pub); conflict when their key ids differ.
Result<SigningKeys> load_signing_keys(const std::filesystem::path& private_key,
                                      const std::optional<std::filesystem::path>& public_key);

struct ProvenanceContext {
  const builders::BuildOptions* build = nullptr;  // the run that built the wheels
  std::string channel;
  std::string source_repository;  // git remote URL; empty when unknown
};

// Writes WHEEL.sigstore.json for a built cell; the facts come from its ledger row.
Result<SignedWheel> sign_built_wheel(const SigningKeys& keys, const ProvenanceContext& context,
                                     const builders::CellOutcome& cell);

}  // namespace relforge::cli
