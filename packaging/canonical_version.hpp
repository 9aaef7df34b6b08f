#pragma once
// packaging.utils.canonicalize_version (26.3): the normal form of a version, trailing zeros of
// the release dropped (by default); text that is no version comes back unchanged.
#include <string>
#include <string_view>

namespace relforge::packaging {

std::string canonicalize_version(std::string_view text, bool strip_trailing_zero = true);

}  // namespace relforge::packaging
