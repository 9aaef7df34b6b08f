#include "packaging/wheel_repair.hpp"

#include <algorithm>
#include <atomic>
#include <charconv>
#include <cstdio>
#include <functional>
#include <future>
#include <map>
#include <optional>
#include <set>
#include <system_error>
#include <thread>

#include "core/text.hpp"
#include "packaging/ascii.hpp"
#include "packaging/names.hpp"
#include "packaging/tags.hpp"
#include "packaging/unicode_nfd.hpp"
#include "packaging/version.hpp"
#include "packaging/wheel_archive.hpp"
#include "packaging/wheel_binary_check.hpp"
#include "packaging/wheel_elf_policy.hpp"
#include "packaging/wheel_entry_image.hpp"
#include "packaging/wheel_name.hpp"
#include "packaging/wheel_record.hpp"

namespace relforge::packaging {
namespace {

bool is_directory_entry(const std::string& name) {
  return !name.empty() && name.back() == '/';
}

std::string first_component(const std::string& name) {
  return name.substr(0, name.find('/'));
}

bool is_shared_object(const std::string& name) {
  const auto slash = name.rfind('/');
  const std::string base = slash == std::string::npos ? name : name.substr(slash + 1);
  return base.size() > 3 && (base.ends_with(".so") || base.find(".so.") != std::string::npos);
}

std::string base_name(const std::string& name) {
  const auto slash = name.rfind('/');
  return slash == std::string::npos ? name : name.substr(slash + 1);
}

// The one top-level `*.dist-info` name, as pip finds it (every entry's first component, whether a
// folder or not), and it must hold WHEEL; invalid_input naming what was found.
Result<std::string> find_dist_info(const ZipReader& reader) {
  std::set<std::string> folders;
  bool has_wheel = false;
  for (const auto& entry : reader.entries()) {
    const auto top = first_component(entry.name);
    if (!top.ends_with(".dist-info")) continue;
    folders.insert(top);
    has_wheel = has_wheel || entry.name == top + "/WHEEL";
  }
  if (folders.size() == 1 && has_wheel) return *folders.begin();
  if (folders.empty() || !has_wheel)
    return fail(ErrorCategory::invalid_input,
                "'" + reader.path().string() + "' has no *.dist-info/WHEEL: it is not a wheel");
  return fail(ErrorCategory::invalid_input, "'" + reader.path().string() + "' has " +
                                                std::to_string(folders.size()) + " dist-info folders (" +
                                                core::join({folders.begin(), folders.end()}, ", ") +
                                                "): a wheel has exactly one (pip refuses it)");
}

const ArchiveEntry* find_entry(const ZipReader& reader, const std::string& name) {
  for (const auto& entry : reader.entries())
    if (entry.name == name) return &entry;
  return nullptr;
}

// What `wheel verify` checks before hashing: safe unique paths, one dist-info, a RECORD that
// lists each path once. `by_path` is what every entry's bytes must then match.
struct Listing {
  std::string where;
  std::string record_name;
  std::map<std::string, RecordEntry> by_path;
};

// A second archive can hide in the end-of-central-directory comment: libzip reads the first and
// Python's zipfile (pip) the one whose record ends the file. No build backend writes a comment, so
// any comment is refused rather than searched for signatures a variant could avoid.
Status check_no_comment(const ZipReader& reader) {
  if (reader.comment().empty()) return {};
  return fail(ErrorCategory::integrity,
              "'" + reader.path().string() + "' has a " + std::to_string(reader.comment().size()) +
                  "-byte zip archive comment: refusing it (wheels carry none, and one can hold a second "
                  "archive that pip would install instead)");
}

bool is_unix_made(const ArchiveEntry& entry) {
  constexpr std::uint8_t k_opsys_unix = 3, k_opsys_os_x = 19;
  return entry.opsys == k_opsys_unix || entry.opsys == k_opsys_os_x;
}

// A symlink entry unpacks (with unzip, or an installer honouring modes) as a link that can point
// anywhere; devices, FIFOs and sockets have no place in a wheel either. The type is read from the
// upper 16 bits whatever host the entry claims: Info-ZIP's unzip makes links for VMS, Atari, BeOS
// and AtheOS entries as well as Unix ones. A zero upper half (MS-DOS, Windows) is a plain file.
Status check_entry_type(const ArchiveEntry& entry, const std::string& where) {
  const std::uint32_t type = (entry.external_attributes >> 16) & 0170000u;
  const bool plain = type == 0 || type == 0100000u || (type == 0040000u && is_directory_entry(entry.name));
  if (plain) return {};
  char octal[16];
  std::snprintf(octal, sizeof octal, "%06o", entry.external_attributes >> 16);
  const std::string kind = type == 0120000u ? "a symbolic link" : "no regular file";
  return fail(ErrorCategory::integrity, where + ": entry '" + entry.name + "' is " + kind + " (mode " +
                                            octal + "): refusing it (a wheel holds regular files only)");
}

// pip reads an entry's name as Python's zipfile does: UTF-8 when the entry says so (bit 11),
// cp437 otherwise, and in older Pythons never from Info-ZIP's Unicode Path field. libzip guesses UTF-8
// and takes that field's name, so the same bytes could be two names to it and one to pip, or the
// reverse, and every name check here would judge names pip never sees.
Status check_name_encoding(const ZipReader& reader, const std::string& where) {
  const std::string fix =
      ": refusing it (pip and other unzip tools may read another name); rebuild the wheel "
      "with a tool that marks UTF-8 names, such as `python -m wheel pack`";
  for (const auto& entry : reader.entries()) {
    if (entry.unmarked_name)
      return fail(ErrorCategory::integrity,
                  where + ": entry '" + entry.name +
                      "' has a name with non-ASCII bytes not marked UTF-8 (pip reads "
                      "it as cp437)" +
                      fix);
  }
  auto fields = reader.unicode_path_fields();
  if (!fields) return tl::unexpected(fields.error());
  for (std::size_t i = 0; i < fields->size(); ++i) {
    if ((*fields)[i])
      return fail(ErrorCategory::integrity, where + ": entry '" + reader.entries()[i].name +
                                                "' takes its name from an Info-ZIP Unicode Path extra field "
                                                "(0x7075), which older pips ignore" +
                                                fix);
  }
  return {};
}

std::string ascii_folded(const std::string& name) {
  std::string out = name;
  for (char& c : out) c = ascii::lower(c);
  return out;
}

// A name with every non-ASCII code point written as <U+XXXX>, so two names that print alike show
// how they differ.
std::string spelled_code_points(const std::string& name) {
  std::string out;
  for (std::size_t pos = 0; pos < name.size();) {
    const std::size_t start = pos;
    const auto c = next_code_point(name, pos);
    if (c && *c < 0x80) {
      out += static_cast<char>(*c);
      continue;
    }
    char code[16];
    if (c)
      std::snprintf(code, sizeof code, "<U+%04X>", static_cast<unsigned>(*c));
    else
      std::snprintf(code, sizeof code, "<byte %02X>", static_cast<unsigned char>(name[start]));
    out += code;
  }
  return out;
}

// Windows drops trailing dots and spaces from every component of a path: "y.py." and "y.py " are
// "y.py" there.
std::string windows_stripped(const std::string& name) {
  std::string out;
  bool first = true;
  for (const auto part : core::split(name, '/')) {
    if (!first) out += '/';
    first = false;
    const auto last = part.find_last_not_of(". ");
    if (last != std::string_view::npos) out += part.substr(0, last + 1);
  }
  return out;
}

// Names equal byte for byte, after ASCII case folding, after Windows drops trailing dots and
// spaces, or canonically equivalent in Unicode (also with ASCII case folding): on Windows (case,
// dots and spaces) and macOS (case and normalisation) the second overwrites the first, so what is
// installed depends on the OS and the order of unpacking.
Status check_unique_names(const ZipReader& reader, const std::string& where) {
  std::map<std::string, std::string> seen;  // name_collision_key -> the name as written
  for (const auto& entry : reader.entries()) {
    const auto [at, inserted] = seen.emplace(name_collision_key(windows_stripped(entry.name)), entry.name);
    if (inserted) continue;
    const std::string& first = at->second;
    if (first == entry.name)
      return fail(ErrorCategory::integrity,
                  where + ": entry '" + entry.name + "' appears twice: refusing it");
    const std::string both = where + ": entries '" + first + "' and '" + entry.name + "'";
    if (name_collision_key(first) != name_collision_key(entry.name))
      return fail(ErrorCategory::integrity, both +
                                                " are one name on Windows, which drops trailing dots and "
                                                "spaces: refusing them (one overwrites the other there)");
    if (ascii_folded(first) == ascii_folded(entry.name))
      return fail(ErrorCategory::integrity, both +
                                                " differ only in case: refusing them (one overwrites the "
                                                "other on Windows and macOS)");
    const bool same_case = canonical_decomposition(first) == canonical_decomposition(entry.name);
    return fail(ErrorCategory::integrity,
                both +
                    (same_case ? " are one name after Unicode normalisation (NFC)"
                               : " are one name after Unicode normalisation (NFC) and case folding") +
                    ", spelled '" + spelled_code_points(first) + "' and '" + spelled_code_points(entry.name) +
                    "': refusing them (one overwrites the other on macOS)");
  }
  return {};
}

// pip installs a wheel only when its dist-info folder is `{name}-{version}.dist-info` for the name
// and version of the file name (names compared PEP 503-normalised, versions in normal form). A file
// name that is no PEP 427 name is not checked: it names nothing to compare with.
Status check_dist_info_name(const ZipReader& reader, const std::string& dist_info) {
  auto name = parse_wheel_filename(reader.path().filename().string());
  if (!name) return {};
  const std::string stem = dist_info.substr(0, dist_info.size() - std::string_view(".dist-info").size());
  for (auto dash = stem.find('-'); dash != std::string::npos; dash = stem.find('-', dash + 1)) {
    if (normalize_project_name(stem.substr(0, dash)) != name->normalized_name()) continue;
    auto version = parse_version(stem.substr(dash + 1));
    if (version && *version == name->version) return {};
  }
  return fail(ErrorCategory::integrity, "'" + reader.path().string() + "': its dist-info folder '" +
                                            dist_info + "' is not for " + name->normalized_name() + " " +
                                            name->version.to_string() +
                                            " as the file name says: refusing it (pip refuses it too)");
}

// WHEEL's `Wheel-Version: 1.x`: pip refuses a wheel without one, and one of a newer major version.
Status check_wheel_version(const ZipReader& reader, const std::string& dist_info) {
  const auto* wheel = find_entry(reader, dist_info + "/WHEEL");
  auto text = reader.read(*wheel);
  if (!text) return tl::unexpected(text.error());
  const std::string where = "'" + reader.path().string() + "': " + dist_info + "/WHEEL";
  for (auto line : core::split(*text, '\n')) {
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) break;  // the headers end at the first blank line
    const auto colon = line.find(':');
    if (colon == std::string_view::npos ||
        ascii_folded(std::string(line.substr(0, colon))) != "wheel-version")
      continue;
    const auto value = core::trim(line.substr(colon + 1));
    // pip reads every dot-separated part as a number ("1.x" and "1." are invalid), then the major.
    const auto parts = core::split(value, '.');
    const bool numeric = std::all_of(parts.begin(), parts.end(), [](std::string_view part) {
      return !part.empty() && std::all_of(part.begin(), part.end(), ascii::is_digit);
    });
    if (!numeric)
      return fail(ErrorCategory::integrity, where + " says Wheel-Version: " + std::string(value) +
                                                ", which is no version (numbers joined by dots): refusing "
                                                "it (pip refuses it as invalid)");
    unsigned major = 0;
    const auto [end, ec] = std::from_chars(parts[0].data(), parts[0].data() + parts[0].size(), major);
    if (ec == std::errc() && end == parts[0].data() + parts[0].size() && major == 1) return {};
    return fail(ErrorCategory::integrity, where + " says Wheel-Version: " + std::string(value) +
                                              ": refusing it (pip installs Wheel-Version 1.x only)");
  }
  return fail(ErrorCategory::integrity, where + " has no Wheel-Version: refusing it (pip refuses it too)");
}

Result<Listing> read_listing(const ZipReader& reader) {
  Listing listing;
  listing.where = reader.path().string();
  const std::string& where = listing.where;
  if (auto ok = check_no_comment(reader); !ok) return tl::unexpected(ok.error());
  if (auto ok = check_name_encoding(reader, where); !ok) return tl::unexpected(ok.error());
  for (const auto& entry : reader.entries()) {
    if (auto ok = check_archive_path(entry.name); !ok) return tl::unexpected(ok.error().with_context(where));
    if (auto ok = check_entry_type(entry, where); !ok) return tl::unexpected(ok.error());
  }
  if (auto ok = check_unique_names(reader, where); !ok) return tl::unexpected(ok.error());
  auto dist_info = find_dist_info(reader);
  if (!dist_info) return tl::unexpected(dist_info.error());
  if (auto ok = check_dist_info_name(reader, *dist_info); !ok) return tl::unexpected(ok.error());
  if (auto ok = check_wheel_version(reader, *dist_info); !ok) return tl::unexpected(ok.error());
  listing.record_name = *dist_info + "/RECORD";
  const auto* record_entry = find_entry(reader, listing.record_name);
  if (record_entry == nullptr)
    return fail(ErrorCategory::integrity, where + ": " + listing.record_name + " is missing");
  auto text = reader.read(*record_entry);
  if (!text) return tl::unexpected(text.error());
  auto record = parse_record(*text);
  if (!record) return tl::unexpected(record.error().with_context(where + ": " + listing.record_name));
  for (auto& line : *record) {
    if (!listing.by_path.emplace(line.path, line).second)
      return fail(ErrorCategory::integrity,
                  where + ": " + listing.record_name + " lists '" + line.path + "' twice");
  }
  return listing;
}

bool is_record_file(const Listing& listing, const std::string& name) {
  return name == listing.record_name || name == listing.record_name + ".jws" ||
         name == listing.record_name + ".p7s";
}

struct RecordDigest {
  std::string hash;  // as RECORD writes it: "sha256=..."
  std::uint64_t size = 0;
};

// The entry hashed in the algorithm its RECORD line names (sha256 when that one is refused, so
// the line is reported as refused rather than the bytes as unreadable), streamed.
Result<RecordDigest> record_digest(const ZipReader& reader, const ArchiveEntry& entry,
                                   const Result<RecordAlgorithm>& algorithm) {
  if (!algorithm || *algorithm == RecordAlgorithm::sha256) {
    auto digest = reader.digest(entry);
    if (!digest) return tl::unexpected(digest.error());
    return RecordDigest{record_hash(digest->first), digest->second};
  }
  RecordHasher hasher(*algorithm);
  RecordDigest out;
  auto status = reader.stream(entry, [&](std::string_view chunk) {
    hasher.update(chunk);
    out.size += chunk.size();
  });
  if (!status) return tl::unexpected(status.error());
  out.hash = hasher.finish();
  return out;
}

// Inflating and hashing is most of the work of verify and repair: two threads, as the machines
// this runs on have at least two cores.
constexpr unsigned k_hash_threads = 2;
constexpr std::uint64_t k_parallel_hash_bytes = 4 << 20;

struct Hashed {
  VerifyResult result;
  std::vector<std::uint64_t> sizes;  // the inflated size of each entry hashed, by entry index
};

// Hashes every listed entry on `threads` threads, each with its own reader of `reader`'s file (a
// libzip archive is never used by two threads at once; `shared`, when given, is `reader` itself,
// free for one of them), and checks the bytes against RECORD: the same problems, in the same
// archive order, as one pass would find.
Result<Hashed> check_hashes(const ZipReader& reader, const Listing& listing, unsigned threads,
                            const ZipReader* shared) {
  const auto& entries = reader.entries();
  std::vector<std::size_t> work;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const auto& name = entries[i].name;
    if (!is_directory_entry(name) && !is_record_file(listing, name) && listing.by_path.count(name) != 0)
      work.push_back(i);
  }
  // The largest entries first, so the threads finish together.
  std::sort(work.begin(), work.end(), [&](std::size_t a, std::size_t b) {
    return entries[a].compressed_size > entries[b].compressed_size;
  });
  std::vector<std::optional<Result<RecordDigest>>> digests(entries.size());
  std::atomic<std::size_t> next{0};
  auto run = [&](const ZipReader& own) {
    for (std::size_t at = next++; at < work.size(); at = next++) {
      const std::size_t index = work[at];
      const auto& listed = listing.by_path.at(entries[index].name);
      digests[index] = record_digest(own, entries[index], record_algorithm(listed.hash));
    }
  };
  // A small wheel (what publish mostly sees) is hashed here: opening a second reader and starting a
  // thread would cost more than the hashing.
  std::uint64_t compressed = 0;
  for (const std::size_t index : work) compressed += entries[index].compressed_size;
  if (shared != nullptr && compressed < k_parallel_hash_bytes) threads = 1;
  // `shared` is used by this thread only when the caller does not use it meanwhile.
  const unsigned opened = shared != nullptr ? threads - 1 : threads;
  std::vector<std::optional<Result<ZipReader>>> readers(opened);
  {
    std::vector<std::jthread> pool;
    for (auto& slot : readers) {
      slot = ZipReader::open(reader.path());
      if (*slot) pool.emplace_back([&run, &slot] { run(**slot); });
    }
    if (shared != nullptr) run(*shared);
  }
  for (auto& slot : readers)
    if (!*slot) return tl::unexpected(slot->error());
  Hashed hashed;
  hashed.sizes.assign(entries.size(), 0);
  std::vector<std::string> problems;
  auto by_path = listing.by_path;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const auto& entry = entries[i];
    ++hashed.result.entries;
    if (is_directory_entry(entry.name) || is_record_file(listing, entry.name)) continue;
    const auto found = by_path.find(entry.name);
    if (found == by_path.end()) {
      problems.push_back("'" + entry.name + "' is not listed in RECORD");
      continue;
    }
    const auto& digest = *digests[i];
    if (!digest) return tl::unexpected(digest.error());
    ++hashed.result.hashed;
    hashed.result.bytes += digest->size;
    hashed.sizes[i] = digest->size;
    if (auto algorithm = record_algorithm(found->second.hash); !algorithm)
      problems.push_back("'" + entry.name + "': " + algorithm.error().message());
    else if (found->second.hash != digest->hash)
      problems.push_back("'" + entry.name + "': RECORD says " + found->second.hash + ", the bytes hash to " +
                         digest->hash);
    else if (found->second.size && *found->second.size != digest->size)
      problems.push_back("'" + entry.name + "': RECORD says " + std::to_string(*found->second.size) +
                         " bytes, the entry has " + std::to_string(digest->size));
    by_path.erase(found);
  }
  for (const auto& [path, line] : by_path)
    if (path != listing.record_name)
      problems.push_back("RECORD lists '" + path + "', which the archive lacks");
  if (!problems.empty())
    return fail(ErrorCategory::integrity,
                listing.where + ": RECORD does not match the archive:\n  " + core::join(problems, "\n  "));
  return hashed;
}

