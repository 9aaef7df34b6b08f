// ELF inspection for the manylinux policy: any bytes are "not ELF", an integrity error, or the
// requirements, by either scan; the requirements then go through the policy check of a few tags.
// Invariants: both scans agree on whether the bytes are ELF; every versioned symbol's version is
// among the versions required; every violation names the file.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "packaging/wheel_elf_policy.hpp"
#include "tests/fuzz/fuzz_check.hpp"

namespace {

namespace pk = relforge::packaging;

void check_policy(const pk::ElfRequirements& requirements) {
  static const std::vector<std::string> bundled = {"libbundled.so.1"};
  for (const char* tag : {"manylinux_2_17_x86_64", "manylinux_2_28_aarch64", "manylinux2014_x86_64"}) {
    const auto policy = pk::manylinux_policy(tag);
    if (!policy) continue;
    for (const auto& violation : pk::policy_violations("lib/x.so", requirements, *policy, bundled)) {
      FUZZ_CHECK(violation.find("lib/x.so") != std::string::npos, "a violation names the file");
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  auto dynamic = pk::read_elf_requirements(bytes, pk::ElfScan::dynamic_segment);
  auto sections = pk::read_elf_requirements(bytes, pk::ElfScan::section_headers);
  if (dynamic && sections) {
    FUZZ_CHECK(dynamic->has_value() == sections->has_value(), "both scans agree the bytes are ELF");
  }
  for (const auto* result : {&dynamic, &sections}) {
    if (!*result || !result->value()) continue;
    const auto& requirements = *result->value();
    check_policy(requirements);
  }
  return 0;
}
