#include "packaging/tags.hpp"

#include <algorithm>
#include <array>
#include <set>

#include "core/text.hpp"
#include "packaging/names.hpp"

namespace relforge::packaging {
namespace {

std::vector<std::string> split_values(std::string_view part) {
  std::vector<std::string> values;
  // Tag's constructor applies str.lower(), so non-ASCII tags lower-case like Python's too.
  for (const auto value : core::split(part, '.')) values.push_back(python_lower(value));
  return values;
}

void add_unique(std::vector<std::string>& values, const std::string& value) {
  if (std::find(values.begin(), values.end(), value) == values.end()) values.push_back(value);
}

bool all_digits(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// Non-empty ASCII digits without a superfluous leading zero, small enough for `unsigned`.
std::optional<unsigned> parse_number(std::string_view digits) {
  if (!all_digits(digits) || digits.size() > 6 || (digits.size() > 1 && digits.front() == '0')) {
    return std::nullopt;
  }
  unsigned value = 0;
  for (const char c : digits) value = value * 10 + static_cast<unsigned>(c - '0');
  return value;
}

// "313" -> 3.13, "3" -> 3: the major version is one digit, the rest is the minor (PEP 425).
std::optional<PythonVersion> parse_python_digits(std::string_view digits) {
  if (!all_digits(digits)) return std::nullopt;
  PythonVersion version;
  version.major = static_cast<unsigned>(digits.front() - '0');
  if (digits.size() > 1) {
    version.minor = parse_number(digits.substr(1));
    if (!version.minor) return std::nullopt;
  }
  return version;
}

std::string_view leading_letters(std::string_view text) {
  std::size_t n = 0;
  while (n < text.size() && text[n] >= 'a' && text[n] <= 'z') ++n;
  return text.substr(0, n);
}

constexpr std::array k_interpreters = {"py", "cp", "pp", "ip", "jy", "graalpy"};
constexpr std::array k_other_abi_prefixes = {"pypy", "pp", "graalpy", "ip", "jy"};
constexpr std::array k_linux_arches = {"x86_64", "i686",    "aarch64", "armv7l",  "armv6l",
                                       "ppc64",  "ppc64le", "s390x",   "riscv64", "loongarch64"};
constexpr std::array k_macos_arches = {"x86_64", "arm64", "universal2", "universal", "intel", "fat",
                                       "fat3",   "fat32", "fat64",      "i386",      "ppc",   "ppc64"};

struct LegacyManylinux {
  std::string_view alias;
  OsVersion glibc;
  std::vector<std::string_view> arches;
};

const std::vector<LegacyManylinux>& legacy_manylinux() {
  static const std::vector<LegacyManylinux> table = {
      {"manylinux1", {2, 5}, {"x86_64", "i686"}},
      {"manylinux2010", {2, 12}, {"x86_64", "i686"}},
      {"manylinux2014", {2, 17}, {"x86_64", "i686", "aarch64", "armv7l", "ppc64", "ppc64le", "s390x"}},
  };
  return table;
}

template <typename Range>
std::vector<std::string> to_strings(const Range& range) {
  return std::vector<std::string>(std::begin(range), std::end(range));
}

template <typename Range>
Status check_arch(std::string_view tag, std::string_view arch, const Range& known, std::string_view family) {
  if (std::find(std::begin(known), std::end(known), arch) != std::end(known)) return {};
  std::string message = "platform tag '" + std::string(tag) + "' has unknown " + std::string(family) +
                        " architecture '" + std::string(arch) + "'";
  if (const auto guess = core::closest_match(std::string(arch), to_strings(known))) {
    message += "; did you mean '" + *guess + "'?";
  } else {
    message += "; expected one of " + core::join(to_strings(known), ", ");
  }
  return fail(ErrorCategory::invalid_input, message);
}

// "2_28_x86_64" -> 2.28 and "x86_64".
std::optional<std::pair<OsVersion, std::string_view>> split_versioned(std::string_view rest) {
  const auto first = rest.find('_');
  if (first == std::string_view::npos) return std::nullopt;
  const auto second = rest.find('_', first + 1);
  if (second == std::string_view::npos) return std::nullopt;
  const auto major = parse_number(rest.substr(0, first));
  const auto minor = parse_number(rest.substr(first + 1, second - first - 1));
  if (!major || !minor) return std::nullopt;
  return std::pair{OsVersion{*major, *minor}, rest.substr(second + 1)};
}

Result<PlatformTag> parse_versioned(std::string_view tag, std::string_view rest, PlatformKind kind) {
  const auto parts = split_versioned(rest);
  const std::string family(platform_kind_name(kind));
  if (!parts) {
    return fail(ErrorCategory::invalid_input,
                "platform tag '" + std::string(tag) + "' is not of the form " + family +
                    "_MAJOR_MINOR_ARCH (e.g. " + family +
                    (kind == PlatformKind::macos ? "_11_0_arm64)" : "_2_28_x86_64)"));
  }
  const auto& [version, arch] = *parts;
  const auto status = kind == PlatformKind::macos ? check_arch(tag, arch, k_macos_arches, family)
                                                  : check_arch(tag, arch, k_linux_arches, family);
  if (!status) return tl::unexpected(status.error());
  return PlatformTag{kind, std::string(arch), version, ""};
}

Error tag_error(const Tag& tag, std::string message) {
  return Error(ErrorCategory::invalid_input, "tag '" + tag.to_string() + "': " + std::move(message));
}

}  // namespace

std::string Tag::to_string() const {
  return interpreter + "-" + abi + "-" + platform;
}

std::vector<Tag> TagSet::expand() const {
  std::vector<Tag> tags;
  std::set<Tag> seen;
  for (const auto& interpreter : interpreters) {
    for (const auto& abi : abis) {
      for (const auto& platform : platforms) {
        Tag tag{interpreter, abi, platform};
        if (seen.insert(tag).second) tags.push_back(std::move(tag));
      }
    }
  }
  return tags;
}

std::string TagSet::to_string() const {
  return core::join(interpreters, ".") + "-" + core::join(abis, ".") + "-" + core::join(platforms, ".");
}

bool is_python_identifier(std::string_view text) {
  std::size_t pos = 0;
  bool first = true;
  while (pos < text.size()) {
    const auto c = next_code_point(text, pos);
    if (!c) return false;
    const bool word = *c == '_' || is_python_word_char(*c);
    if (!word || (first && python_digit_value(*c))) return false;
    first = false;
  }
  return !first;
}

Result<TagSet> parse_tag_set(std::string_view text) {
  const auto parts = core::split(text, '-');
  // packaging 26.3 checks for empty values in every part before it counts the parts.
  for (const auto part : parts) {
    for (const auto value : core::split(part, '.')) {
      if (value.empty()) {
        return fail(ErrorCategory::invalid_input,
                    "tag set '" + std::string(text) + "' has an empty value in '" + std::string(part) +
                        "'; write values separated by single dots, as in py2.py3");
      }
    }
  }
  if (parts.size() != 3) {
    return fail(ErrorCategory::invalid_input,
                "tag set '" + std::string(text) + "' has " + std::to_string(parts.size()) +
                    " '-'-separated parts; expected 3: INTERPRETERS-ABIS-PLATFORMS (e.g. py2.py3-none-any)");
  }
  for (const auto interpreter : core::split(parts[0], '.')) {
    if (!is_python_identifier(interpreter)) {
      return fail(ErrorCategory::invalid_input, "tag set '" + std::string(text) + "' has interpreter '" +
                                                    std::string(interpreter) +
                                                    "', which is not an identifier (letters, digits and '_', "
                                                    "not starting with a digit), e.g. cp313 or py3");
    }
  }
  return TagSet{split_values(parts[0]), split_values(parts[1]), split_values(parts[2])};
}

Result<std::vector<Tag>> parse_tag(std::string_view text) {
  return parse_tag_set(text).map([](const TagSet& set) { return set.expand(); });
}

Result<TagSet> compress_tags(const std::vector<Tag>& tags) {
  if (tags.empty()) return fail(ErrorCategory::invalid_input, "no tags to compress");
  TagSet set;
  for (const auto& tag : tags) {
    add_unique(set.interpreters, tag.interpreter);
    add_unique(set.abis, tag.abi);
    add_unique(set.platforms, tag.platform);
  }
  const std::set<Tag> distinct(tags.begin(), tags.end());
  if (distinct.size() != set.interpreters.size() * set.abis.size() * set.platforms.size()) {
    return fail(ErrorCategory::invalid_input,
                "the " + std::to_string(distinct.size()) + " tags are not every combination of " +
                    set.to_string() + ", so one compressed tag set cannot express them; split them " +
                    "into several wheels or add the missing combinations");
  }
  return set;
}

std::string PythonVersion::to_string() const {
  return std::to_string(major) + (minor ? "." + std::to_string(*minor) : "");
}

std::string OsVersion::to_string() const {
  return std::to_string(major) + "." + std::to_string(minor);
}

Result<InterpreterTag> parse_interpreter_tag(std::string_view text) {
  const std::string tag = core::to_lower(text);
  const auto implementation = leading_letters(tag);
  std::string_view digits = std::string_view(tag).substr(implementation.size());
  const bool known =
      std::find(k_interpreters.begin(), k_interpreters.end(), implementation) != k_interpreters.end();
  if (implementation == "cp" && digits.size() > 1 && digits.back() == 't' &&
      parse_python_digits(digits.substr(0, digits.size() - 1))) {
    const std::string plain = tag.substr(0, tag.size() - 1);
    return fail(ErrorCategory::invalid_input, "interpreter tag '" + tag +
                                                  "': free-threading is marked in the ABI tag, not the "
                                                  "interpreter; use interpreter '" +
                                                  plain + "' with ABI '" + tag + "'");
  }
  const auto python = parse_python_digits(digits);
  if (!known || !python) {
    return fail(ErrorCategory::invalid_input,
                "interpreter tag '" + tag +
                    "' is not an implementation (py, cp, pp, ip, jy, graalpy) followed by its Python "
                    "version digits (e.g. cp313, py3)");
  }
  return InterpreterTag{std::string(implementation), python};
}

Result<AbiTag> parse_abi_tag(std::string_view text) {
  const std::string tag = core::to_lower(text);
  if (tag == "none") return AbiTag{AbiKind::none, std::nullopt, ""};
  if (tag == "abi3") return AbiTag{AbiKind::abi3, std::nullopt, ""};
  const auto letters = leading_letters(tag);
  if (letters == "cp") {
    std::string_view rest = std::string_view(tag).substr(2);
    const auto flags_at = rest.find_first_not_of("0123456789");
    const std::string_view digits = rest.substr(0, flags_at);
    const std::string_view flags = flags_at == std::string_view::npos ? "" : rest.substr(flags_at);
    const auto python = parse_python_digits(digits);
    const bool flags_ok = std::all_of(flags.begin(), flags.end(), [&](char c) {
      return std::string_view("dmut").find(c) != std::string_view::npos &&
             std::count(flags.begin(), flags.end(), c) == 1;
    });
    if (python && flags_ok) return AbiTag{AbiKind::cpython, python, std::string(flags)};
    return fail(ErrorCategory::invalid_input, "ABI tag '" + tag +
                                                  "' is not 'cp' + Python version + build flags d/m/u/t "
                                                  "(e.g. cp313, cp313t for free-threaded)");
  }
  const bool other = std::any_of(k_other_abi_prefixes.begin(), k_other_abi_prefixes.end(),
                                 [&](std::string_view prefix) { return letters == prefix; }) &&
                     tag.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789_") == std::string::npos;
  if (other) return AbiTag{AbiKind::other, std::nullopt, ""};
  std::string message = "unknown ABI tag '" + tag +
                        "': expected none, abi3, a CPython ABI (cp313, cp313t) or " +
                        "another implementation's (pypy310_pp73)";
  if (const auto guess = core::closest_match(tag, {"none", "abi3"}))
    message += "; did you mean '" + *guess + "'?";
  return fail(ErrorCategory::invalid_input, message);
}

std::string_view platform_kind_name(PlatformKind kind) {
  switch (kind) {
    case PlatformKind::any:
      return "any";
    case PlatformKind::generic_linux:
      return "linux";
    case PlatformKind::manylinux:
      return "manylinux";
    case PlatformKind::musllinux:
      return "musllinux";
    case PlatformKind::macos:
      return "macosx";
    case PlatformKind::windows:
      return "windows";
  }
  return "unknown";
}

Result<PlatformTag> parse_platform_tag(std::string_view text) {
  const std::string tag = core::to_lower(text);
  const std::string_view view = tag;
  if (tag == "any") return PlatformTag{};
  if (tag == "win32") return PlatformTag{PlatformKind::windows, "x86", std::nullopt, ""};
  if (tag == "win_amd64") return PlatformTag{PlatformKind::windows, "amd64", std::nullopt, ""};
  if (tag == "win_arm64") return PlatformTag{PlatformKind::windows, "arm64", std::nullopt, ""};
  if (view.rfind("manylinux_", 0) == 0) return parse_versioned(tag, view.substr(10), PlatformKind::manylinux);
  if (view.rfind("musllinux_", 0) == 0) return parse_versioned(tag, view.substr(10), PlatformKind::musllinux);
  if (view.rfind("macosx_", 0) == 0) return parse_versioned(tag, view.substr(7), PlatformKind::macos);
  for (const auto& legacy : legacy_manylinux()) {
    if (view.size() > legacy.alias.size() && view.rfind(legacy.alias, 0) == 0 &&
        view[legacy.alias.size()] == '_') {
      const auto arch = view.substr(legacy.alias.size() + 1);
      const auto status = check_arch(tag, arch, legacy.arches, legacy.alias);
      if (!status) return tl::unexpected(status.error());
      return PlatformTag{PlatformKind::manylinux, std::string(arch), legacy.glibc, std::string(legacy.alias)};
    }
  }
  if (view.rfind("linux_", 0) == 0) {
    const auto status = check_arch(tag, view.substr(6), k_linux_arches, "linux");
    if (!status) return tl::unexpected(status.error());
    return PlatformTag{PlatformKind::generic_linux, std::string(view.substr(6)), std::nullopt, ""};
  }
  std::string message = "unknown platform tag '" + tag +
                        "': expected any, linux_ARCH, manylinux_X_Y_ARCH (or manylinux1/2010/2014_ARCH), "
                        "musllinux_X_Y_ARCH, macosx_X_Y_ARCH, win32, win_amd64 or win_arm64";
  if (const auto guess = core::closest_match(tag, {"any", "win32", "win_amd64", "win_arm64"})) {
    message += "; did you mean '" + *guess + "'?";
  }
  return fail(ErrorCategory::invalid_input, message);
}

Status validate_tag(const Tag& tag) {
  const auto interpreter = parse_interpreter_tag(tag.interpreter);
  if (!interpreter) return tl::unexpected(tag_error(tag, interpreter.error().message()));
  const auto abi = parse_abi_tag(tag.abi);
  if (!abi) return tl::unexpected(tag_error(tag, abi.error().message()));
  const auto platform = parse_platform_tag(tag.platform);
  if (!platform) return tl::unexpected(tag_error(tag, platform.error().message()));

  // The rules below mirror packaging.tags.sys_tags: a tag it never yields is never installed by pip.
  const bool cpython = interpreter->implementation == "cp";
  if (interpreter->implementation == "py" && abi->kind != AbiKind::none) {
    return tl::unexpected(tag_error(tag, "a generic 'py' interpreter tag goes with ABI 'none'"));
  }
  if (abi->kind == AbiKind::cpython) {
    if (!cpython || interpreter->python != abi->python) {
      const std::string wanted = "cp" + std::to_string(abi->python->major) +
                                 (abi->python->minor ? std::to_string(*abi->python->minor) : "");
      return tl::unexpected(tag_error(tag, "ABI '" + tag.abi + "' needs interpreter '" + wanted + "'"));
    }
    if (abi->free_threaded() && abi->python < PythonVersion{3, 13}) {
      return tl::unexpected(tag_error(tag, "free-threaded CPython ABIs start with cp313t (CPython 3.13)"));
    }
  }
  if (abi->kind == AbiKind::abi3 && (!cpython || interpreter->python->major != 3)) {
    return tl::unexpected(tag_error(tag, "abi3 needs a CPython 3 interpreter tag such as cp39"));
  }
  if ((abi->kind == AbiKind::cpython || abi->kind == AbiKind::abi3) && platform->kind == PlatformKind::any) {
    return tl::unexpected(tag_error(tag, "a compiled ABI needs a concrete platform, not 'any'"));
  }
  if (platform->kind == PlatformKind::macos) {
    if (platform->version->major >= 11 && platform->version->minor != 0) {
      return tl::unexpected(tag_error(tag, "from macOS 11 pip only matches macosx_N_0; use macosx_" +
                                               std::to_string(platform->version->major) + "_0_" +
                                               platform->arch));
    }
    if (platform->arch == "arm64" && platform->version->major < 11) {
      return tl::unexpected(tag_error(tag, "arm64 macOS starts at 11.0; use macosx_11_0_arm64"));
    }
  }
  return {};
}

bool is_free_threaded(const Tag& tag) {
  const auto abi = parse_abi_tag(tag.abi);
  return abi && abi->free_threaded();
}

std::optional<PythonVersion> cpython_version(std::string_view tag) {
  const auto abi = parse_abi_tag(tag);
  if (!abi || abi->kind != AbiKind::cpython) return std::nullopt;
  return abi->python;
}

std::optional<OsVersion> glibc_version(std::string_view platform) {
  const auto parsed = parse_platform_tag(platform);
  if (!parsed || parsed->kind != PlatformKind::manylinux) return std::nullopt;
  return parsed->version;
}

}  // namespace relforge::packaging
