#include "packaging/wheel_pe_policy.hpp"

#include <algorithm>
#include <array>
#include <set>

#include "core/text.hpp"
#include "core/wildcard.hpp"

namespace relforge::packaging {
namespace {

// Windows' own DLLs (System32 on every Windows 10/11 and Server 2016+), lower-case. The API-set
// contracts (api-ms-win-*, ext-ms-win-*) are matched by prefix: the loader resolves them itself.
constexpr std::array k_system_dlls = {
    "advapi32.dll", "bcrypt.dll",   "cfgmgr32.dll", "comctl32.dll", "comdlg32.dll",   "crypt32.dll",
    "d3d11.dll",    "d3d12.dll",    "dbghelp.dll",  "dnsapi.dll",   "dwmapi.dll",     "dxgi.dll",
    "gdi32.dll",    "imm32.dll",    "iphlpapi.dll", "kernel32.dll", "kernelbase.dll", "mpr.dll",
    "msvcrt.dll",   "mswsock.dll",  "ncrypt.dll",   "netapi32.dll", "normaliz.dll",   "ntdll.dll",
    "ole32.dll",    "oleaut32.dll", "opengl32.dll", "powrprof.dll", "psapi.dll",      "rpcrt4.dll",
    "secur32.dll",  "setupapi.dll", "shcore.dll",   "shell32.dll",  "shlwapi.dll",    "ucrtbase.dll",
    "user32.dll",   "userenv.dll",  "uxtheme.dll",  "version.dll",  "winhttp.dll",    "wininet.dll",
    "winmm.dll",    "wintrust.dll", "wldap32.dll",  "ws2_32.dll",   "wtsapi32.dll"};

// The MSVC 14.x runtime: CPython's Windows installer ships vcruntime140.dll and vcruntime140_1.dll
// beside python.exe, and msvcp140*.dll / concrt140.dll / vcomp140.dll come with the same Visual C++
// 2015-2022 redistributable that every extension built with MSVC already requires.
constexpr std::array k_msvc_runtime_prefixes = {"vcruntime140", "msvcp140", "concrt140", "vcomp140"};

}  // namespace

std::optional<WindowsPolicy> windows_policy(std::string_view platform_tag,
                                            std::vector<std::string> allow_dlls) {
  std::uint16_t machine = 0;
  if (platform_tag == "win_amd64")
    machine = k_pe_machine_amd64;
  else if (platform_tag == "win32")
    machine = k_pe_machine_i386;
  else if (platform_tag == "win_arm64")
    machine = k_pe_machine_arm64;
  else
    return std::nullopt;
  return WindowsPolicy{std::string(platform_tag), machine, std::move(allow_dlls)};
}

bool is_windows_system_dll(std::string_view name) {
  const auto lower = core::to_lower(name);
  if (lower.starts_with("api-ms-win-") || lower.starts_with("ext-ms-win-")) return lower.ends_with(".dll");
  if (std::find(k_system_dlls.begin(), k_system_dlls.end(), lower) != k_system_dlls.end()) return true;
  for (std::string_view prefix : k_msvc_runtime_prefixes) {
    if (!lower.starts_with(prefix) || !lower.ends_with(".dll")) continue;
    // vcruntime140.dll, vcruntime140_1.dll, msvcp140_atomic_wait.dll: the prefix, then '.' or '_'.
    const char next = lower[prefix.size()];
    if (next == '.' || next == '_') return true;
  }
  return false;
}

bool dll_glob_match(std::string_view glob, std::string_view name) {
  return core::wildcard_match(core::to_lower(glob), core::to_lower(name));
}

std::vector<std::string> pe_violations(std::string_view file, const PeImage& image,
                                       const WindowsPolicy& policy, const std::vector<std::string>& bundled) {
  std::vector<std::string> out;
  const std::string where(file);
  if (image.machine != policy.machine) {
    out.push_back(where + " is built for " + pe_machine_name(image.machine) + ", but " + policy.platform_tag +
                  " needs " + pe_machine_name(policy.machine) + ": rebuild it for " +
                  pe_machine_name(policy.machine) + " or tag the wheel for its machine");
  }
  std::set<std::string> seen;
  std::set<std::string> shipped;
  for (const auto& name : bundled) shipped.insert(core::to_lower(name));
  auto check = [&](const std::string& dll, const char* how) {
    const auto lower = core::to_lower(dll);
    if (!seen.insert(lower).second || shipped.count(lower) > 0 || is_windows_system_dll(dll)) return;
    for (const auto& glob : policy.allow_dlls)
      if (dll_glob_match(glob, dll)) return;
    out.push_back(where + " " + how + " " + dll +
                  ", which is neither a Windows system DLL nor in the wheel: " + "bundle " + dll +
                  " in the wheel (delvewheel repair), or allow it with --allow-dll '" + dll +
                  "' when the user installs it (a driver or toolkit DLL)");
  };
  for (const auto& dll : image.imports) check(dll, "imports");
  for (const auto& dll : image.delay_imports) check(dll, "delay-loads");
  return out;
}

}  // namespace relforge::packaging