// The value of a header line named `key`, as email.message_from_bytes reads METADATA and WHEEL:
// names compare ASCII case-insensitively and the whitespace after the colon is optional.
std::optional<std::string_view> header_named(std::string_view line, std::string_view key) {
  const auto colon = line.find(':');
  if (colon != key.size()) return std::nullopt;
  for (std::size_t i = 0; i < colon; ++i)
    if (ascii::lower(line[i]) != ascii::lower(key[i])) return std::nullopt;
  return core::trim(line.substr(colon + 1));
}

bool is_continuation(std::string_view line) {
  return !line.empty() && (line.front() == ' ' || line.front() == '\t');
}

// Replaces the value of every `key` header (with its continuation lines) by `value`.
std::string rewrite_header(const std::string& text, const std::string& key, const std::string& value) {
  std::string out;
  // Headers end at the first empty line; the description body after it is left as written.
  bool in_headers = true;
  bool replaced = false;  // the line before was a replaced header: its continuations go with it
  for (auto line : core::split(text, '\n')) {
    if (line.empty() || line == "\r") in_headers = false;
    if (in_headers && replaced && is_continuation(line)) continue;
    replaced = in_headers && header_named(line, key).has_value();
    if (replaced) {
      out += key + ": " + value + "\n";
    } else {
      out += std::string(line) + "\n";
    }
  }
  // split() yields one more piece than there are newlines, so one "\n" too many was added.
  if (!out.empty()) out.pop_back();
  return out;
}

