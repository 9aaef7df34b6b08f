#include "signing/keys.hpp"

#include <random>
#include <system_error>
#include <vector>

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include "platform/digest.hpp"
#include "platform/fs.hpp"
#include "signing/file_bytes.hpp"

namespace relforge::signing {
namespace fs = std::filesystem;
namespace {

struct PkeyFree {
  void operator()(EVP_PKEY* key) const { EVP_PKEY_free(key); }
};
using PkeyPtr = std::unique_ptr<EVP_PKEY, PkeyFree>;

struct BioFree {
  void operator()(BIO* bio) const { BIO_free(bio); }
};
using BioPtr = std::unique_ptr<BIO, BioFree>;

struct MdCtxFree {
  void operator()(EVP_MD_CTX* ctx) const { EVP_MD_CTX_free(ctx); }
};
using MdCtxPtr = std::unique_ptr<EVP_MD_CTX, MdCtxFree>;

std::string bio_contents(BIO* bio) {
  char* data = nullptr;
  const long size = BIO_get_mem_data(bio, &data);
  return std::string(data, static_cast<std::size_t>(size));
}

Result<KeyType> type_of(EVP_PKEY* key, const std::string& where) {
  if (EVP_PKEY_is_a(key, "ED25519")) return KeyType::ed25519;
  if (EVP_PKEY_is_a(key, "EC")) {
    char group[64] = {};
    std::size_t length = 0;
    if (EVP_PKEY_get_utf8_string_param(key, "group", group, sizeof group, &length) == 1 &&
        (std::string_view(group) == "prime256v1" || std::string_view(group) == "P-256")) {
      return KeyType::ecdsa_p256;
    }
  }
  return fail(ErrorCategory::invalid_input,
              where + ": unsupported key type (relforge signs with ecdsa-p256 or ed25519)");
}

std::string der_public_key(EVP_PKEY* key) {
  unsigned char* der = nullptr;
  const int length = i2d_PUBKEY(key, &der);
  std::string out(reinterpret_cast<const char*>(der), static_cast<std::size_t>(length));
  OPENSSL_free(der);
  return out;
}

std::string key_id_of(EVP_PKEY* key) {
  return platform::to_hex(platform::sha256(der_public_key(key)));
}

std::string public_pem(EVP_PKEY* key) {
  BioPtr bio(BIO_new(BIO_s_mem()));
  PEM_write_bio_PUBKEY(bio.get(), key);
  return bio_contents(bio.get());
}

// Key files are read like bundles: regular files only (a FIFO is refused, not waited on) and
// bounded (a link to /dev/zero is refused, not read until memory runs out).
Result<std::string> read_key_file(const fs::path& file, const std::string& what) {
  return read_regular_file(file, k_max_key_file_bytes, what, ErrorCategory::invalid_input,
                           "a PEM key is a few hundred bytes: name the key file itself");
}

tl::unexpected<Error> refuse_existing(const fs::path& path) {
  return fail(ErrorCategory::conflict, path.string() +
                                           " exists already; relforge never overwrites a key "
                                           "(choose another --out directory)");
}

// Written whole under a name of its own (created with `mode`, never chmod()ed), then hard-linked
// to `path`: link() fails when `path` exists, so a key that appeared after the check in
// generate_key is never replaced, where a rename would silently replace it.
Status write_new_file(const fs::path& path, const std::string& content, unsigned mode) {
  fs::path staged = path;
  staged += ".new-" + std::to_string(std::random_device{}());
  if (auto ok = platform::write_file_atomic(staged, content, platform::Durability::fsync, mode); !ok)
    return ok;
  std::error_code error, ignored;
  fs::create_hard_link(staged, path, error);
  fs::remove(staged, ignored);
  if (error == std::errc::file_exists) return refuse_existing(path);
  if (error) return fail(ErrorCategory::io, "cannot create " + path.string() + ": " + error.message());
  if (const auto synced = platform::fsync_path(path.parent_path()); synced)
    return fail(ErrorCategory::io, "cannot fsync " + path.parent_path().string() + ": " + synced.message());
  return {};
}

// A folder this run creates gets mode 0700 whatever the umask (under umask 0 it would be 0777, and
// anyone could swap the key files in it); a folder that exists keeps the mode its owner gave it.
Status create_key_folder(const fs::path& dir) {
  std::vector<fs::path> missing;
  std::error_code error;
  for (fs::path at = dir.has_filename() ? dir : dir.parent_path(); !at.empty(); at = at.parent_path()) {
    if (fs::exists(fs::symlink_status(at, error))) break;
    missing.push_back(at);
    if (at == at.parent_path()) break;
  }
  for (auto at = missing.rbegin(); at != missing.rend(); ++at) {
    if (auto created = platform::create_private_directory(*at); !created)
      return tl::unexpected(created.error());
  }
  return {};
}

}  // namespace

std::string_view key_type_name(KeyType type) {
  return type == KeyType::ed25519 ? "ed25519" : "ecdsa-p256";
}

Result<KeyType> parse_key_type(std::string_view name) {
  if (name == "ecdsa-p256") return KeyType::ecdsa_p256;
  if (name == "ed25519") return KeyType::ed25519;
  return fail(ErrorCategory::invalid_input,
              "unknown key type '" + std::string(name) + "' (use ecdsa-p256 or ed25519)");
}

Result<GeneratedKey> generate_key(KeyType type, const fs::path& dir) {
  GeneratedKey result{dir / "signing.key", dir / "signing.pub", "", type};
  if (auto created = create_key_folder(dir); !created) return tl::unexpected(created.error());
  for (const auto& path : {result.private_key, result.public_key}) {
    // symlink_status: a dangling link is a name taken too; found only by link(), it stopped the run
    // after the private key was already in place.
    std::error_code error;
    if (fs::exists(fs::symlink_status(path, error))) return refuse_existing(path);
  }
  PkeyPtr key(type == KeyType::ed25519 ? EVP_PKEY_Q_keygen(nullptr, nullptr, "ED25519")
                                       : EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", "P-256"));
  if (!key) return fail(ErrorCategory::internal, "OpenSSL could not generate a key");
  BioPtr bio(BIO_new(BIO_s_mem()));
  if (PEM_write_bio_PrivateKey(bio.get(), key.get(), nullptr, nullptr, 0, nullptr, nullptr) != 1) {
    return fail(ErrorCategory::internal, "OpenSSL could not encode the private key");
  }
  // Created with mode 0600 (O_EXCL, no chmod afterwards) and written whole before it gets its name,
  // so the secret is never visible under a wider mode nor half-written under the final name.
  const std::string private_pem = bio_contents(bio.get());
  if (auto status = write_new_file(result.private_key, private_pem, 0600); !status) {
    return tl::unexpected(status.error());
  }
  if (auto status = write_new_file(result.public_key, public_pem(key.get()), 0644); !status) {
    // A private key without its public key is no pair: take back what this run linked, so a rerun
    // is not refused for it (a file that is no longer ours is left alone).
    if (platform::file_has_content(result.private_key, private_pem)) {
      std::error_code ignored;
      fs::remove(result.private_key, ignored);
    }
    return tl::unexpected(status.error());
  }
  result.key_id = key_id_of(key.get());
  return result;
}

struct PublicKey::Impl {
  PkeyPtr key;
};

PublicKey::PublicKey(std::unique_ptr<Impl> impl) : m_impl(std::move(impl)) {}
PublicKey::PublicKey(PublicKey&&) noexcept = default;
PublicKey& PublicKey::operator=(PublicKey&&) noexcept = default;
PublicKey::~PublicKey() = default;

Result<PublicKey> PublicKey::from_pem(std::string_view pem) {
  BioPtr bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  PkeyPtr key(PEM_read_bio_PUBKEY(bio.get(), nullptr, nullptr, nullptr));
  if (!key) {
    return fail(ErrorCategory::invalid_input,
                "not a PEM public key (expected '-----BEGIN PUBLIC KEY-----', as written by "
                "'relforge keys generate')");
  }
  auto type = type_of(key.get(), "public key");
  if (!type) return tl::unexpected(type.error());
  auto impl = std::make_unique<Impl>();
  const std::string id = key_id_of(key.get());
  impl->key = std::move(key);
  PublicKey out(std::move(impl));
  out.m_key_id = id;
  out.m_type = *type;
  return out;
}

Result<PublicKey> PublicKey::load(const fs::path& pem_file) {
  auto text = read_key_file(pem_file, "public key");
  if (!text) return tl::unexpected(text.error());
  return with_context(from_pem(*text), "reading " + pem_file.string());
}

std::string PublicKey::pem() const {
  return public_pem(m_impl->key.get());
}

bool PublicKey::verify(std::string_view message, std::string_view signature) const {
  MdCtxPtr ctx(EVP_MD_CTX_new());
  const EVP_MD* md = m_type == KeyType::ed25519 ? nullptr : EVP_sha256();
  if (EVP_DigestVerifyInit(ctx.get(), nullptr, md, nullptr, m_impl->key.get()) != 1) return false;
  return EVP_DigestVerify(ctx.get(), reinterpret_cast<const unsigned char*>(signature.data()),
                          signature.size(), reinterpret_cast<const unsigned char*>(message.data()),
                          message.size()) == 1;
}

struct PrivateKey::Impl {
  PkeyPtr key;
};

PrivateKey::PrivateKey(std::unique_ptr<Impl> impl) : m_impl(std::move(impl)) {}
PrivateKey::PrivateKey(PrivateKey&&) noexcept = default;
PrivateKey& PrivateKey::operator=(PrivateKey&&) noexcept = default;
PrivateKey::~PrivateKey() = default;

Result<PrivateKey> PrivateKey::load(const fs::path& pem_file) {
  std::error_code error;
  const auto status = fs::status(pem_file, error);
  if (error || !fs::exists(status)) {
    return fail(ErrorCategory::not_found, "private key " + pem_file.string() + " does not exist");
  }
  const auto others = fs::perms::group_all | fs::perms::others_all;
  if ((status.permissions() & others) != fs::perms::none) {
    return fail(ErrorCategory::auth, "private key " + pem_file.string() +
                                         " is accessible by group or others; refusing to use it "
                                         "(run: chmod 600 " +
                                         pem_file.string() + ")");
  }
  auto text = read_key_file(pem_file, "private key");
  if (!text) return tl::unexpected(text.error());
  BioPtr bio(BIO_new_mem_buf(text->data(), static_cast<int>(text->size())));
  // Without a callback of its own, OpenSSL asks the terminal for an encrypted key's pass phrase and
  // waits there; a callback that gives no pass phrase refuses the key at once.
  const auto no_pass_phrase = [](char*, int, int, void*) { return 0; };
  PkeyPtr key(PEM_read_bio_PrivateKey(bio.get(), nullptr, no_pass_phrase, nullptr));
  if (!key) {
    return fail(ErrorCategory::invalid_input, pem_file.string() + " is not an unencrypted PEM private key");
  }
  auto type = type_of(key.get(), pem_file.string());
  if (!type) return tl::unexpected(type.error());
  auto impl = std::make_unique<Impl>();
  const std::string id = key_id_of(key.get());
  impl->key = std::move(key);
  PrivateKey out(std::move(impl));
  out.m_key_id = id;
  out.m_type = *type;
  return out;
}

Result<std::string> PrivateKey::sign(std::string_view message) const {
  MdCtxPtr ctx(EVP_MD_CTX_new());
  const EVP_MD* md = m_type == KeyType::ed25519 ? nullptr : EVP_sha256();
  if (EVP_DigestSignInit(ctx.get(), nullptr, md, nullptr, m_impl->key.get()) != 1) {
    return fail(ErrorCategory::internal, "OpenSSL could not start signing");
  }
  const auto* data = reinterpret_cast<const unsigned char*>(message.data());
  std::size_t length = 0;
  if (EVP_DigestSign(ctx.get(), nullptr, &length, data, message.size()) != 1) {
    return fail(ErrorCategory::internal, "OpenSSL could not size the signature");
  }
  std::string signature(length, '\0');
  if (EVP_DigestSign(ctx.get(), reinterpret_cast<unsigned char*>(signature.data()), &length, data,
                     message.size()) != 1) {
    return fail(ErrorCategory::internal, "OpenSSL could not sign");
  }
  signature.resize(length);
  return signature;
}

}  // namespace relforge::signing
