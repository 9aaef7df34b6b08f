#include "packaging/wheel_binary_check.hpp"

#include <algorithm>
#include <set>

#include "core/text.hpp"
#include "packaging/macho.hpp"
#include "packaging/pe.hpp"
#include "packaging/wheel_entry_image.hpp"
#include "packaging/wheel_macho_policy.hpp"
#include "packaging/wheel_name.hpp"
#include "packaging/wheel_pe_policy.hpp"

namespace relforge::packaging {
namespace {

std::string base_name(const std::string& name) {
  const auto slash = name.rfind('/');
  return slash == std::string::npos ? name : name.substr(slash + 1);
}

bool has_suffix(const std::string& name, std::initializer_list<const char*> suffixes) {
  const auto lower = core::to_lower(name);
  return std::any_of(suffixes.begin(), suffixes.end(), [&](const char* s) { return lower.ends_with(s); });
}

bool named_pe(const std::string& name) {
  return has_suffix(name, {".dll", ".pyd", ".exe"});
}
bool named_macho(const std::string& name) {
  return has_suffix(name, {".so", ".dylib"});
}

bool looks_pe(std::string_view head) {
  return head.size() >= 2 && head[0] == 'M' && head[1] == 'Z';
}

bool looks_macho(std::string_view head) {
  if (head.size() < 4) return false;
  const auto b = [&](int i) { return static_cast<unsigned char>(head[static_cast<std::size_t>(i)]); };
  const std::uint32_t big = (b(0) << 24) | (b(1) << 16) | (b(2) << 8) | b(3);
  const std::uint32_t little = (b(3) << 24) | (b(2) << 16) | (b(1) << 8) | b(0);
  for (const std::uint32_t magic : {0xfeedfaceu, 0xfeedfacfu, 0xcafebabeu, 0xcafebabfu})
    if (big == magic || little == magic) return true;
  return false;
}

}  // namespace

std::size_t BinaryCheck::finding_count() const {
  std::size_t count = 0;
  for (const auto& binary : binaries) count += binary.findings.size();
  return count;
}

Result<BinaryCheck> check_wheel_binaries(const ZipReader& reader, const std::vector<std::string>& platforms,
                                         const BinaryCheckOptions& options) {
  BinaryCheck check;
  std::vector<WindowsPolicy> windows;
  std::vector<MacosPolicy> macos;
  for (const auto& tag : platforms) {
    if (auto policy = windows_policy(tag, options.allow_dlls)) {
      windows.push_back(std::move(*policy));
      check.platforms.push_back(tag);
    } else if (auto mac = macos_policy(tag)) {
      macos.push_back(std::move(*mac));
      check.platforms.push_back(tag);
    }
  }
  if (windows.empty() && macos.empty()) return check;
  std::vector<std::string> bundled_dlls;
  std::set<std::string> files;
  for (const auto& entry : reader.entries()) {
    if (entry.name.empty() || entry.name.back() == '/') continue;
    files.insert(entry.name);
    if (has_suffix(entry.name, {".dll", ".pyd"})) bundled_dlls.push_back(base_name(entry.name));
  }
  for (const auto& entry : reader.entries()) {
    if (entry.name.empty() || entry.name.back() == '/') continue;
    const bool want_pe = !windows.empty(), want_macho = !macos.empty();
    auto image = open_entry_image(reader, entry);
    if (!image) return tl::unexpected(image.error().with_context(entry.name));
    // Only the magic is inflated for files that are not binaries.
    if (auto ok = (*image)->cover_prefix(8); !ok) return tl::unexpected(ok.error().with_context(entry.name));
    const std::string_view head((*image)->data(), std::min<std::uint64_t>((*image)->size(), 8));
    const bool pe = want_pe && (looks_pe(head) || named_pe(entry.name));
    const bool macho = want_macho && (looks_macho(head) || named_macho(entry.name));
    if (!pe && !macho) continue;
    if (pe) {
      BinaryReport report{entry.name, "pe", {}, {}, {}, {}};
      // Inflated only as far as the reader asks: headers and the sections with the import tables.
      auto parsed = read_pe(**image);
      if (!parsed) {
        report.findings.push_back(entry.name + ": " + parsed.error().message() +
                                  ": rebuild it (a file the check cannot read is never passed)");
      } else if (!*parsed) {
        // Named like a Windows binary but not one: only a named file is reported.
        if (!named_pe(entry.name)) continue;
        report.findings.push_back(entry.name + " is named like a Windows binary but is not a PE file: " +
                                  "remove it or rebuild it for Windows");
      } else {
        const auto& pe_image = **parsed;
        report.archs.push_back(pe_machine_name(pe_image.machine));
        report.imports = pe_image.imports;
        for (const auto& dll : pe_image.delay_imports) report.imports.push_back(dll + " (delay)");
        for (const auto& policy : windows) {
          auto found = pe_violations(entry.name, pe_image, policy, bundled_dlls);
          report.findings.insert(report.findings.end(), found.begin(), found.end());
        }
      }
      check.binaries.push_back(std::move(report));
      continue;
    }
    BinaryReport report{entry.name, "macho", {}, {}, {}, {}};
    auto parsed = read_macho(**image);
    if (!parsed) {
      report.findings.push_back(entry.name + ": " + parsed.error().message() +
                                ": rebuild it (a file the check cannot read is never passed)");
    } else if (!*parsed) {
      if (!named_macho(entry.name)) continue;
      report.findings.push_back(entry.name + " is named like a macOS library but is not a Mach-O file: " +
                                "remove it or rebuild it for macOS");
    } else {
      std::set<std::string> imports;
      for (const auto& slice : (*parsed)->slices) {
        report.archs.push_back(slice.arch);
        if (slice.min_macos) report.min_macos.push_back(slice.arch + " " + slice.min_macos->to_string());
        for (const auto& dylib : slice.dylibs)
          if (imports.insert(dylib.path).second) report.imports.push_back(dylib.path);
      }
      for (const auto& policy : macos) {
        auto found = macho_violations(entry.name, **parsed, policy, files);
        report.findings.insert(report.findings.end(), found.begin(), found.end());
      }
    }
    check.binaries.push_back(std::move(report));
  }
  return check;
}

Result<BinaryCheck> check_wheel_binaries(const std::filesystem::path& wheel,
                                         const BinaryCheckOptions& options) {
  // A file name that is no PEP 427 name carries no platform pip would install it for: nothing to check.
  auto name = parse_wheel_filename(wheel.filename().string());
  if (!name) return BinaryCheck{};
  auto reader = ZipReader::open(wheel);
  if (!reader) return tl::unexpected(reader.error());
  return check_wheel_binaries(*reader, name->tag_set.platforms, options);
}

Status binary_check_status(const std::string& wheel, const BinaryCheck& check) {
  std::vector<std::string> findings;
  for (const auto& binary : check.binaries)
    findings.insert(findings.end(), binary.findings.begin(), binary.findings.end());
  if (findings.empty()) return {};
  return fail(ErrorCategory::integrity, "'" + wheel + "' fails the " + core::join(check.platforms, ", ") +
                                            " check (" + std::to_string(findings.size()) + " finding" +
                                            (findings.size() == 1 ? "" : "s") + "):\n  " +
                                            core::join(findings, "\n  "));
}

}  // namespace relforge::packaging
