// `relforge wheel parse|tags|best|diff`: PEP 427 file names, PEP 425 tag sets, the tags an
// interpreter supports in pip's priority order, and what differs between two wheels.
#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/wheel_diff_render.hpp"
#include "core/text.hpp"
#include "packaging/names.hpp"
#include "packaging/supported_tags.hpp"
#include "packaging/tags.hpp"
#include "packaging/wheel_diff.hpp"
#include "packaging/wheel_name.hpp"

namespace relforge::cli {
namespace {

using Json = nlohmann::ordered_json;
using packaging::Tag;
using packaging::WheelName;

enum class TagCheck { lenient, strict };

struct WheelParseOptions {
  std::vector<std::string> filenames;
  TagCheck check = TagCheck::lenient;
};

struct ParsedWheel {
  std::string filename;  // the last path component of the argument
  WheelName wheel;
};

struct WheelTagsOptions {
  std::string tag_set;
  TagCheck check = TagCheck::lenient;
};

Status check_tags(const std::vector<Tag>& tags) {
  for (const auto& tag : tags) {
    if (auto status = packaging::validate_tag(tag); !status) return status;
  }
  return {};
}

Result<ParsedWheel> parse_one(const std::string& argument, TagCheck check) {
  // A path is fine ("dist/x.whl"); like pip, only the file's own name is parsed.
  const auto slash = argument.rfind('/');
  ParsedWheel parsed{slash == std::string::npos ? argument : argument.substr(slash + 1), {}};
  auto wheel = packaging::parse_wheel_filename(parsed.filename);
  if (!wheel) return tl::unexpected(wheel.error());
  if (check == TagCheck::strict) {
    if (auto status = check_tags(wheel->tags()); !status) {
      return fail(ErrorCategory::invalid_input, "wheel file name '" + parsed.filename +
                                                    "': " + status.error().message() +
                                                    " (drop --strict to parse anyway)");
    }
  }
  parsed.wheel = std::move(*wheel);
  return parsed;
}

// Every file is parsed so that one run reports every bad name, not only the first.
Result<std::vector<ParsedWheel>> run_wheel_parse(const WheelParseOptions& options) {
  std::vector<ParsedWheel> wheels;
  std::vector<std::string> problems;
  for (const auto& filename : options.filenames) {
    auto parsed = parse_one(filename, options.check);
    if (parsed)
      wheels.push_back(std::move(*parsed));
    else
      problems.push_back(parsed.error().message());
  }
  if (problems.size() == 1) return fail(ErrorCategory::invalid_input, problems.front());
  if (!problems.empty()) {
    return fail(ErrorCategory::invalid_input,
                std::to_string(problems.size()) + " of " + std::to_string(options.filenames.size()) +
                    " wheel file names are invalid:\n  " + core::join(problems, "\n  "));
  }
  return wheels;
}

Result<packaging::TagSet> run_wheel_tags(const WheelTagsOptions& options) {
  auto set = packaging::parse_tag_set(options.tag_set);
  if (!set) return set;
  if (options.check == TagCheck::strict) {
    if (auto status = check_tags(set->expand()); !status) return tl::unexpected(status.error());
  }
  return set;
}

std::vector<std::string> tag_strings(const std::vector<Tag>& tags) {
  std::vector<std::string> out;
  for (const auto& tag : tags) out.push_back(tag.to_string());
  return out;
}

Json wheel_json(const ParsedWheel& parsed) {
  const auto& wheel = parsed.wheel;
  const auto canonical = packaging::format_wheel_filename(wheel);
  Json build = nullptr;
  if (wheel.build) {
    const auto& n = wheel.build->number;  // beyond 2^64 - 1 as digits, which JSON readers would round
    build = {{"number", n.is_small() ? Json(n.small_value()) : Json(n.to_string())},
             {"tag", wheel.build->tag}};
  }
  return {{"filename", parsed.filename},
          {"name", wheel.distribution},
          {"normalized_name", wheel.normalized_name()},
          {"version", wheel.version.to_string()},
          {"build", build},
          {"tags", tag_strings(wheel.tags())},
          {"interpreters", wheel.tag_set.interpreters},
          {"abis", wheel.tag_set.abis},
          {"platforms", wheel.tag_set.platforms},
          {"free_threaded", wheel.free_threaded()},
          {"canonical_filename", canonical ? Json(*canonical) : Json(nullptr)}};
}

// What relforge knows about one tag; unknown parts are null rather than errors (see --strict).
Json tag_json(const Tag& tag) {
  Json platform = nullptr;
  if (const auto parsed = packaging::parse_platform_tag(tag.platform)) {
    platform = {{"kind", packaging::platform_kind_name(parsed->kind)}, {"arch", parsed->arch}};
    platform["version"] = parsed->version ? Json(parsed->version->to_string()) : Json(nullptr);
  }
  const auto python = packaging::cpython_version(tag.interpreter);
  const auto glibc = packaging::glibc_version(tag.platform);
  return {{"tag", tag.to_string()},
          {"interpreter", tag.interpreter},
          {"abi", tag.abi},
          {"platform", tag.platform},
          {"free_threaded", packaging::is_free_threaded(tag)},
          {"cpython", python ? Json(python->to_string()) : Json(nullptr)},
          {"glibc", glibc ? Json(glibc->to_string()) : Json(nullptr)},
          {"platform_info", platform}};
}

void print_wheel(std::ostream& out, const ParsedWheel& parsed) {
  const auto& wheel = parsed.wheel;
  out << parsed.filename << '\n';
  out << "  name:          " << wheel.distribution << " (normalized: " << wheel.normalized_name() << ")\n";
  out << "  version:       " << wheel.version.to_string() << '\n';
  out << "  build:         " << (wheel.build ? wheel.build->to_string() : "none") << '\n';
  out << "  tags:          " << core::join(tag_strings(wheel.tags()), ", ") << '\n';
  out << "  free-threaded: " << (wheel.free_threaded() ? "yes" : "no") << '\n';
}

void register_parse(CLI::App& group, Runtime& runtime) {
  auto options = std::make_shared<WheelParseOptions>();
  auto strict = std::make_shared<bool>(false);
  CLI::App* command = group.add_subcommand(
      "parse",
      "Parse wheel file names as pip does (packaging 26.3); --json prints an array, one object per file");
  command
      ->add_option("filenames", options->filenames,
                   "Wheel file names or paths (only the last component counts)")
      ->required();
  command->add_flag("--strict", *strict,
                    "Also require every tag to be one pip can select (known forms, ABI "
                    "matching the interpreter, ...)");
  add_json_flag(*command, runtime);
  command->callback([&runtime, options, strict] {
    options->check = *strict ? TagCheck::strict : TagCheck::lenient;
    const auto wheels = run_wheel_parse(*options);
    if (!wheels) return report_error(runtime, wheels.error());
    if (runtime.json) {
      Json all = Json::array();
      for (const auto& parsed : *wheels) all.push_back(wheel_json(parsed));
      runtime.out << json_text(all) << '\n';
    } else {
      for (std::size_t i = 0; i < wheels->size(); ++i) {
        if (i > 0) runtime.out << '\n';
        print_wheel(runtime.out, (*wheels)[i]);
      }
    }
    finish(runtime, {});
  });
}

struct SupportedTagsOptions {
  std::string python;    // "3.13t"
  std::string platform;  // "manylinux_2_28_x86_64"
};

struct SupportedTags {
  packaging::TagTarget target;
  std::vector<std::string> platforms;  // the expanded platform list
  std::vector<Tag> tags;               // best first
};

Result<SupportedTags> run_supported_tags(const SupportedTagsOptions& options) {
  auto target = packaging::parse_python_target(options.python, options.platform);
  if (!target) return tl::unexpected(target.error());
  auto platforms = packaging::expand_platform(options.platform);
  if (!platforms) return tl::unexpected(platforms.error());
  auto tags = packaging::supported_tags(*target);
  if (!tags) return tl::unexpected(tags.error());
  return SupportedTags{*target, std::move(*platforms), std::move(*tags)};
}

void register_tags(CLI::App& group, Runtime& runtime) {
  auto options = std::make_shared<WheelTagsOptions>();
  auto target = std::make_shared<SupportedTagsOptions>();
  auto strict = std::make_shared<bool>(false);
  CLI::App* command = group.add_subcommand(
      "tags",
      "Expand a compressed tag set (wheel tags py2.py3-none-any), or list the tags an interpreter "
      "supports, best first as pip ranks them (wheel tags --python 3.13t --platform manylinux_2_28_x86_64)");
  auto* tagset =
      command->add_option("tagset", options->tag_set, "INTERPRETERS-ABIS-PLATFORMS, values separated by '.'");
  auto* python =
      command->add_option("--python", target->python, "CPython version: 3.13, or 3.13t for free-threaded");
  auto* platform = command->add_option("--platform", target->platform,
                                       "The machine, as one platform tag: manylinux_2_28_x86_64, "
                                       "musllinux_1_2_x86_64, macosx_14_0_arm64, win_amd64");
  python->excludes(tagset)->needs(platform);
  platform->excludes(tagset)->needs(python);
  command->add_flag("--strict", *strict, "Also require every tag to be one pip can select")->excludes(python);
  add_json_flag(*command, runtime);
  command->callback([&runtime, options, target, strict, tagset, python] {
    if (python->count() > 0) {
      const auto result = run_supported_tags(*target);
      if (!result) return report_error(runtime, result.error());
      if (runtime.json) {
        const Json body = {{"python", target->python},
                           {"platform", target->platform},
                           {"platforms", result->platforms},
                           {"tags", tag_strings(result->tags)}};
        runtime.out << json_text(body) << '\n';
      } else {
        for (const auto& tag : result->tags) runtime.out << tag.to_string() << '\n';
      }
      return finish(runtime, {});
    }
    if (tagset->count() == 0) {
      return report_error(runtime,
                          Error(ErrorCategory::invalid_input,
                                "wheel tags needs a TAGSET (py2.py3-none-any) or --python and --platform"));
    }
    options->check = *strict ? TagCheck::strict : TagCheck::lenient;
    const auto set = run_wheel_tags(*options);
    if (!set) return report_error(runtime, set.error());
    const auto tags = set->expand();
    if (runtime.json) {
      Json details = Json::array();
      for (const auto& tag : tags) details.push_back(tag_json(tag));
      const Json body = {{"tag_set", set->to_string()},       {"tags", tag_strings(tags)},
                         {"interpreters", set->interpreters}, {"abis", set->abis},
                         {"platforms", set->platforms},       {"details", details}};
      runtime.out << json_text(body) << '\n';
    } else {
      for (const auto& tag : tags) runtime.out << tag.to_string() << '\n';
    }
    finish(runtime, {});
  });
}

struct WheelBestOptions {
  SupportedTagsOptions target;
  std::vector<std::string> filenames;
  bool pre = false;
};

struct RankedWheel {
  ParsedWheel parsed;
  std::optional<std::size_t> rank;  // index of its best tag in the supported list; none: incompatible
  std::string best_tag;
};

struct ProjectChoice {
  std::string project;  // PEP 503 name
  std::vector<RankedWheel> candidates;
  std::optional<std::size_t> chosen;  // index into candidates
};

// pip's CandidateEvaluator order among compatible files of one project: the highest version
// (final releases first unless --pre or none is final), then the best-ranked tag, then the
// highest build tag.
std::optional<std::size_t> choose(const std::vector<RankedWheel>& candidates, bool pre) {
  const bool any_final = std::any_of(candidates.begin(), candidates.end(), [](const RankedWheel& c) {
    return c.rank && !c.parsed.wheel.version.is_prerelease();
  });
  std::optional<std::size_t> best;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    const auto& c = candidates[i];
    if (!c.rank || (!pre && any_final && c.parsed.wheel.version.is_prerelease())) continue;
    if (!best) {
      best = i;
      continue;
    }
    const auto& b = candidates[*best];
    const auto by_version = c.parsed.wheel.version <=> b.parsed.wheel.version;
    if (by_version > 0 || (by_version == 0 && *c.rank < *b.rank) ||
        (by_version == 0 && *c.rank == *b.rank && c.parsed.wheel.build > b.parsed.wheel.build)) {
      best = i;
    }
  }
  return best;
}

Result<std::vector<ProjectChoice>> run_wheel_best(const WheelBestOptions& options) {
  auto supported = run_supported_tags(options.target);
  if (!supported) return tl::unexpected(supported.error());
  std::map<Tag, std::size_t> ranks;
  for (std::size_t i = 0; i < supported->tags.size(); ++i) ranks.emplace(supported->tags[i], i);
  auto wheels = run_wheel_parse({options.filenames, TagCheck::lenient});
  if (!wheels) return tl::unexpected(wheels.error());
  std::vector<ProjectChoice> projects;
  for (auto& parsed : *wheels) {
    RankedWheel ranked{parsed, std::nullopt, ""};
    for (const auto& tag : parsed.wheel.tags()) {
      const auto it = ranks.find(tag);
      if (it != ranks.end() && (!ranked.rank || it->second < *ranked.rank)) {
        ranked.rank = it->second;
        ranked.best_tag = tag.to_string();
      }
    }
    const std::string project = parsed.wheel.normalized_name();
    auto it = std::find_if(projects.begin(), projects.end(),
                           [&](const ProjectChoice& p) { return p.project == project; });
    if (it == projects.end()) it = projects.insert(projects.end(), ProjectChoice{project, {}, std::nullopt});
    it->candidates.push_back(std::move(ranked));
  }
  for (auto& project : projects) project.chosen = choose(project.candidates, options.pre);
  return projects;
}

void register_best(CLI::App& group, Runtime& runtime) {
  auto options = std::make_shared<WheelBestOptions>();
  CLI::App* command = group.add_subcommand(
      "best",
      "Pick, per project, the wheel pip would install on a target interpreter: the highest version, "
      "then the tag pip ranks best (see wheel tags --python); exit 1 when a project has no compatible file");
  command->add_option("--python", options->target.python, "CPython version: 3.13, or 3.13t for free-threaded")
      ->required();
  command
      ->add_option(
          "--platform", options->target.platform,
          "The machine, as one platform tag: manylinux_2_28_x86_64, macosx_14_0_arm64, win_amd64, ...")
      ->required();
  command
      ->add_option("files", options->filenames, "Wheel file names or paths (only the last component counts)")
      ->required();
  command->add_flag("--pre", options->pre, "Prefer pre-releases too (pip --pre)");
  add_json_flag(*command, runtime);
  command->callback([&runtime, options] {
    const auto projects = run_wheel_best(*options);
    if (!projects) return report_error(runtime, projects.error());
    bool all_chosen = true;
    if (runtime.json) {
      Json all = Json::array();
      for (const auto& project : *projects) {
        Json candidates = Json::array();
        for (const auto& c : project.candidates) {
          candidates.push_back({{"filename", c.parsed.filename},
                                {"version", c.parsed.wheel.version.to_string()},
                                {"compatible", c.rank.has_value()},
                                {"rank", c.rank ? Json(*c.rank) : Json(nullptr)},
                                {"best_tag", c.rank ? Json(c.best_tag) : Json(nullptr)}});
        }
        const auto* chosen = project.chosen ? &project.candidates[*project.chosen] : nullptr;
        all.push_back({{"project", project.project},
                       {"chosen", chosen ? Json(chosen->parsed.filename) : Json(nullptr)},
                       {"candidates", candidates}});
        all_chosen = all_chosen && chosen != nullptr;
      }
      runtime.out << json_text(all) << '\n';
    } else {
      for (const auto& project : *projects) {
        if (project.chosen) {
          runtime.out << project.candidates[*project.chosen].parsed.filename << '\n';
        } else {
          all_chosen = false;
          runtime.err << "relforge: no file of " << project.project << " is compatible with CPython "
                      << options->target.python << " on " << options->target.platform << '\n';
        }
      }
    }
    finish(runtime, {});
    if (!all_chosen) runtime.exit_code = k_exit_false;
  });
}

void register_diff(CLI::App& group, Runtime& runtime) {
  auto before = std::make_shared<std::string>();
  auto after = std::make_shared<std::string>();
  CLI::App* command = group.add_subcommand(
      "diff",
      "What differs between two wheels: entries added/removed, METADATA/WHEEL fields, RECORD and text "
      "lines, ELF sections and symbols, zip times and modes; exit 0 when identical, 1 when not");
  command->add_option("before", *before, "The first wheel")->required();
  command->add_option("after", *after, "The second wheel")->required();
  add_json_flag(*command, runtime);
  command->callback([&runtime, before, after] {
    auto diff = packaging::diff_wheels(*before, *after);
    if (!diff) return report_error(runtime, diff.error());
    if (runtime.json) {
      auto json = wheel_diff_json(*diff);
      json["before"] = *before;
      json["after"] = *after;
      runtime.out << json_text(json) << '\n';
    } else {
      print_wheel_diff(runtime.out, *diff);
    }
    finish(runtime, {});
    if (!diff->identical) runtime.exit_code = k_exit_false;
  });
}

}  // namespace

void register_wheel(CLI::App& group, Runtime& runtime) {
  register_parse(group, runtime);
  register_tags(group, runtime);
  register_best(group, runtime);
  register_diff(group, runtime);
  register_wheel_repair(group, runtime);
}

}  // namespace relforge::cli