// Every Tag header goes, however spelt; the new ones stand where the first one stood.
std::string rewrite_tags(const std::string& text, const std::vector<std::string>& tags) {
  std::string out;
  bool written = false;
  bool removed = false;  // the line before was a Tag header: its continuations go with it
  for (auto line : core::split(text, '\n')) {
    if (removed && is_continuation(line)) continue;
    removed = header_named(line, "Tag").has_value();
    if (removed) {
      if (!written)
        for (const auto& tag : tags) out += "Tag: " + tag + "\n";
      written = true;
    } else if (!line.empty()) {
      out += std::string(line) + "\n";
    }
  }
  if (!written)
    for (const auto& tag : tags) out += "Tag: " + tag + "\n";
  return out;
}

// Inflates only the parts of the entry the ELF reader asks for (a few KiB of a shared library).
Result<std::optional<ElfRequirements>> entry_requirements(const ZipReader& reader,
                                                          const ArchiveEntry& entry) {
  auto image = open_entry_image(reader, entry);
  if (!image) return tl::unexpected(image.error());
  auto requirements = read_elf_requirements(**image);
  if (!requirements) return tl::unexpected(requirements.error().with_context(entry.name));
  return requirements;
}

// Every file is looked at, not only *.so names: an ELF file under any name can be dlopen()ed, and
// one whose requirements cannot be read whole is refused rather than passed on what could be read.
Status check_policy(const ZipReader& reader, const ManylinuxPolicy& policy, std::size_t& elf_files) {
  std::vector<std::string> bundled;
  for (const auto& entry : reader.entries())
    if (is_shared_object(entry.name)) bundled.push_back(base_name(entry.name));
  std::vector<std::string> violations;
  for (const auto& entry : reader.entries()) {
    if (is_directory_entry(entry.name)) continue;
    auto requirements = entry_requirements(reader, entry);
    if (!requirements) {
      return fail(ErrorCategory::integrity,
                  "refusing to tag '" + base_name(reader.path().string()) + "' " + policy.platform_tag +
                      ": cannot check '" + entry.name + "' inside it: " + requirements.error().message() +
                      "; rebuild the library (a file the check cannot read is never tagged manylinux)");
    }
    if (!*requirements) continue;
    ++elf_files;
    auto found = policy_violations(entry.name, **requirements, policy, bundled);
    violations.insert(violations.end(), found.begin(), found.end());
  }
  if (violations.empty()) return {};
  return fail(ErrorCategory::integrity, "refusing to tag '" + base_name(reader.path().string()) + "' " +
                                            policy.platform_tag + ":\n  " + core::join(violations, "\n  ") +
                                            "\nbuild it on a host or image with glibc <= 2." +
                                            std::to_string(policy.glibc_minor) +
                                            " (a quay.io/pypa/manylinux image), or keep the linux_* tag");
}

