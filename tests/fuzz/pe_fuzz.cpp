// PE/COFF reading for the Windows wheel policy: any bytes are "not PE", an integrity error, or
// the machine and imported DLLs; those then go through the policy of every Windows tag.
// Invariants: reading only the covered bytes (the rest zero, as a zip entry inflated on request)
// gives what reading the whole bytes gives; errors are integrity errors; every DLL name is non-empty
// printable ASCII of at most 260 bytes; every violation names the file; a DLL that is bundled or allowed is
// never reported.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "packaging/pe.hpp"
#include "packaging/wheel_pe_policy.hpp"
#include "tests/fuzz/fuzz_check.hpp"
#include "tests/packaging/zeroed_image.hpp"

namespace {

namespace pk = relforge::packaging;

void check_name(const std::string& name) {
  FUZZ_CHECK(!name.empty() && name.size() <= 260, "a DLL name is 1 to 260 bytes");
  for (const char c : name) FUZZ_CHECK(c >= 0x20 && c <= 0x7e, "a DLL name is printable ASCII");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  const auto image = pk::read_pe(bytes);
  relforge::test::ZeroedImage lazy_image{std::string(bytes)};
  const auto lazy = pk::read_pe(lazy_image);
  FUZZ_CHECK(static_cast<bool>(lazy) == static_cast<bool>(image),
             "the lazy read fails exactly when the whole read does");
  if (lazy && image) {
    FUZZ_CHECK(lazy->has_value() == image->has_value(), "both reads agree the bytes are PE");
    if (lazy->has_value()) {
      FUZZ_CHECK((*lazy)->machine == (*image)->machine && (*lazy)->imports == (*image)->imports &&
                     (*lazy)->delay_imports == (*image)->delay_imports,
                 "the lazy read finds what the whole read finds");
    }
  }
  if (!image) {
    FUZZ_CHECK(image.error().category() == relforge::ErrorCategory::integrity,
               "a broken PE file is an integrity error");
    return 0;
  }
  if (!*image) return 0;
  const auto& pe = **image;
  for (const auto& name : pe.imports) check_name(name);
  for (const auto& name : pe.delay_imports) check_name(name);
  for (const char* tag : {"win_amd64", "win32", "win_arm64"}) {
    const auto policy = pk::windows_policy(tag, {"cudart64_*.dll"});
    FUZZ_CHECK(policy.has_value(), "every Windows tag has a policy");
    for (const auto& violation : pk::pe_violations("pkg/x.pyd", pe, *policy, {}))
      FUZZ_CHECK(violation.starts_with("pkg/x.pyd "), "a violation names the file");
    // With every imported DLL bundled, only the machine can be wrong.
    std::vector<std::string> bundled(pe.imports.begin(), pe.imports.end());
    bundled.insert(bundled.end(), pe.delay_imports.begin(), pe.delay_imports.end());
    const auto left = pk::pe_violations("pkg/x.pyd", pe, *policy, bundled);
    FUZZ_CHECK(left.size() == (pe.machine == policy->machine ? 0u : 1u), "bundled DLLs are never reported");
  }
  return 0;
}
