#include "channels/deps.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <set>

#include <nlohmann/json.hpp>

#include "core/text.hpp"
#include "packaging/marker.hpp"
#include "packaging/names.hpp"
#include "packaging/requirement.hpp"
#include "packaging/supported_tags.hpp"
#include "packaging/wheel_name.hpp"

namespace relforge::channels {
namespace {

std::string lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string_view trim(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  return text;
}

std::string html_unescape(std::string_view text) {
  static const std::pair<std::string_view, char> k_entities[] = {
      {"&amp;", '&'}, {"&lt;", '<'}, {"&gt;", '>'}, {"&quot;", '"'}, {"&#39;", '\''}, {"&#x27;", '\''}};
  std::string out;
  for (std::size_t i = 0; i < text.size();) {
    bool replaced = false;
    for (const auto& [entity, c] : k_entities) {
      if (text.substr(i, entity.size()) == entity) {
        out += c;
        i += entity.size();
        replaced = true;
        break;
      }
    }
    if (!replaced) out += text[i++];
  }
  return out;
}

// "<a" at `at` opens an anchor tag, not "<abbr>" or "<area>".
bool anchor_starts(std::string_view lowered, std::size_t at) {
  if (at + 2 >= lowered.size()) return false;
  const char next = lowered[at + 2];
  return next == '>' || std::isspace(static_cast<unsigned char>(next));
}

constexpr std::size_t k_max_listing_depth = 64;

// One environment, prepared once: its supported tags and marker variables.
struct Target {
  std::string label;
  std::set<std::string> tags;
  packaging::MarkerEnvironment markers;
};

Result<Target> prepare(const DepsEnvironment& environment) {
  auto target = packaging::parse_python_target(environment.python, environment.platform);
  if (!target) return tl::unexpected(target.error());
  auto tags = packaging::supported_tags(*target);
  if (!tags) return tl::unexpected(tags.error());
  auto markers = packaging::environment_for(target->major, target->minor, environment.platform);
  if (!markers) return tl::unexpected(markers.error());
  Target out{environment.label(), {}, std::move(*markers)};
  for (const auto& tag : *tags) out.tags.insert(tag.to_string());
  return out;
}

bool installs_in(const packaging::WheelName& wheel, const Target& target) {
  for (const auto& tag : wheel.tags()) {
    if (target.tags.count(tag.to_string()) != 0) return true;
  }
  return false;
}

// Why nothing in `files` (the available wheels of the requirement's project) satisfies it in `target`;
// nullopt when one does.
std::optional<std::string> unresolved_reason(const packaging::Requirement& requirement,
                                             const std::vector<const packaging::WheelName*>& files,
                                             const Target& target) {
  if (files.empty())
    return "no file of " + packaging::normalize_project_name(requirement.name) +
           " on the channel or upstream";
  std::set<std::string> versions;
  bool version_matches = false;
  for (const auto* file : files) {
    versions.insert(file->version.to_string());
    if (!requirement.specifier.contains(file->version, packaging::PreReleases::allow)) continue;
    version_matches = true;
    if (installs_in(*file, target)) return std::nullopt;
  }
  std::vector<std::string> have(versions.begin(), versions.end());
  if (!version_matches)
    return "no version matches '" + requirement.specifier.to_string() +
           "' (available: " + core::join(have, ", ") + ")";
  return "no wheel of a matching version installs on " + target.label;
}

}  // namespace

std::vector<std::string> requires_dist(std::string_view metadata) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start < metadata.size()) {
    std::size_t end = metadata.find('\n', start);
    if (end == std::string_view::npos) end = metadata.size();
    std::string_view line = metadata.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    start = end + 1;
    if (line.empty()) break;  // the headers end; the body (the description) follows
    if (line.front() == ' ' || line.front() == '\t') continue;  // a folded line of another header
    const auto colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    if (lower(trim(line.substr(0, colon))) == "requires-dist") out.emplace_back(trim(line.substr(colon + 1)));
  }
  return out;
}