bool is_tag_character(char c) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
}

// A platform tag becomes part of a file name: PEP 425 allows lowercase letters, digits and '_'
// only (get_platform() with '-' and '.' replaced), so '/' or '..' can never reach a path.
Status check_platform(const std::string& platform) {
  const bool plain = !platform.empty() && platform.size() <= 100 &&
                     std::all_of(platform.begin(), platform.end(), is_tag_character);
  if (!plain) {
    return fail(ErrorCategory::invalid_input,
                "platform tag '" + platform +
                    "' is not a PEP 425 platform tag (lowercase letters, digits and '_' only, such as "
                    "manylinux_2_28_x86_64)");
  }
  if (auto parsed = parse_platform_tag(platform); !parsed)
    return tl::unexpected(parsed.error().with_context("platform tag '" + platform + "'"));
  return {};
}

// PEP 440: local labels are ASCII letters and digits in segments joined by '.', '_' or '-'.
Status check_local(const std::string& local) {
  bool segment_start = true;
  for (const char c : local) {
    const bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    if (alnum) {
      segment_start = false;
    } else if ((c == '.' || c == '_' || c == '-') && !segment_start) {
      segment_start = true;
    } else {
      segment_start = false;
      return fail(ErrorCategory::invalid_input,
                  "local version label '" + local +
                      "' is not a PEP 440 local label (letters and digits in segments joined by '.', '_' "
                      "or '-', such as cu130)");
    }
  }
  if (!local.empty() && segment_start)
    return fail(ErrorCategory::invalid_input, "local version label '" + local + "' ends with a separator");
  return {};
}

