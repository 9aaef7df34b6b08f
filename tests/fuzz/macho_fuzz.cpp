// Mach-O reading for the macOS wheel policy: any bytes are "not Mach-O", an integrity error, or
// the slices with their archs, minimum macOS, dylibs and rpaths; those then go through the policy
// of a few macOS tags.
// Invariants: reading only the covered bytes (the rest zero, as a zip entry inflated on request)
// gives what reading the whole bytes gives; errors are integrity errors; a thin file has one slice, a
// universal one at most 32 with no architecture twice; every path is non-empty printable ASCII; every
// violation names the file.
#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <string_view>

#include "packaging/macho.hpp"
#include "packaging/wheel_macho_policy.hpp"
#include "tests/fuzz/fuzz_check.hpp"
#include "tests/packaging/zeroed_image.hpp"

namespace {

namespace pk = relforge::packaging;

void check_path(const std::string& path) {
  FUZZ_CHECK(!path.empty() && path.size() <= 1024, "a load path is 1 to 1024 bytes");
  for (const char c : path) FUZZ_CHECK(c >= 0x20 && c <= 0x7e, "a load path is printable ASCII");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  const auto file = pk::read_macho(bytes);
  relforge::test::ZeroedImage lazy_image{std::string(bytes)};
  const auto lazy = pk::read_macho(lazy_image);
  FUZZ_CHECK(static_cast<bool>(lazy) == static_cast<bool>(file),
             "the lazy read fails exactly when the whole read does");
  if (lazy && file) {
    FUZZ_CHECK(lazy->has_value() == file->has_value(), "both reads agree the bytes are Mach-O");
    if (lazy->has_value()) {
      FUZZ_CHECK((*lazy)->slices.size() == (*file)->slices.size(), "the lazy read finds the same slices");
      for (std::size_t i = 0; i < (*file)->slices.size(); ++i) {
        const auto& a = (*lazy)->slices[i];
        const auto& b = (*file)->slices[i];
        FUZZ_CHECK(a.arch == b.arch && a.min_macos == b.min_macos && a.rpaths == b.rpaths &&
                       a.dylibs.size() == b.dylibs.size(),
                   "the lazy read finds what the whole read finds");
        for (std::size_t d = 0; d < a.dylibs.size(); ++d)
          FUZZ_CHECK(a.dylibs[d].path == b.dylibs[d].path, "the lazy read finds the same dylibs");
      }
    }
  }
  if (!file) {
    FUZZ_CHECK(file.error().category() == relforge::ErrorCategory::integrity,
               "a broken Mach-O file is an integrity error");
    return 0;
  }
  if (!*file) return 0;
  const auto& macho = **file;
  FUZZ_CHECK(!macho.slices.empty() && macho.slices.size() <= 32, "one to 32 slices");
  FUZZ_CHECK(macho.universal || macho.slices.size() == 1, "a thin file has one slice");
  std::set<std::string> archs;
  for (const auto& slice : macho.slices) {
    FUZZ_CHECK(archs.insert(slice.arch).second, "no architecture twice");
    for (const auto& dylib : slice.dylibs) check_path(dylib.path);
    for (const auto& rpath : slice.rpaths) check_path(rpath);
  }
  static const std::set<std::string> files = {"pkg/x.so", "pkg/.dylibs/libdep.dylib", "libtop.dylib"};
  for (const char* tag :
       {"macosx_11_0_arm64", "macosx_10_9_universal2", "macosx_10_9_x86_64", "macosx_10_6_intel"}) {
    const auto policy = pk::macos_policy(tag);
    FUZZ_CHECK(policy.has_value(), "every macOS tag here has a policy");
    for (const auto& violation : pk::macho_violations("pkg/x.so", macho, *policy, files))
      FUZZ_CHECK(violation.starts_with("pkg/x.so "), "a violation names the file");
  }
  return 0;
}
