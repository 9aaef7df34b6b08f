#pragma once
// Wheel RECORD files (PEP 376/427): parse and format `path,sha256=<b64url nopad>,size` lines,
// the hash text of some bytes, and the archive-path safety rules `verify` enforces.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"
#include "platform/digest.hpp"

namespace relforge::packaging {

struct RecordEntry {
  std::string path;
  std::string hash;                   // "sha256=..." (or sha384/sha512) or empty (RECORD's own line)
  std::optional<std::uint64_t> size;  // nullopt when the field is empty
};

// CSV as Python's csv module writes it (fields with ',' or '"' quoted). invalid_input on a bad line.
Result<std::vector<RecordEntry>> parse_record(std::string_view text);
std::string format_record(const std::vector<RecordEntry>& entries);

// "sha256=" + urlsafe base64 of the digest without '=' padding.
std::string record_hash(const platform::Sha256Digest& digest);
std::string record_hash_of(std::string_view bytes);

// The hashes a RECORD line may use: PEP 427 allows any hashlib algorithm at least as strong as
// sha256; pip accepts these three and refuses md5 and sha1.
enum class RecordAlgorithm { sha256, sha384, sha512 };

// The algorithm named before '=' in `hash`; integrity error naming it when weaker or unknown.
Result<RecordAlgorithm> record_algorithm(std::string_view hash);

// A RECORD hash computed as bytes stream in: finish() gives "<algorithm>=<b64url nopad>".
class RecordHasher {
public:
  explicit RecordHasher(RecordAlgorithm algorithm);
  void update(std::string_view bytes);
  std::string finish();  // the hasher is spent afterwards

private:
  std::optional<platform::Sha256> m_sha256;
  std::optional<platform::WideDigest> m_wide;
  RecordAlgorithm m_algorithm;
};

std::string record_hash_of(std::string_view bytes, RecordAlgorithm algorithm);

// invalid_input when `path` is empty, absolute, has a backslash, a ':' (a Windows drive or an NTFS
// stream), or has '.'/'..' or empty components ('a//b'; a folder entry's trailing '/' aside).
Status check_archive_path(std::string_view path);

}  // namespace relforge::packaging
