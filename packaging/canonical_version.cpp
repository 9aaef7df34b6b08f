#include "packaging/canonical_version.hpp"

#include "packaging/version.hpp"

namespace relforge::packaging {

std::string canonicalize_version(std::string_view text, bool strip_trailing_zero) {
  auto version = parse_version(text);
  if (!version) return std::string(text);
  if (strip_trailing_zero) {
    while (version->release.size() > 1 && version->release.back() == 0) version->release.pop_back();
  }
  return version->to_string();
}

}  // namespace relforge::packaging
