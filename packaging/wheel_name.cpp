#include "packaging/wheel_name.hpp"

#include <algorithm>
#include <limits>

#include "packaging/names.hpp"

namespace relforge::packaging {
namespace {

constexpr std::string_view k_extension = ".whl";
// CPython 3.11 refuses int() on longer digit strings (sys.int_info.default_max_str_digits).
constexpr std::size_t k_python_max_int_digits = 4300;

tl::unexpected<Error> bad_name(std::string_view filename, const std::string& what) {
  return fail(ErrorCategory::invalid_input,
              "invalid wheel file name '" + std::string(filename) + "': " + what);
}

// packaging 26.3: `"__" in name or not re.match(r"^[\w._]+\Z", name, re.UNICODE)`.
std::optional<std::string> name_problem(std::string_view name) {
  if (name.find("__") != std::string_view::npos) {
    return "project name part '" + std::string(name) +
           "' contains '__'; PEP 427 writes each run of '-', '_' and '.' as one '_'";
  }
  if (name.empty()) return std::string("the project name part is empty");
  const std::string_view body = name;
  std::size_t pos = 0;
  while (pos < body.size()) {
    const std::size_t start = pos;
    const auto c = next_code_point(body, pos);
    if (c && (*c == '.' || is_python_word_char(*c))) continue;
    return "project name part '" + std::string(name) + "' contains '" +
           std::string(body.substr(start, pos - start)) +
           "'; only letters, digits, '_' and '.' are allowed (write '-' as '_')";
  }
  return std::nullopt;
}

// packaging 26.3: re.match(r"(\d+)(.*)", part, re.ASCII) -> (int(group 1), group 2); `.` stops at
// a newline.
Result<BuildTag> parse_build(std::string_view filename, std::string_view part) {
  BuildTag build;
  std::size_t pos = 0;
  while (pos < part.size() && part[pos] >= '0' && part[pos] <= '9') ++pos;
  if (pos == 0) {
    return bad_name(filename, "build tag '" + std::string(part) + "' must start with a digit (PEP 427)");
  }
  if (pos > k_python_max_int_digits) {
    return bad_name(filename, "build number in '" + std::string(part) + "' has more than " +
                                  std::to_string(k_python_max_int_digits) + " digits (Python's int() limit)");
  }
  build.number = VersionNumber::from_digits(part.substr(0, pos));
  const std::string_view rest = part.substr(pos);
  build.tag = std::string(rest.substr(0, rest.find('\n')));
  return build;
}

}  // namespace

std::string BuildTag::to_string() const {
  return number.to_string() + tag;
}

std::string WheelName::normalized_name() const {
  return normalize_project_name(distribution);
}

bool WheelName::free_threaded() const {
  const auto all = tags();
  return std::any_of(all.begin(), all.end(), [](const Tag& tag) { return is_free_threaded(tag); });
}

Result<WheelName> parse_wheel_filename(std::string_view filename) {
  if (filename.size() < k_extension.size() ||
      filename.substr(filename.size() - k_extension.size()) != k_extension) {
    return bad_name(filename, "the extension must be '.whl'");
  }
  const std::string_view stem = filename.substr(0, filename.size() - k_extension.size());
  const auto dashes = static_cast<std::size_t>(std::count(stem.begin(), stem.end(), '-'));
  if (dashes != 4 && dashes != 5) {
    return bad_name(filename, "it has " + std::to_string(dashes + 1) +
                                  " '-'-separated parts; expected NAME-VERSION[-BUILD]-PYTHON-ABI-PLATFORM "
                                  "(5 or 6 parts; a '-' inside the name or version is written '_')");
  }
  // Like str.split("-", dashes - 2): the last field keeps the two dashes of the tag triple.
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  for (std::size_t i = 0; i + 2 < dashes; ++i) {
    const auto dash = stem.find('-', start);
    parts.push_back(stem.substr(start, dash - start));
    start = dash + 1;
  }
  parts.push_back(stem.substr(start));

  WheelName wheel;
  if (const auto problem = name_problem(parts[0])) return bad_name(filename, *problem);
  wheel.distribution = std::string(parts[0]);

  auto version = parse_version(parts[1]);
  if (!version) {
    return bad_name(filename, "version part '" + std::string(parts[1]) +
                                  "' is not a valid PEP 440 version: " + version.error().message());
  }
  wheel.version = std::move(*version);

  if (dashes == 5) {
    auto build = parse_build(filename, parts[2]);
    if (!build) return tl::unexpected(build.error());
    wheel.build = std::move(*build);
  }

  auto tag_set = parse_tag_set(parts.back());
  if (!tag_set) return bad_name(filename, tag_set.error().message());
  wheel.tag_set = std::move(*tag_set);
  return wheel;
}

Result<std::string> format_wheel_filename(const WheelName& wheel) {
  const std::string name = wheel_file_name_component(wheel.distribution);
  const std::string tags = python_lower(wheel.tag_set.to_string());
  std::string filename = name + "-" + wheel.version.to_string();
  if (wheel.build) filename += "-" + wheel.build->to_string();
  filename += "-" + tags + std::string(k_extension);

  const auto parsed = parse_wheel_filename(filename);
  if (!parsed) {
    return fail(ErrorCategory::invalid_input, "cannot write a wheel file name for '" + wheel.distribution +
                                                  "': " + parsed.error().message());
  }
  if (parsed->distribution != name || parsed->version.to_string() != wheel.version.to_string() ||
      parsed->build != wheel.build || parsed->tag_set.to_string() != tags) {
    return fail(ErrorCategory::invalid_input,
                "cannot write a wheel file name for '" + wheel.distribution + "': '" + filename +
                    "' would read back differently; a build tag or tag value must not contain '-'");
  }
  return filename;
}

}  // namespace relforge::packaging
