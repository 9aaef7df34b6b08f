#include "packaging/marker.hpp"

#include <algorithm>
#include <array>

#include "packaging/names.hpp"
#include "packaging/pep508_parser.hpp"
#include "packaging/specifier.hpp"

namespace relforge::packaging {
namespace {

constexpr std::array<std::string_view, 4> k_version_variables = {"implementation_version", "platform_release",
                                                                 "python_full_version", "python_version"};

std::string serialize(const MarkerOperand& operand) {
  if (operand.variable) return operand.value;
  const char quote = operand.value.find('"') == std::string::npos ? '"' : '\'';
  return quote + operand.value + quote;
}

std::string format(const MarkerList& list, bool first);

std::string format_element(const MarkerElement& element, bool first) {
  switch (element.kind) {
    case MarkerElement::Kind::comparison:
      return serialize(element.lhs) + " " + element.op + " " + serialize(element.rhs);
    case MarkerElement::Kind::group:
      return format(element.group, first);
    case MarkerElement::Kind::and_:
      return "and";
    case MarkerElement::Kind::or_:
      return "or";
  }
  return {};
}

// packaging's _format_marker: a one-item list is its item; other lists are parenthesised unless
// they are the whole marker.
std::string format(const MarkerList& list, bool first) {
  if (list.size() == 1 && list.front().kind != MarkerElement::Kind::and_ &&
      list.front().kind != MarkerElement::Kind::or_) {
    return format_element(list.front(), first);
  }
  std::string out;
  for (const auto& element : list) {
    if (!out.empty()) out.push_back(' ');
    out += format_element(element, false);
  }
  return first ? out : "(" + out + ")";
}

Result<bool> compare(const std::string& lhs, const std::string& op, const std::string& rhs,
                     const std::string& key) {
  if (std::find(k_version_variables.begin(), k_version_variables.end(), key) != k_version_variables.end()) {
    if (const auto spec = parse_specifier(op + rhs)) return spec->matches_text(lhs);
  }
  if (op == "in") return rhs.find(lhs) != std::string::npos;
  if (op == "not in") return rhs.find(lhs) == std::string::npos;
  if (op == "<" || op == ">") return false;
  if (op == "<=" || op == "==" || op == ">=") return lhs == rhs;
  if (op == "!=") return lhs != rhs;
  return fail(ErrorCategory::invalid_input, "undefined comparison '" + lhs + "' " + op + " '" + rhs +
                                                "': " + op + " needs PEP 440 versions on both sides");
}

Result<bool> evaluate_list(const MarkerList& list, const MarkerEnvironment& env) {
  // any(all(group)) over the groups between "or"s; every item is evaluated, as packaging does, so
  // an undefined comparison is an error even where the answer is already known.
  bool any = false;
  bool all = true;
  for (const auto& element : list) {
    bool value = false;
    switch (element.kind) {
      case MarkerElement::Kind::or_:
        any = any || all;
        all = true;
        continue;
      case MarkerElement::Kind::and_:
        continue;
      case MarkerElement::Kind::group: {
        auto inner = evaluate_list(element.group, env);
        if (!inner) return inner;
        value = *inner;
        break;
      }
      case MarkerElement::Kind::comparison: {
        const bool left_variable = element.lhs.variable;
        const std::string& key = left_variable ? element.lhs.value : element.rhs.value;
        const auto found = env.find(key);
        if (found == env.end()) {
          return fail(ErrorCategory::invalid_input,
                      "the marker names '" + key + "', which the target environment does not define");
        }
        const std::string& lhs = left_variable ? found->second : element.lhs.value;
        const std::string& rhs = left_variable ? element.rhs.value : found->second;
        auto result = compare(lhs, element.op, rhs, key);
        if (!result) return result;
        value = *result;
        break;
      }
    }
    all = all && value;
  }
  return any || all;
}

}  // namespace

void normalize_marker_extras(MarkerList& list) {
  for (auto& element : list) {
    if (element.kind == MarkerElement::Kind::group) normalize_marker_extras(element.group);
    if (element.kind != MarkerElement::Kind::comparison) continue;
    if (element.lhs.variable && element.lhs.value == "extra" && !element.rhs.variable) {
      element.rhs.value = normalize_project_name(element.rhs.value);
    } else if (element.rhs.variable &&
               (element.rhs.value == "extra" || element.rhs.value == "extras" ||
                element.rhs.value == "dependency_groups") &&
               !element.lhs.variable) {
      element.lhs.value = normalize_project_name(element.lhs.value);
    }
  }
}

std::string Marker::to_string() const {
  return format(m_markers, true);
}

Result<bool> Marker::evaluate(const MarkerEnvironment& environment) const {
  MarkerEnvironment env = environment;
  const auto extra = env.find("extra");
  if (extra == env.end()) {
    env["extra"] = "";
  } else if (!extra->second.empty()) {
    extra->second = normalize_project_name(extra->second);
  }
  if (auto full = env.find("python_full_version"); full != env.end() && full->second.ends_with("+")) {
    full->second += "local";
  }
  return evaluate_list(m_markers, env);
}

Result<Marker> parse_marker(std::string_view text) {
  auto marker = MarkerParser(text).full_marker();
  if (!marker) return marker;
  normalize_marker_extras(marker->m_markers);
  return marker;
}

Result<MarkerEnvironment> environment_for(unsigned major, unsigned minor, std::string_view platform) {
  MarkerEnvironment env;
  const std::string version = std::to_string(major) + "." + std::to_string(minor);
  env["python_version"] = version;
  env["python_full_version"] = version + ".0";
  env["implementation_name"] = "cpython";
  env["implementation_version"] = version + ".0";
  env["platform_python_implementation"] = "CPython";
  env["platform_release"] = "";
  env["platform_version"] = "";
  const auto arch_after = [&](std::size_t underscores) {
    std::size_t pos = 0;
    for (std::size_t i = 0; i < underscores && pos != std::string_view::npos; ++i)
      pos = platform.find('_', pos + 1);
    return pos == std::string_view::npos ? std::string() : std::string(platform.substr(pos + 1));
  };
  std::string machine;
  if (platform.starts_with("manylinux_") || platform.starts_with("musllinux_")) {
    machine = arch_after(3);
  } else if (platform.starts_with("manylinux1_") || platform.starts_with("manylinux2010_") ||
             platform.starts_with("manylinux2014_") || platform.starts_with("linux_")) {
    machine = arch_after(1);
  }
  if (!machine.empty()) {
    env["os_name"] = "posix";
    env["sys_platform"] = "linux";
    env["platform_system"] = "Linux";
    env["platform_machine"] = machine;
    return env;
  }
  if (platform.starts_with("macosx_") && !arch_after(3).empty()) {
    const std::string arch = arch_after(3);
    env["os_name"] = "posix";
    env["sys_platform"] = "darwin";
    env["platform_system"] = "Darwin";
    env["platform_machine"] = arch == "universal2" ? "arm64" : arch;
    return env;
  }
  if (platform == "win_amd64" || platform == "win32" || platform == "win_arm64") {
    env["os_name"] = "nt";
    env["sys_platform"] = "win32";
    env["platform_system"] = "Windows";
    env["platform_machine"] = platform == "win_amd64" ? "AMD64" : platform == "win32" ? "x86" : "ARM64";
    return env;
  }
  return fail(ErrorCategory::invalid_input,
              "platform '" + std::string(platform) +
                  "' names no operating system relforge can describe for markers; "
                  "use manylinux_*, musllinux_*, linux_*, macosx_* or win_*");
}

}  // namespace relforge::packaging