// The last guard before a name becomes a path: one plain component, so the output stays in --out.
Status check_output_name(const std::string& filename) {
  const bool plain =
      !filename.empty() && filename.front() != '.' &&
      std::all_of(filename.begin(), filename.end(), [](char c) {
        return is_tag_character(c) || (c >= 'A' && c <= 'Z') || c == '.' || c == '-' || c == '+';
      });
  if (!plain || filename.find("..") != std::string::npos)
    return fail(ErrorCategory::invalid_input, "refusing to write the wheel file name '" + filename +
                                                  "': it is not a plain PEP 427 file name");
  return {};
}

Result<std::string> new_version(const Version& current, const RepairOptions& options) {
  std::string text = options.version ? *options.version : current.public_string();
  std::string local = options.local ? *options.local : current.local_string();
  if (options.version) {
    auto given = parse_version(*options.version);
    if (!given) return tl::unexpected(given.error().with_context("--version"));
    if (given->has_local() && !options.local) local = given->local_string();
    text = given->public_string();
  }
  if (!local.empty()) text += "+" + local;
  auto parsed = parse_version(text);
  if (!parsed) return tl::unexpected(parsed.error().with_context("the repaired version '" + text + "'"));
  return parsed->to_string();
}

// Only the permission bits of a Unix-made entry travel, and the copy is always a regular file:
// verify refuses links and devices first, and repair never writes one whatever it reads.
std::uint32_t copied_attributes(const ArchiveEntry& entry) {
  const std::uint32_t permissions = is_unix_made(entry) ? (entry.external_attributes >> 16) & 0777u : 0;
  return (0100000u | (permissions != 0 ? permissions : 0644u)) << 16;
}

