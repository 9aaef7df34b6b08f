#pragma once
// PEP 425 compatibility tags: expand and compress tag sets exactly as packaging.tags.parse_tag
// (26.3) does, and classify interpreter, ABI and platform tags (manylinux, musllinux, macOS, Windows).
// Free-threaded CPython lives in the ABI ("cp313t"); its interpreter tag stays "cp313".
#include <compare>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"

namespace relforge::packaging {

struct Tag {
  std::string interpreter;
  std::string abi;
  std::string platform;

  std::string to_string() const;  // "cp313-cp313t-manylinux_2_28_x86_64"
  auto operator<=>(const Tag&) const = default;
};

// A compressed tag set, "py2.py3-none-any": each part's '.'-separated values, lower-cased.
struct TagSet {
  std::vector<std::string> interpreters;
  std::vector<std::string> abis;
  std::vector<std::string> platforms;

  std::vector<Tag> expand() const;  // the product in order, repeats dropped
  std::string to_string() const;    // the compressed form again
  bool operator==(const TagSet&) const = default;
};

// packaging 26.3's rules: exactly three '-'-separated parts, no empty '.'-separated value, and
// each interpreter an identifier (relforge: Python's \w for non-ASCII letters, see
// docs/standards.md); any other text is allowed. invalid_input otherwise.
Result<TagSet> parse_tag_set(std::string_view text);
bool is_python_identifier(std::string_view text);  // str.isidentifier(), exact for ASCII

// packaging.tags.parse_tag: the expanded, lower-cased tags of a compressed set.
Result<std::vector<Tag>> parse_tag(std::string_view text);

// The compressed set whose expansion is exactly `tags`; fails when they are not a full product.
Result<TagSet> compress_tags(const std::vector<Tag>& tags);

struct PythonVersion {
  unsigned major = 0;
  std::optional<unsigned> minor;  // absent in "py3"
  std::string to_string() const;  // "3.13", "3"
  auto operator<=>(const PythonVersion&) const = default;
};

// "py3", "cp313", "pp310": an implementation (py, cp, pp, ip, jy, graalpy) and its Python version.
struct InterpreterTag {
  std::string implementation;
  std::optional<PythonVersion> python;
};
Result<InterpreterTag> parse_interpreter_tag(std::string_view tag);

enum class AbiKind { none, abi3, cpython, other };

// "none", "abi3", "cp313", "cp313t" (free-threaded), "cp37m", or another implementation's ABI.
struct AbiTag {
  AbiKind kind = AbiKind::none;
  std::optional<PythonVersion> python;  // CPython ABIs only
  std::string flags;                    // CPython build flags after the version: "t", "m", "dm", ...
  bool free_threaded() const { return kind == AbiKind::cpython && flags.find('t') != std::string::npos; }
};
Result<AbiTag> parse_abi_tag(std::string_view tag);

enum class PlatformKind { any, generic_linux, manylinux, musllinux, macos, windows };

struct OsVersion {
  unsigned major = 0;
  unsigned minor = 0;
  std::string to_string() const;  // "2.28"
  auto operator<=>(const OsVersion&) const = default;
};

// A classified platform tag: the libc or macOS version it needs and the CPU it runs on.
struct PlatformTag {
  PlatformKind kind = PlatformKind::any;
  std::string arch;                  // "x86_64", "arm64", "universal2", "amd64", "x86"; empty for any
  std::optional<OsVersion> version;  // glibc (manylinux), musl (musllinux), macOS (macosx)
  std::string legacy_alias;          // "manylinux2014" when written in the PEP 599/571/513 form
};
Result<PlatformTag> parse_platform_tag(std::string_view tag);
std::string_view platform_kind_name(PlatformKind kind);  // "manylinux", "linux", "windows", ...

// Checks every part and their combination against what pip can ever select (ABI version equal
// to the interpreter's, abi3 only with cp3x, free-threading from 3.13, macOS 11+ as N_0, ...).
Status validate_tag(const Tag& tag);

bool is_free_threaded(const Tag& tag);
// The Python version of a CPython interpreter or ABI tag: "cp313t" -> 3.13; nullopt otherwise.
std::optional<PythonVersion> cpython_version(std::string_view tag);
// The glibc a manylinux platform tag needs: "manylinux2014_x86_64" -> 2.17; nullopt otherwise.
std::optional<OsVersion> glibc_version(std::string_view platform);

}  // namespace relforge::packaging
