#include "platform/diagnostics.hpp"

#include "core/text.hpp"

namespace relforge::platform {

std::string where(std::string_view file, Location at) {
  std::string out(file);
  if (at.line == 0) return out;
  out += ':' + std::to_string(at.line);
  if (at.column != 0) out += ':' + std::to_string(at.column);
  return out;
}

tl::unexpected<Error> fail_at(std::string_view file, Location at, std::string message) {
  return fail(ErrorCategory::invalid_input, where(file, at) + ": " + message);
}

std::string suggestion(std::string_view word, const std::vector<std::string>& candidates) {
  if (candidates.empty()) return "";
  if (auto best = core::closest_match(word, candidates)) return "; did you mean '" + *best + "'?";
  // Long lists are noise; the reference (docs/config.md) has them all.
  if (candidates.size() > 12) return "";
  std::string out = "; expected one of: ";
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    if (i > 0) out += ", ";
    out += candidates[i];
  }
  return out;
}

std::string quoted_list(const std::vector<std::string>& words) {
  std::string out;
  for (std::size_t i = 0; i < words.size(); ++i) {
    if (i > 0) out += i + 1 == words.size() ? " and " : ", ";
    out += "'" + words[i] + "'";
  }
  return out;
}

}  // namespace relforge::platform