// The recipe's file order, times and umask are facts of the machine that built it, not of the
// source; a reproducible wheel keeps none of them.
void normalize_entries(std::vector<PlannedEntry>& planned, std::vector<RecordEntry>& record,
                       const std::string& dist_info_prefix, std::int64_t mtime) {
  auto before = [&](const std::string& a, const std::string& b) {
    const bool a_meta = a.starts_with(dist_info_prefix), b_meta = b.starts_with(dist_info_prefix);
    return a_meta != b_meta ? b_meta : a < b;
  };
  std::sort(planned.begin(), planned.end(),
            [&](const PlannedEntry& a, const PlannedEntry& b) { return before(a.name, b.name); });
  std::sort(record.begin(), record.end(),
            [&](const RecordEntry& a, const RecordEntry& b) { return before(a.path, b.path); });
  for (auto& entry : planned) {
    const bool executable = ((entry.external_attributes >> 16) & 0111u) != 0;
    entry.external_attributes = (0100000u | (executable ? 0755u : 0644u)) << 16;
    entry.mtime = mtime;
  }
}

// The repair proper, after read_listing: `verified` is called once the new wheel is written and
// before it is renamed into place, with the entries whose RECORD line had no size (their size
// was taken from the archive); a failure there leaves no output.
Result<RepairResult> repair_listed(const RepairOptions& options, const ZipReader& source,
                                   const std::function<Status(const std::vector<std::uint64_t>&)>& verified) {
  const ZipReader* reader = &source;
  auto name = parse_wheel_filename(options.wheel.filename().string());
  if (!name) return tl::unexpected(name.error());
  auto dist_info = find_dist_info(*reader);
  if (!dist_info) return tl::unexpected(dist_info.error());
  for (const auto& entry : reader->entries())
    if (auto ok = check_archive_path(entry.name); !ok)
      return tl::unexpected(ok.error().with_context(options.wheel.string()));

  RepairResult result;
  if (options.platform) {
    if (auto policy = manylinux_policy(*options.platform)) {
      if (auto ok = check_policy(*reader, *policy, result.elf_files); !ok) return tl::unexpected(ok.error());
    }
  }
  // Windows and macOS wheels get no bundling here: they pass the same check as `wheel verify` or stay as they
  // are.
  const auto platforms =
      options.platform ? std::vector<std::string>{*options.platform} : name->tag_set.platforms;
  auto binaries = check_wheel_binaries(*reader, platforms, {options.allow_dlls});
  if (!binaries) return tl::unexpected(binaries.error());
  result.binaries = binaries->binaries.size();
  if (auto ok = binary_check_status(base_name(options.wheel.string()), *binaries); !ok) {
    return fail(ErrorCategory::integrity,
                "refusing to repair: " + ok.error().message() +
                    "\nfix the binaries (or --allow-dll what the user's machine provides), "
                    "then repair the wheel");
  }
  auto version = new_version(name->version, options);
  if (!version) return tl::unexpected(version.error());
  WheelName renamed = *name;
  renamed.version = *parse_version(*version);
  if (options.platform) renamed.tag_set.platforms = {*options.platform};
  auto filename = format_wheel_filename(renamed);
  if (!filename) return tl::unexpected(filename.error());
  for (const auto& tag : renamed.tags()) result.tags.push_back(tag.to_string());
  result.version = *version;

  const std::string old_prefix = *dist_info + "/";
  const std::string new_dist_info =
      dist_info->substr(0, dist_info->find('-')) + "-" + *version + ".dist-info";
  const std::string new_prefix = new_dist_info + "/";
  // Installers find scripts, headers and data in `{dist-info stem}.data/`: left under the old
  // version's name, they would be installed as package files.
  constexpr std::string_view k_dist_info_suffix = ".dist-info";
  const std::string old_data_prefix =
      dist_info->substr(0, dist_info->size() - k_dist_info_suffix.size()) + ".data/";
  const std::string new_data_prefix =
      new_dist_info.substr(0, new_dist_info.size() - k_dist_info_suffix.size()) + ".data/";

  std::map<std::string, RecordEntry> old_record;
  if (const auto* record = find_entry(*reader, old_prefix + "RECORD")) {
    auto text = reader->read(*record);
    if (!text) return tl::unexpected(text.error());
    auto entries = parse_record(*text);
    if (!entries) return tl::unexpected(entries.error().with_context(old_prefix + "RECORD"));
    for (auto& entry : *entries) old_record[entry.path] = entry;
  }

  std::vector<PlannedEntry> planned;
  std::vector<RecordEntry> record;
  std::vector<std::uint64_t> unsized;
  for (const auto& entry : reader->entries()) {
    if (is_directory_entry(entry.name)) continue;
    const bool in_dist_info = entry.name.starts_with(old_prefix);
    const std::string leaf = in_dist_info ? entry.name.substr(old_prefix.size()) : "";
    // The old RECORD and its signatures describe the old bytes; a new RECORD is written last.
    if (leaf == "RECORD" || leaf == "RECORD.jws" || leaf == "RECORD.p7s") continue;
    PlannedEntry plan;
    plan.name = in_dist_info ? new_prefix + leaf : entry.name;
    if (entry.name.starts_with(old_data_prefix))
      plan.name = new_data_prefix + entry.name.substr(old_data_prefix.size());
    plan.external_attributes = copied_attributes(entry);
    plan.mtime = entry.mtime;
    if (leaf == "METADATA" || leaf == "WHEEL") {
      auto text = reader->read(entry);
      if (!text) return tl::unexpected(text.error());
      plan.bytes =
          leaf == "METADATA" ? rewrite_header(*text, "Version", *version) : rewrite_tags(*text, result.tags);
      record.push_back({plan.name, record_hash_of(plan.bytes), plan.bytes.size()});
      ++result.rewritten;
    } else {
      plan.copy_from = &entry;
      // Unchanged bytes keep the hash and size RECORD gave them: `verified` confirms both before
      // the output is kept (an entry RECORD lacks fails there). A line without a size takes the
      // archive's, which `verified` checks against the bytes.
      const auto known = old_record.find(entry.name);
      if (known == old_record.end()) {
        record.push_back({plan.name, "", entry.size});
      } else if (known->second.size) {
        record.push_back({plan.name, known->second.hash, *known->second.size});
      } else {
        record.push_back({plan.name, known->second.hash, entry.size});
        unsized.push_back(entry.index);
      }
      ++result.copied;
    }
    planned.push_back(std::move(plan));
  }
  if (options.source_date_epoch) normalize_entries(planned, record, new_prefix, *options.source_date_epoch);
  record.push_back({new_prefix + "RECORD", "", std::nullopt});
  PlannedEntry record_entry;
  record_entry.external_attributes = 0100644u << 16;
  if (options.source_date_epoch) record_entry.mtime = *options.source_date_epoch;
  record_entry.name = new_prefix + "RECORD";
  record_entry.bytes = format_record(record);
  planned.push_back(std::move(record_entry));
  ++result.rewritten;

  if (auto ok = check_output_name(*filename); !ok) return tl::unexpected(ok.error());
  std::error_code ec;
  std::filesystem::create_directories(options.out_dir, ec);
  if (ec) return fail(ErrorCategory::io, "cannot create '" + options.out_dir.string() + "': " + ec.message());
  result.output = options.out_dir / *filename;
  if (std::filesystem::equivalent(result.output, options.wheel, ec))
    return fail(ErrorCategory::conflict, "the repaired wheel would overwrite its input '" +
                                             options.wheel.string() + "': choose another --out folder");
  if (options.overwrite == Overwrite::refuse && std::filesystem::exists(result.output))
    return fail(ErrorCategory::conflict, "'" + result.output.string() + "' exists already");
  if (auto ok = write_zip(result.output, reader, planned, [&] { return verified(unsized); }); !ok)
    return tl::unexpected(ok.error());
  return result;
}

}  // namespace

