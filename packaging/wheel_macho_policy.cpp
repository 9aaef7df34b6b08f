#include "packaging/wheel_macho_policy.hpp"

#include <algorithm>

#include "core/text.hpp"
#include "packaging/tags.hpp"

namespace relforge::packaging {
namespace {

std::vector<std::string> archs_of(std::string_view arch, bool& any) {
  any = false;
  if (arch == "x86_64" || arch == "arm64" || arch == "i386" || arch == "ppc" || arch == "ppc64")
    return {std::string(arch)};
  if (arch == "universal2") return {"x86_64", "arm64"};
  if (arch == "intel") return {"i386", "x86_64"};
  if (arch == "fat" || arch == "fat32") return {"i386", "ppc"};
  if (arch == "fat3") return {"i386", "ppc", "x86_64"};
  if (arch == "fat64") return {"ppc64", "x86_64"};
  if (arch == "universal") {
    any = true;
    return {"i386", "ppc", "ppc64", "x86_64"};
  }
  return {};
}

// The folder of a path inside the wheel, "" at the top.
std::string folder_of(std::string_view path) {
  const auto slash = path.rfind('/');
  return slash == std::string_view::npos ? "" : std::string(path.substr(0, slash));
}

// `base` + "/" + `rest`, with "." and ".." resolved; nullopt when ".." climbs out of the wheel.
std::optional<std::string> join_inside(const std::string& base, std::string_view rest) {
  std::vector<std::string> parts;
  for (auto part : core::split(base, '/'))
    if (!part.empty()) parts.emplace_back(part);
  for (auto part : core::split(rest, '/')) {
    if (part.empty() || part == ".") continue;
    if (part == "..") {
      if (parts.empty()) return std::nullopt;
      parts.pop_back();
    } else {
      parts.emplace_back(part);
    }
  }
  return core::join(parts, "/");
}

bool is_system_path(std::string_view path) {
  return path.starts_with("/usr/lib/") || path.starts_with("/System/Library/");
}

// Expands @loader_path / @executable_path at the front of `path` to a folder inside the wheel.
// @executable_path is the folder of the program that was started: inside the wheel only when this
// file is itself that program; a library loaded by python sees python's folder, outside the wheel.
std::optional<std::string> expand_anchor(std::string_view path, std::string_view file, bool executable) {
  for (std::string_view anchor : {"@loader_path", "@executable_path"}) {
    if (!path.starts_with(anchor)) continue;
    const auto rest = path.substr(anchor.size());
    if (!rest.empty() && rest.front() != '/') return std::nullopt;
    if (anchor == "@executable_path" && !executable) return std::nullopt;
    return join_inside(folder_of(file), rest);
  }
  return std::nullopt;
}

// Where the loader would find `dylib`: "system" or a path in the wheel; nullopt when neither.
std::optional<std::string> resolve(const std::string& dylib, std::string_view file, const MachOSlice& slice,
                                   const std::set<std::string>& wheel_files) {
  if (is_system_path(dylib)) return std::string("system");
  auto found = [&](const std::optional<std::string>& candidate) {
    return candidate && wheel_files.count(*candidate) > 0;
  };
  if (dylib.starts_with("@rpath/")) {
    const auto rest = std::string_view(dylib).substr(6);
    for (const auto& rpath : slice.rpaths) {
      if (is_system_path(rpath + "/")) {
        if (is_system_path(rpath + std::string(rest))) return std::string("system");
        continue;
      }
      const auto base = expand_anchor(rpath, file, slice.executable);
      if (!base) continue;
      const auto candidate = join_inside(*base, rest);
      if (found(candidate)) return candidate;
    }
    return std::nullopt;
  }
  const auto candidate = expand_anchor(dylib, file, slice.executable);
  if (found(candidate)) return candidate;
  return std::nullopt;
}

}  // namespace

std::optional<MacosPolicy> macos_policy(std::string_view platform_tag) {
  const auto parsed = parse_platform_tag(platform_tag);
  if (!parsed || parsed->kind != PlatformKind::macos || !parsed->version) return std::nullopt;
  MacosPolicy policy;
  policy.platform_tag = std::string(platform_tag);
  policy.version = {parsed->version->major, parsed->version->minor, 0};
  policy.arch = parsed->arch;
  policy.archs = archs_of(parsed->arch, policy.any_arch);
  if (policy.archs.empty()) return std::nullopt;
  return policy;
}

std::vector<std::string> macho_violations(std::string_view file, const MachOFile& binary,
                                          const MacosPolicy& policy,
                                          const std::set<std::string>& wheel_files) {
  std::vector<std::string> out;
  const std::string where(file);
  std::vector<std::string> present;
  for (const auto& slice : binary.slices) present.push_back(slice.arch == "arm64e" ? "arm64" : slice.arch);
  const auto has = [&](const std::string& arch) {
    return std::find(present.begin(), present.end(), arch) != present.end();
  };
  std::vector<std::string> missing;
  for (const auto& arch : policy.archs)
    if (!has(arch)) missing.push_back(arch);
  const bool arch_ok = policy.any_arch ? missing.size() < policy.archs.size() : missing.empty();
  if (!arch_ok) {
    out.push_back(where + " holds " + core::join(present, "+") + " but " + policy.platform_tag + " needs " +
                  core::join(policy.any_arch ? policy.archs : missing, policy.any_arch ? " or " : " and ") +
                  ": build it for that architecture (ARCHFLAGS=\"-arch " +
                  core::join(policy.archs, " -arch ") + "\"), or tag the wheel for what it holds");
  }
  for (std::size_t i = 0; i < binary.slices.size(); ++i) {
    const auto& slice = binary.slices[i];
    const std::string arch = present[i];
    if (std::find(policy.archs.begin(), policy.archs.end(), arch) == policy.archs.end()) continue;
    // No arm64 Mac runs anything older than 11.0, so a macosx_10_9_universal2 tag asks 11.0 of that slice.
    MachOVersion limit = policy.version;
    if (arch == "arm64" && limit < MachOVersion{11, 0, 0}) limit = {11, 0, 0};
    if (slice.build_platform && *slice.build_platform != 1) {
      out.push_back(where + " (" + arch + ") is built for platform " + std::to_string(*slice.build_platform) +
                    " (not macOS): rebuild it for macOS");
    } else if (!slice.min_macos) {
      out.push_back(where + " (" + arch + ") records no minimum macOS (no LC_BUILD_VERSION or " +
                    "LC_VERSION_MIN_MACOSX): rebuild it with MACOSX_DEPLOYMENT_TARGET=" + limit.to_string());
    } else if (*slice.min_macos > limit) {
      out.push_back(where + " (" + arch + ") needs macOS " + slice.min_macos->to_string() +
                    ", newer than the " + limit.to_string() + " that " + policy.platform_tag +
                    " promises: rebuild it with " + "MACOSX_DEPLOYMENT_TARGET=" + limit.to_string() +
                    ", or tag the wheel macosx_" + std::to_string(slice.min_macos->major) + "_" +
                    std::to_string(slice.min_macos->major >= 11 ? 0 : slice.min_macos->minor) + "_" +
                    policy.arch);
    }
    std::set<std::string> reported;
    for (const auto& dylib : slice.dylibs) {
      if (reported.count(dylib.path) > 0 || resolve(dylib.path, file, slice, wheel_files)) continue;
      reported.insert(dylib.path);
      out.push_back(
          where + " (" + arch + ") loads " + dylib.path +
          ", which is neither a macOS system library (/usr/lib/, /System/Library/) nor found in " +
          "the wheel" + (slice.rpaths.empty() ? "" : " (rpaths: " + core::join(slice.rpaths, ", ") + ")") +
          ": bundle it in the wheel and point the load at it (delocate-wheel), or link it statically");
    }
  }
  return out;
}

}  // namespace relforge::packaging
