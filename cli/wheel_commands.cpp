// `relforge wheel parse` and `relforge wheel tags`: PEP 427 file names and PEP 425 tag sets.
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "core/text.hpp"
#include "packaging/tags.hpp"
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
      runtime.out << all.dump(2) << '\n';
    } else {
      for (std::size_t i = 0; i < wheels->size(); ++i) {
        if (i > 0) runtime.out << '\n';
        print_wheel(runtime.out, (*wheels)[i]);
      }
    }
    finish(runtime, {});
  });
}

void register_tags(CLI::App& group, Runtime& runtime) {
  auto options = std::make_shared<WheelTagsOptions>();
  auto strict = std::make_shared<bool>(false);
  CLI::App* command = group.add_subcommand(
      "tags", "Expand a compressed tag set (py2.py3-none-any) into its tags, one per line");
  command->add_option("tagset", options->tag_set, "INTERPRETERS-ABIS-PLATFORMS, values separated by '.'")
      ->required();
  command->add_flag("--strict", *strict, "Also require every tag to be one pip can select");
  add_json_flag(*command, runtime);
  command->callback([&runtime, options, strict] {
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
      runtime.out << body.dump(2) << '\n';
    } else {
      for (const auto& tag : tags) runtime.out << tag.to_string() << '\n';
    }
    finish(runtime, {});
  });
}

}  // namespace

void register_wheel(CLI::App& group, Runtime& runtime) {
  register_parse(group, runtime);
  register_tags(group, runtime);
  register_wheel_repair(group, runtime);
}

}  // namespace relforge::cli