Result<RepairResult> repair_wheel(const RepairOptions& options) {
  if (options.platform)
    if (auto ok = check_platform(*options.platform); !ok) return tl::unexpected(ok.error());
  if (options.local)
    if (auto ok = check_local(*options.local); !ok) return tl::unexpected(ok.error());
  // A repaired wheel gets a fresh RECORD: repairing one that fails verification would launder it.
  auto refused = [&](const Error& error) -> Error {
    const auto category = error.category();
    if (category == ErrorCategory::not_found || category == ErrorCategory::io) return error;
    return Error(category, "refusing to repair '" + options.wheel.string() +
                               "': `relforge wheel verify` refuses it: " + error.describe() +
                               "\nfix the wheel, or the build that made it, then repair it");
  };
  auto reader = ZipReader::open(options.wheel);
  if (!reader) return tl::unexpected(refused(reader.error()));
  auto listing = read_listing(*reader);
  if (!listing) return tl::unexpected(refused(listing.error()));
  // The hashes are checked while the policy check and the copy run (the copy moves compressed
  // bytes, so inflating to hash is the one pass over the data): the output is renamed into place
  // only once every hash matched, and a wheel that fails both verify and the repair gets the
  // verify error, as when verify ran first.
  auto hashing = std::async(std::launch::async, [&] {
                   return check_hashes(*reader, *listing, k_hash_threads, nullptr);
                 }).share();
  std::optional<Result<Hashed>> hashed;
  auto hashes_checked = [&]() -> const Result<Hashed>& {
    if (!hashed) hashed = hashing.get();
    return *hashed;
  };
  auto repaired = repair_listed(options, *reader, [&](const std::vector<std::uint64_t>& unsized) -> Status {
    const auto& checked = hashes_checked();
    if (!checked) return tl::unexpected(refused(checked.error()));
    for (const auto index : unsized) {
      const auto& entry = reader->entries()[index];
      if (checked->sizes[index] != entry.size)
        return fail(ErrorCategory::integrity, "refusing to repair '" + options.wheel.string() + "': '" +
                                                  entry.name + "' inflates to " +
                                                  std::to_string(checked->sizes[index]) +
                                                  " bytes, the archive says " + std::to_string(entry.size));
    }
    return {};
  });
  if (repaired) return repaired;
  const auto& checked = hashes_checked();
  if (!checked) return tl::unexpected(refused(checked.error()));
  return repaired;
}

