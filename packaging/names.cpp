#include "packaging/names.hpp"

namespace relforge::packaging {
namespace {

bool is_separator(char c) { return c == '-' || c == '_' || c == '.'; }
bool is_alnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

std::string collapse_separators(std::string_view name, char replacement) {
  std::string out;
  out.reserve(name.size());
  bool in_run = false;
  for (const char c : name) {
    if (is_separator(c)) {
      if (!in_run) out += replacement;
      in_run = true;
      continue;
    }
    in_run = false;
    out += (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
  }
  return out;
}

}  // namespace

std::string normalize_project_name(std::string_view name) { return collapse_separators(name, '-'); }

std::string wheel_file_name_component(std::string_view name) { return collapse_separators(name, '_'); }

bool is_valid_project_name(std::string_view name) {
  if (name.empty() || !is_alnum(name.front()) || !is_alnum(name.back())) return false;
  for (const char c : name) {
    if (!is_alnum(c) && !is_separator(c)) return false;
  }
  return true;
}

}  // namespace relforge::packaging