Result<std::vector<std::string>> parse_listing(std::string_view text, const std::string& where) {
  const std::string_view body = trim(text);
  std::vector<std::string> files;
  if (!body.empty() && body.front() == '{') {
    if (!core::json_nesting_within(body, k_max_listing_depth))
      return fail(ErrorCategory::invalid_input, where +
                                                    ": not a PEP 691 project page: it nests deeper than " +
                                                    std::to_string(k_max_listing_depth) + " levels");
    const auto json = nlohmann::json::parse(body, nullptr, false);
    if (json.is_discarded() || !json.is_object() || !json.contains("files") || !json["files"].is_array())
      return fail(ErrorCategory::invalid_input,
                  where + ": not a PEP 691 project page (a JSON object with a \"files\" array)");
    for (const auto& file : json["files"]) {
      if (file.is_object() && file.contains("filename") && file["filename"].is_string())
        files.push_back(file["filename"].get<std::string>());
    }
    return files;
  }
  const std::string lowered = lower(body);
  if (lowered.find("<a") == std::string::npos && lowered.find("<html") == std::string::npos)
    return fail(ErrorCategory::invalid_input,
                where + ": not a package index listing (PEP 691 JSON or a PEP 503 HTML page)");
  // An anchor's text runs from its tag's '>' to the next '<', which must open "</a>"; each search
  // starts where the one before stopped, so a hostile page is read in one pass.
  for (std::size_t at = lowered.find("<a"); at != std::string::npos;) {
    if (!anchor_starts(lowered, at)) {
      at = lowered.find("<a", at + 2);
      continue;
    }
    const std::size_t open_end = lowered.find('>', at);
    if (open_end == std::string::npos) break;
    const std::size_t text_end = lowered.find('<', open_end);
    if (text_end == std::string::npos) break;
    if (lowered.compare(text_end, 4, "</a>") == 0) {
      const auto name = trim(body.substr(open_end + 1, text_end - open_end - 1));
      if (!name.empty()) files.push_back(html_unescape(name));
    }
    at = lowered.find("<a", text_end);
  }
  return files;
}

Result<DepsReport> check_dependencies(const std::vector<DepsWheel>& wheels,
                                      const std::vector<std::string>& available,
                                      const std::vector<DepsEnvironment>& environments) {
  std::vector<Target> targets;
  for (const auto& environment : environments) {
    auto target = prepare(environment);
    if (!target) return tl::unexpected(target.error().with_context("environment " + environment.label()));
    targets.push_back(std::move(*target));
  }
  // Every available wheel by project; other files (sdists, unparsable names) do not install as wheels.
  std::vector<packaging::WheelName> parsed;
  parsed.reserve(available.size());
  for (const auto& name : available) {
    if (auto wheel = packaging::parse_wheel_filename(name)) parsed.push_back(std::move(*wheel));
  }
  std::map<std::string, std::vector<const packaging::WheelName*>> by_project;
  for (const auto& wheel : parsed) by_project[wheel.normalized_name()].push_back(&wheel);

  DepsReport report;
  for (const auto& wheel : wheels) {
    auto name = packaging::parse_wheel_filename(wheel.filename);
    if (!name) return tl::unexpected(name.error());
    ++report.wheels;
    std::vector<std::pair<std::string, Result<packaging::Requirement>>> requirements;
    for (auto& text : requires_dist(wheel.metadata))
      requirements.emplace_back(text, packaging::parse_requirement(text));
    for (const auto& target : targets) {
      if (!installs_in(*name, target)) continue;
      ++report.checks;
      for (const auto& [text, requirement] : requirements) {
        if (!requirement) {
          report.unresolved.push_back({wheel.filename, target.label, text, requirement.error().message()});
          continue;
        }
        if (requirement->marker) {
          auto applies = requirement->marker->evaluate(target.markers);
          if (!applies) {
            report.unresolved.push_back({wheel.filename, target.label, text, applies.error().message()});
            continue;
          }
          if (!*applies) continue;
        }
        ++report.requirements;
        if (requirement->url) continue;  // a direct reference names its own file
        static const std::vector<const packaging::WheelName*> k_none;
        const auto found = by_project.find(packaging::normalize_project_name(requirement->name));
        if (auto reason =
                unresolved_reason(*requirement, found == by_project.end() ? k_none : found->second, target))
          report.unresolved.push_back({wheel.filename, target.label, text, *reason});
      }
    }
  }
  return report;
}

}  // namespace relforge::channels
