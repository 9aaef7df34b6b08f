#pragma once
// The Windows wheel policy: each PE file's machine matches the platform tag (win_amd64, win32,
// win_arm64) and every DLL it imports (delay-loaded ones too) is a Windows system DLL, a DLL
// shipped in the same wheel, or on the allow-list (case-insensitive globs such as cudart64_*.dll).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "packaging/pe.hpp"

namespace relforge::packaging {

struct WindowsPolicy {
  std::string platform_tag;             // "win_amd64"
  std::uint16_t machine = 0;            // k_pe_machine_amd64
  std::vector<std::string> allow_dlls;  // globs, matched case-insensitively
};

// The policy of win32, win_amd64 or win_arm64; nullopt for any other tag.
std::optional<WindowsPolicy> windows_policy(std::string_view platform_tag,
                                            std::vector<std::string> allow_dlls);

// True for the DLLs every supported Windows (10+, Server 2016+) has, plus the MSVC runtime that
// CPython's own installer puts beside python.exe (see docs/wheels.md for the list and why).
bool is_windows_system_dll(std::string_view name);

// `*` any run of characters, `?` one character; case-insensitive, as Windows matches file names.
bool dll_glob_match(std::string_view glob, std::string_view name);

// Every violation as a sentence naming `file` and the machine or DLL with what to do.
// `bundled` lists the base names of every .dll/.pyd in the wheel (compared case-insensitively).
std::vector<std::string> pe_violations(std::string_view file, const PeImage& image,
                                       const WindowsPolicy& policy, const std::vector<std::string>& bundled);

}  // namespace relforge::packaging
