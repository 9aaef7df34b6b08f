#include "packaging/supported_tags.hpp"

#include <array>
#include <optional>
#include <utility>

namespace relforge::packaging {
namespace {

using Pair = std::pair<unsigned, unsigned>;

bool short_digits(std::string_view text) {
  if (text.empty() || text.size() > 6) return false;
  for (const char c : text) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

unsigned to_unsigned(std::string_view digits) {
  unsigned value = 0;
  for (const char c : digits) value = value * 10 + static_cast<unsigned>(c - '0');
  return value;
}

// "2_28_x86_64" -> (2, 28) and "x86_64".
std::optional<std::pair<Pair, std::string>> split_os_version(std::string_view rest) {
  const auto first = rest.find('_');
  if (first == std::string_view::npos) return std::nullopt;
  const auto second = rest.find('_', first + 1);
  if (second == std::string_view::npos || second + 1 >= rest.size()) return std::nullopt;
  const auto major = rest.substr(0, first), minor = rest.substr(first + 1, second - first - 1);
  if (!short_digits(major) || !short_digits(minor)) return std::nullopt;
  return std::pair{Pair{to_unsigned(major), to_unsigned(minor)}, std::string(rest.substr(second + 1))};
}

std::string nodot(unsigned major, unsigned minor) {
  return std::to_string(major) + std::to_string(minor);
}

// _manylinux.platform_tags(archs) on a machine with glibc `glibc` (every version up to it counts
// as compatible, as without a _manylinux module).
void manylinux_tags(const std::vector<std::string>& archs, Pair glibc, std::vector<std::string>& out) {
  Pair too_old{2, 16};
  for (const auto& arch : archs) {
    if (arch == "x86_64" || arch == "i686") too_old = {2, 4};
  }
  std::vector<Pair> maxima = {glibc};
  for (unsigned major = glibc.first - 1; glibc.first >= 1 && major > 1; --major)
    maxima.push_back({major, 50});
  for (const auto& arch : archs) {
    for (const auto& [major, max_minor] : maxima) {
      const long min_minor = major == too_old.first ? static_cast<long>(too_old.second) : -1;
      for (long minor = max_minor; minor > min_minor; --minor) {
        const auto m = static_cast<unsigned>(minor);
        out.push_back("manylinux_" + std::to_string(major) + "_" + std::to_string(m) + "_" + arch);
        if (major == 2 && m == 17) out.push_back("manylinux2014_" + arch);
        if (major == 2 && m == 12) out.push_back("manylinux2010_" + arch);
        if (major == 2 && m == 5) out.push_back("manylinux1_" + arch);
      }
    }
  }
}

// tags._mac_binary_formats.
std::vector<std::string> mac_binary_formats(Pair version, const std::string& arch) {
  std::vector<std::string> formats = {arch};
  if (arch == "x86_64") {
    if (version < Pair{10, 4}) return {};
    formats.insert(formats.end(), {"intel", "fat64", "fat3"});
  } else if (arch == "i386") {
    if (version < Pair{10, 4}) return {};
    formats.insert(formats.end(), {"intel", "fat3", "fat"});
  } else if (arch == "ppc64") {
    if (version > Pair{10, 5} || version < Pair{10, 4}) return {};
    formats.emplace_back("fat64");
  } else if (arch == "ppc") {
    if (version > Pair{10, 6}) return {};
    formats.insert(formats.end(), {"fat3", "fat"});
  }
  if (arch == "arm64" || arch == "x86_64") formats.emplace_back("universal2");
  if (arch == "x86_64" || arch == "i386" || arch == "ppc64" || arch == "ppc" || arch == "intel") {
    formats.emplace_back("universal");
  }
  return formats;
}

// tags.mac_platforms(version, arch).
void mac_platforms(Pair version, const std::string& arch, std::vector<std::string>& out) {
  const auto emit = [&](unsigned major, unsigned minor, const std::string& format) {
    out.push_back("macosx_" + std::to_string(major) + "_" + std::to_string(minor) + "_" + format);
  };
  if (version >= Pair{10, 0} && version < Pair{11, 0}) {
    for (long minor = version.second; minor >= 0; --minor) {
      const auto m = static_cast<unsigned>(minor);
      for (const auto& format : mac_binary_formats({10, m}, arch)) emit(10, m, format);
    }
  }
  if (version >= Pair{11, 0}) {
    for (unsigned major = version.first; major > 10; --major) {
      for (const auto& format : mac_binary_formats({major, 0}, arch)) emit(major, 0, format);
    }
    for (unsigned minor = 16; minor > 3; --minor) {
      if (arch == "x86_64") {
        for (const auto& format : mac_binary_formats({10, minor}, arch)) emit(10, minor, format);
      } else {
        emit(10, minor, "universal2");
      }
    }
  }
}

std::vector<std::string> linux_archs(const std::string& arch) {
  if (arch == "armv8l") return {"armv8l", "armv7l"};
  return {arch};
}

tl::unexpected<Error> bad_platform(std::string_view platform, std::string_view form) {
  return fail(ErrorCategory::invalid_input,
              "platform '" + std::string(platform) + "' is not of the form " + std::string(form));
}

}  // namespace

Result<TagTarget> parse_python_target(std::string_view text, std::string platform) {
  std::string_view rest = text;
  if (rest.starts_with("cp")) rest.remove_prefix(2);
  TagTarget target;
  target.platform = std::move(platform);
  if (rest.ends_with("t")) {
    target.free_threaded = true;
    rest.remove_suffix(1);
  }
  std::string_view major, minor;
  if (const auto dot = rest.find('.'); dot != std::string_view::npos) {
    major = rest.substr(0, dot);
    minor = rest.substr(dot + 1);
  } else if (rest.size() >= 2) {
    major = rest.substr(0, 1);
    minor = rest.substr(1);
  }
  if (!short_digits(major) || !short_digits(minor)) {
    return fail(ErrorCategory::invalid_input, "python version '" + std::string(text) +
                                                  "' is not of the form MAJOR.MINOR or MAJOR.MINORt "
                                                  "(free-threaded), e.g. 3.13 or 3.13t");
  }
  target.major = to_unsigned(major);
  target.minor = to_unsigned(minor);
  if (target.free_threaded && (target.major < 3 || (target.major == 3 && target.minor < 13))) {
    return fail(ErrorCategory::invalid_input,
                "python version '" + std::string(text) + "': free-threaded CPython starts at 3.13 (3.13t)");
  }
  return target;
}

Result<std::vector<std::string>> expand_platform(std::string_view platform) {
  std::vector<std::string> out;
  const auto linux_with = [&](const std::string& arch, std::optional<Pair> glibc, std::optional<Pair> musl) {
    const auto archs = linux_archs(arch);
    for (const auto& a : archs) out.push_back("linux_" + a);
    if (glibc) manylinux_tags(archs, *glibc, out);
    if (musl) {
      for (const auto& a : archs) {
        for (long minor = musl->second; minor >= 0; --minor) {
          out.push_back("musllinux_" + std::to_string(musl->first) + "_" + std::to_string(minor) + "_" + a);
        }
      }
    }
  };
  constexpr std::array<std::pair<std::string_view, Pair>, 3> k_legacy = {
      {{"manylinux2014_", {2, 17}}, {"manylinux2010_", {2, 12}}, {"manylinux1_", {2, 5}}}};
  for (const auto& [prefix, glibc] : k_legacy) {
    if (platform.starts_with(prefix) && platform.size() > prefix.size()) {
      linux_with(std::string(platform.substr(prefix.size())), glibc, std::nullopt);
      return out;
    }
  }
  if (platform.starts_with("manylinux_")) {
    const auto parts = split_os_version(platform.substr(10));
    if (!parts) return bad_platform(platform, "manylinux_GLIBCMAJOR_GLIBCMINOR_ARCH (manylinux_2_28_x86_64)");
    linux_with(parts->second, parts->first, std::nullopt);
    return out;
  }
  if (platform.starts_with("musllinux_")) {
    const auto parts = split_os_version(platform.substr(10));
    if (!parts) return bad_platform(platform, "musllinux_MUSLMAJOR_MUSLMINOR_ARCH (musllinux_1_2_x86_64)");
    linux_with(parts->second, std::nullopt, parts->first);
    return out;
  }
  if (platform.starts_with("macosx_")) {
    const auto parts = split_os_version(platform.substr(7));
    if (!parts) return bad_platform(platform, "macosx_MAJOR_MINOR_ARCH (macosx_14_0_arm64)");
    mac_platforms(parts->first, parts->second, out);
    if (out.empty()) {
      return fail(ErrorCategory::invalid_input, "platform '" + std::string(platform) +
                                                    "': no macOS binary format of that version and "
                                                    "architecture is compatible with anything");
    }
    return out;
  }
  if (platform.empty() || platform.find_first_of("-. ") != std::string_view::npos) {
    return bad_platform(platform, "a platform tag (win_amd64, linux_x86_64, manylinux_2_28_x86_64, ...)");
  }
  out.emplace_back(platform);
  return out;
}

Result<std::vector<Tag>> supported_tags(const TagTarget& target) {
  auto platforms = expand_platform(target.platform);
  if (!platforms) return tl::unexpected(platforms.error());
  std::vector<Tag> tags;
  const std::string interpreter = "cp" + nodot(target.major, target.minor);
  const std::string abi = interpreter + (target.free_threaded ? "t" : "");
  // cpython_tags(python_version, abis=[abi], platforms)
  for (const auto& p : *platforms) tags.push_back({interpreter, abi, p});
  const bool stable = target.major > 3 || (target.major == 3 && target.minor >= 2);
  const std::string stable_abi = target.free_threaded ? "abi3t" : "abi3";
  if (stable) {
    for (const auto& p : *platforms) tags.push_back({interpreter, stable_abi, p});
  }
  for (const auto& p : *platforms) tags.push_back({interpreter, "none", p});
  if (stable) {
    for (unsigned minor = target.minor - 1; target.minor >= 1 && minor > 1; --minor) {
      for (const auto& p : *platforms) tags.push_back({"cp" + nodot(target.major, minor), stable_abi, p});
    }
  }
  // compatible_tags(python_version, interpreter, platforms)
  std::vector<std::string> pythons = {"py" + nodot(target.major, target.minor),
                                      "py" + std::to_string(target.major)};
  for (long minor = static_cast<long>(target.minor) - 1; minor >= 0; --minor) {
    pythons.push_back("py" + nodot(target.major, static_cast<unsigned>(minor)));
  }
  for (const auto& py : pythons) {
    for (const auto& p : *platforms) tags.push_back({py, "none", p});
  }
  tags.push_back({interpreter, "none", "any"});
  for (const auto& py : pythons) tags.push_back({py, "none", "any"});
  return tags;
}

}  // namespace relforge::packaging