Result<VerifyResult> verify_wheel(const std::filesystem::path& wheel) {
  auto reader = ZipReader::open(wheel);
  if (!reader) return tl::unexpected(reader.error());
  auto listing = read_listing(*reader);
  if (!listing) return tl::unexpected(listing.error());
  auto hashed = check_hashes(*reader, *listing, k_hash_threads, &*reader);
  if (!hashed) return tl::unexpected(hashed.error());
  return hashed->result;
}

Result<InspectResult> inspect_wheel(const std::filesystem::path& wheel) {
  auto reader = ZipReader::open(wheel);
  if (!reader) return tl::unexpected(reader.error());
  auto name = parse_wheel_filename(wheel.filename().string());
  if (!name) return tl::unexpected(name.error());
  auto dist_info = find_dist_info(*reader);
  if (!dist_info) return tl::unexpected(dist_info.error());
  InspectResult result{wheel.filename().string(),
                       name->distribution,
                       name->version.to_string(),
                       {},
                       *dist_info,
                       {},
                       {},
                       {},
                       {}};
  std::map<std::string, std::string> newest;  // prefix → newest version
  std::set<std::string> needed;
  for (const auto& entry : reader->entries()) {
    result.files.push_back(entry.name);
    if (entry.name == *dist_info + "/WHEEL") {
      auto text = reader->read(entry);
      if (!text) return tl::unexpected(text.error());
      for (auto line : core::split(*text, '\n'))
        if (auto tag = header_named(line, "Tag")) result.tags.emplace_back(*tag);
    }
    if (!is_shared_object(entry.name)) continue;
    auto requirements = entry_requirements(*reader, entry);
    if (!requirements) return tl::unexpected(requirements.error());
    if (!*requirements) continue;
    result.elf_files.push_back(entry.name);
    for (const auto& library : (*requirements)->needed) needed.insert(library);
    for (const auto& version : (*requirements)->versions) {
      for (const std::string prefix : {"GLIBC_", "GLIBCXX_", "CXXABI_"}) {
        if (!version.starts_with(prefix) || version.size() == prefix.size() ||
            !std::isdigit(static_cast<unsigned char>(version[prefix.size()])))
          continue;
        auto& best = newest[prefix];
        auto key = [&](const std::string& v) {
          std::vector<int> parts;
          for (auto part : core::split(std::string_view(v).substr(prefix.size()), '.'))
            parts.push_back(std::atoi(std::string(part).c_str()));
          return parts;
        };
        if (best.empty() || key(version) > key(best)) best = version;
      }
    }
  }
  for (const auto& [prefix, version] : newest) result.glibc_versions.push_back(version);
  result.needed.assign(needed.begin(), needed.end());
  return result;
}

}  // namespace relforge::packaging
