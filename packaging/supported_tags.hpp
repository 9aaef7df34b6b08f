#pragma once
// The tags an interpreter supports, best first, as packaging 26.3's sys_tags() orders them for
// CPython (cpython_tags + compatible_tags) on a platform named by one tag: manylinux and
// musllinux expand as on a machine with that glibc or musl, macOS as mac_platforms() does.
// pip installs the file whose tags rank best in this list (after the highest version).
#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"
#include "packaging/tags.hpp"

namespace relforge::packaging {

struct TagTarget {
  unsigned major = 3;
  unsigned minor = 0;
  bool free_threaded = false;  // "3.13t": ABI cp313t, stable ABI abi3t
  std::string platform;        // "manylinux_2_28_x86_64", "macosx_14_0_arm64", "win_amd64", ...
};

// "3.13" or "3.13t" (also "313", "cp313t"); invalid_input otherwise.
Result<TagTarget> parse_python_target(std::string_view text, std::string platform);

// packaging's platform list for a machine described by one platform tag: linux_ARCH, then
// manylinux_2_N (and its legacy alias) from the given glibc down, or musllinux_1_N down; macOS
// from the given version down with the compatible binary formats; anything else as given.
Result<std::vector<std::string>> expand_platform(std::string_view platform);

// sys_tags() for the target, best first, exactly as packaging yields it.
Result<std::vector<Tag>> supported_tags(const TagTarget& target);

}  // namespace relforge::packaging
