#pragma once
// Signing keys through OpenSSL EVP: ECDSA P-256 (SHA-256, DER signatures) and Ed25519. A key id is
// the hex sha256 of the DER SubjectPublicKeyInfo; private keys are PEM files readable only by the owner.
#include <cstddef>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

#include "core/error.hpp"

namespace relforge::signing {

enum class KeyType { ecdsa_p256, ed25519 };

// Key files are regular files of at most this many bytes (a PEM key is a few hundred).
inline constexpr std::size_t k_max_key_file_bytes = std::size_t{64} << 10;

std::string_view key_type_name(KeyType type);  // "ecdsa-p256", "ed25519"
Result<KeyType> parse_key_type(std::string_view name);

struct GeneratedKey {
  std::filesystem::path private_key;  // DIR/signing.key (mode 0600)
  std::filesystem::path public_key;   // DIR/signing.pub
  std::string key_id;
  KeyType type;
};

// Writes DIR/signing.key and DIR/signing.pub, creating DIR (and any missing parent) with mode 0700;
// conflict when either name is taken already (a dangling link too), and then no key file is written.
Result<GeneratedKey> generate_key(KeyType type, const std::filesystem::path& dir);

class PublicKey {
public:
  // invalid_input when the file is not a regular file or is over k_max_key_file_bytes.
  static Result<PublicKey> load(const std::filesystem::path& pem_file);
  static Result<PublicKey> from_pem(std::string_view pem);
  PublicKey(PublicKey&&) noexcept;
  PublicKey& operator=(PublicKey&&) noexcept;
  ~PublicKey();

  const std::string& key_id() const { return m_key_id; }
  KeyType type() const { return m_type; }
  std::string pem() const;
  // True when `signature` is a valid signature of `message` by this key.
  bool verify(std::string_view message, std::string_view signature) const;

private:
  struct Impl;
  explicit PublicKey(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> m_impl;
  std::string m_key_id;
  KeyType m_type = KeyType::ecdsa_p256;
};

class PrivateKey {
public:
  // auth error when the file is readable or writable by group or others; invalid_input as for
  // PublicKey::load, and for an encrypted key (refused at once: no pass phrase is asked for).
  static Result<PrivateKey> load(const std::filesystem::path& pem_file);
  PrivateKey(PrivateKey&&) noexcept;
  PrivateKey& operator=(PrivateKey&&) noexcept;
  ~PrivateKey();

  const std::string& key_id() const { return m_key_id; }
  KeyType type() const { return m_type; }
  Result<std::string> sign(std::string_view message) const;  // raw signature bytes

private:
  struct Impl;
  explicit PrivateKey(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> m_impl;
  std::string m_key_id;
  KeyType m_type = KeyType::ecdsa_p256;
};

}  // namespace relforge::signing
