#pragma once
// Test helper: real Windows DLLs (Debian's mingw-w64) and macOS dylibs (clang -target ...-apple-macos
// with ld64.lld) built at test time, and universal files assembled by writing the fat header.
// A missing tool is a test failure naming the package scripts/install-deps.sh installs, never a skip.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "tests/support/run.hpp"

namespace relforge::test {

inline bool have_tool(const std::string& tool, const std::string& package, const std::string& probe = "") {
  const std::string command = probe.empty() ? "command -v " + shell_quote(tool) : probe;
  if (run_shell(command).exit_code == 0) return true;
  ADD_FAILURE() << tool << " is not installed: run scripts/install-deps.sh (Debian package " << package
                << "); these tests build real binaries with it and do not skip";
  return false;
}

// Compiles `source` (C) with `command` (the compiler and flags; output, input and `libraries`
// appended); returns the file's bytes, or "" after a test failure naming the compiler's message.
inline std::string compile(const std::filesystem::path& dir, const std::string& name,
                           const std::string& command, const std::string& source,
                           const std::string& libraries = "") {
  std::filesystem::create_directories(dir);
  const auto src = dir / (name + ".c");
  std::ofstream(src, std::ios::binary) << source;
  const auto out = dir / name;
  const auto result = run_shell(command + " -o " + shell_quote(out.string()) + " " +
                                shell_quote(src.string()) + " " + libraries);
  if (result.exit_code != 0) {
    ADD_FAILURE() << "building " << name << " failed: " << command << "\n" << result.err;
    return "";
  }
  return slurp(out);
}

// A Windows DLL built with mingw-w64: x86_64 (or i686 when `i686`), `extra` appended (-L, -l).
inline std::string mingw_dll(const std::filesystem::path& dir, const std::string& name,
                             const std::string& source, bool i686 = false, const std::string& extra = "") {
  const std::string gcc = i686 ? "i686-w64-mingw32-gcc" : "x86_64-w64-mingw32-gcc";
  if (!have_tool(gcc, "mingw-w64")) return "";
  return compile(dir, name, gcc + " -shared -s -O1 -L" + shell_quote(dir.string()), source, extra);
}

// The import library of a DLL that is not built (only named): links `-l<stem>` against `dll`.
inline bool mingw_import_library(const std::filesystem::path& dir, const std::string& dll,
                                 const std::string& symbol) {
  if (!have_tool("x86_64-w64-mingw32-dlltool", "mingw-w64")) return false;
  const auto stem = dll.substr(0, dll.find('.'));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / (stem + ".def")) << "LIBRARY " << dll << "\nEXPORTS\n" << symbol << "\n";
  const auto result =
      run_shell("x86_64-w64-mingw32-dlltool -d " + shell_quote((dir / (stem + ".def")).string()) + " -D " +
                dll + " -l " + shell_quote((dir / ("lib" + stem + ".a")).string()));
  EXPECT_EQ(result.exit_code, 0) << result.err;
  return result.exit_code == 0;
}

// A text stub of libSystem (ld64.lld links against .tbd files), so no macOS SDK is needed.
inline std::filesystem::path libsystem_stub(const std::filesystem::path& dir) {
  std::filesystem::create_directories(dir);
  const auto path = dir / "libSystem.tbd";
  std::ofstream(path)
      << "--- !tapi-tbd\ntbd-version: 4\ntargets: [ x86_64-macos, arm64-macos ]\n"
         "install-name: '/usr/lib/libSystem.B.dylib'\ncurrent-version: 1319\nexports:\n"
         "  - targets: [ x86_64-macos, arm64-macos ]\n    symbols: [ _malloc, dyld_stub_binder ]\n...\n";
  return path;
}

// A Mach-O dylib built by clang for `target` (arm64-apple-macos11, x86_64-apple-macos10.9) and
// linked by ld64.lld against libSystem; `extra` adds flags (-install_name, -rpath, other dylibs).
inline std::string macho_dylib(const std::filesystem::path& dir, const std::string& name,
                               const std::string& source, const std::string& target,
                               const std::string& extra = "") {
  // clang runs the ld64.lld of its own LLVM (Debian names the one on PATH ld64.lld-14).
  if (!have_tool("clang", "clang") ||
      !have_tool("ld64.lld", "lld", "test -x \"$(clang -print-prog-name=ld64.lld)\""))
    return "";
  const auto stub = libsystem_stub(dir);
  return compile(dir, name,
                 "clang -target " + target + " -shared -fuse-ld=lld -nostdlib -O1 " + extra + " " +
                     shell_quote(stub.string()),
                 source);
}

// A universal file: the fat header (big-endian as Apple writes it, or byte-swapped) and the slices
// at 4 KiB alignment. `slices` holds each slice's CPU type and bytes.
inline std::string fat_binary(const std::vector<std::pair<std::uint32_t, std::string>>& slices,
                              bool big_endian = true) {
  auto put32 = [&](std::string& out, std::uint32_t value) {
    for (int i = 0; i < 4; ++i) {
      const int shift = big_endian ? 24 - 8 * i : 8 * i;
      out.push_back(static_cast<char>((value >> shift) & 0xff));
    }
  };
  std::string out;
  put32(out, 0xcafebabe);
  put32(out, static_cast<std::uint32_t>(slices.size()));
  std::uint32_t offset = 4096;
  std::vector<std::uint32_t> offsets;
  for (const auto& [cputype, bytes] : slices) {
    offsets.push_back(offset);
    put32(out, cputype);
    put32(out, 0);  // cpusubtype: ALL
    put32(out, offset);
    put32(out, static_cast<std::uint32_t>(bytes.size()));
    put32(out, 12);  // 2^12 alignment
    offset += (static_cast<std::uint32_t>(bytes.size()) + 4095) / 4096 * 4096;
  }
  for (std::size_t i = 0; i < slices.size(); ++i) {
    out.resize(offsets[i], '\0');
    out += slices[i].second;
  }
  return out;
}

inline constexpr std::uint32_t k_cpu_x86_64 = 0x01000007;
inline constexpr std::uint32_t k_cpu_arm64 = 0x0100000c;

}  // namespace relforge::test
