#include "packaging/requirement.hpp"

#include <algorithm>

#include "packaging/pep508_parser.hpp"

namespace relforge::packaging {

std::string Requirement::to_string() const {
  std::string out = name;
  if (!extras.empty()) {
    out += "[";
    for (std::size_t i = 0; i < extras.size(); ++i) out += (i ? "," : "") + extras[i];
    out += "]";
  }
  if (!specifier.empty()) out += specifier.to_string();
  if (url) {
    out += " @ " + *url;
    if (marker) out += " ";
  }
  if (marker) out += "; " + marker->to_string();
  return out;
}

Result<Requirement> parse_requirement(std::string_view text) {
  auto parts = MarkerParser(text).requirement();
  if (!parts) return tl::unexpected(parts.error());
  Requirement requirement;
  requirement.name = std::move(parts->name);
  requirement.extras = std::move(parts->extras);
  std::sort(requirement.extras.begin(), requirement.extras.end());
  requirement.extras.erase(std::unique(requirement.extras.begin(), requirement.extras.end()),
                           requirement.extras.end());
  auto specifier = parse_specifier_set(parts->specifier);
  if (!specifier) {
    Error error = specifier.error();
    error.with_context("requirement '" + std::string(text) + "'");
    return tl::unexpected(std::move(error));
  }
  requirement.specifier = std::move(*specifier);
  if (!parts->url.empty()) requirement.url = std::move(parts->url);
  if (parts->has_marker) requirement.marker = std::move(parts->marker);
  return requirement;
}

}  // namespace relforge::packaging
