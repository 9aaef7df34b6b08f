#include "packaging/wheel_elf_policy.hpp"

#include <algorithm>
#include <charconv>

#include "core/text.hpp"
#include "packaging/tags.hpp"

namespace relforge::packaging {
namespace {

// "2.28.1" → {2, 28, 1}; compared lexicographically as numbers.
std::vector<int> numbers(std::string_view text) {
  std::vector<int> out;
  for (auto part : core::split(text, '.')) {
    int value = 0;
    std::from_chars(part.data(), part.data() + part.size(), value);
    out.push_back(value);
  }
  return out;
}

bool newer_than(std::string_view version, std::string_view limit) {
  return numbers(version) > numbers(limit);
}

// The manylinux whitelist shared by every manylinux_2_X policy (auditwheel's policy.json).
const std::vector<std::string> k_allowed = {
    "libgcc_s.so.1",    "libstdc++.so.6",       "libm.so.6",
    "libdl.so.2",       "librt.so.1",           "libc.so.6",
    "libnsl.so.1",      "libutil.so.1",         "libpthread.so.0",
    "libresolv.so.2",   "libX11.so.6",          "libXext.so.6",
    "libXrender.so.1",  "libICE.so.6",          "libSM.so.6",
    "libGL.so.1",       "libgobject-2.0.so.0",  "libgthread-2.0.so.0",
    "libglib-2.0.so.0", "ld-linux-x86-64.so.2", "ld-linux-aarch64.so.1",
    "libz.so.1",        "libexpat.so.1"};

// Newest libstdc++ symbol versions of the toolchain that shipped with each glibc baseline.
struct CxxLimits {
  int glibc_minor;
  const char* glibcxx;
  const char* cxxabi;
};
constexpr CxxLimits k_cxx_limits[] = {
    {5, "3.4.8", "1.3.1"},    {12, "3.4.13", "1.3.3"},  {17, "3.4.19", "1.3.7"},
    {24, "3.4.22", "1.3.10"}, {28, "3.4.25", "1.3.11"}, {31, "3.4.28", "1.3.12"},
    {34, "3.4.29", "1.3.13"}, {35, "3.4.30", "1.3.13"}, {39, "3.4.32", "1.3.14"}};

}  // namespace

std::optional<ManylinuxPolicy> manylinux_policy(std::string_view platform_tag) {
  // The legacy aliases (manylinux2014_x86_64 is glibc 2.17) are checked as their glibc version:
  // skipping them would let any library through under an old name.
  const auto parsed = parse_platform_tag(platform_tag);
  if (!parsed || parsed->kind != PlatformKind::manylinux || !parsed->version || parsed->version->major != 2)
    return std::nullopt;
  const int minor = static_cast<int>(parsed->version->minor);
  ManylinuxPolicy policy{std::string(platform_tag), minor, "3.4", "1.3", k_allowed};
  for (const auto& limits : k_cxx_limits) {
    if (limits.glibc_minor <= minor) {
      policy.glibcxx_max = limits.glibcxx;
      policy.cxxabi_max = limits.cxxabi;
    }
  }
  return policy;
}

std::vector<std::string> policy_violations(std::string_view file, const ElfRequirements& requirements,
                                           const ManylinuxPolicy& policy,
                                           const std::vector<std::string>& bundled) {
  std::vector<std::string> out;
  const std::string where(file);
  const std::string glibc_max = "2." + std::to_string(policy.glibc_minor);
  auto limit_of = [&](std::string_view version) -> std::optional<std::pair<std::string, std::string>> {
    for (const auto& [prefix, limit] : {std::pair<std::string, std::string>{"GLIBC_", glibc_max},
                                        {"GLIBCXX_", policy.glibcxx_max},
                                        {"CXXABI_", policy.cxxabi_max}}) {
      if (version.substr(0, prefix.size()) == prefix && version.size() > prefix.size() &&
          std::isdigit(static_cast<unsigned char>(version[prefix.size()])) &&
          newer_than(version.substr(prefix.size()), limit))
        return std::make_pair(prefix, limit);
    }
    return std::nullopt;
  };
  std::vector<std::string> reported;
  for (const auto& symbol : requirements.symbols) {
    const auto limit = limit_of(symbol.version);
    if (!limit || std::find(reported.begin(), reported.end(), symbol.version) != reported.end()) continue;
    reported.push_back(symbol.version);
    out.push_back(where + " needs " + symbol.symbol + "@" + symbol.version + ", newer than " + limit->first +
                  limit->second + " that " + policy.platform_tag + " allows");
  }
  for (const auto& version : requirements.versions) {
    if (!limit_of(version) || std::find(reported.begin(), reported.end(), version) != reported.end())
      continue;
    reported.push_back(version);
    out.push_back(where + " needs symbol version " + version + ", newer than " + policy.platform_tag +
                  " allows");
  }
  for (const auto& library : requirements.needed) {
    const bool allowed = std::find(policy.allowed_libraries.begin(), policy.allowed_libraries.end(),
                                   library) != policy.allowed_libraries.end() ||
                         std::find(bundled.begin(), bundled.end(), library) != bundled.end();
    if (!allowed) {
      out.push_back(where + " links " + library + ", which " + policy.platform_tag +
                    " does not allow: bundle it in the wheel or depend on the pip package that ships it");
    }
  }
  return out;
}

}  // namespace relforge::packaging
