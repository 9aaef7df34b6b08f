// `relforge index rebuild | check | deps`: re-render a channel store's pages, verify the store, and
// check that its wheels' requirements resolve in each target environment.
#include <filesystem>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "channels/catalog.hpp"
#include "channels/check.hpp"
#include "channels/deps.hpp"
#include "channels/maintain.hpp"
#include "channels/store.hpp"
#include "cli/channel_root.hpp"
#include "cli/commands.hpp"
#include "cli/environment.hpp"
#include "cli/exit_codes.hpp"
#include "cli/release_matrix.hpp"
#include "packaging/wheel_name.hpp"
#include "platform/allocator.hpp"
#include "platform/fs.hpp"

namespace relforge::cli {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

Json problem_json(const channels::CheckProblem& problem) {
  return {
      {"kind", problem.kind}, {"where", problem.where}, {"message", problem.message}, {"fix", problem.fix}};
}

void register_check(CLI::App& command, Runtime& runtime) {
  auto root = std::make_shared<std::string>();
  auto store = std::make_shared<StoreFlags>();
  auto allow_unsigned = std::make_shared<bool>(false);
  CLI::App* check = command.add_subcommand(
      "check",
      "Verify the store: bytes, sidecars, leftovers, listing caches and pages (exit 9 on a problem)");
  add_root_option(*check, *root);
  add_store_options(*check, *store, check->get_option("--root"));
  check->add_flag("--allow-unsigned", *allow_unsigned, "Do not require signatures on stable and test");
  add_json_flag(*check, runtime);
  check->callback([&runtime, root, store, allow_unsigned] {
    auto opened = open_existing_store(runtime, *store, *root);
    if (!opened) return report_error(runtime, opened.error());
    channels::CheckOptions options;
    if (*allow_unsigned) options.signatures = channels::SignaturePolicy::optional;
    auto report = channels::check_store(**opened, options);
    if (!report) return report_error(runtime, report.error());
    const bool clean = report->problems.empty();
    if (runtime.json) {
      Json problems = Json::array();
      for (const auto& problem : report->problems) problems.push_back(problem_json(problem));
      runtime.out << json_text(Json{{"clean", clean},
                                    {"files", report->files},
                                    {"pages", report->pages},
                                    {"problems", problems}})
                  << '\n';
    } else {
      for (const auto& problem : report->problems) {
        runtime.out << problem.kind << ": " << problem.where << ": " << problem.message
                    << "\n  fix: " << problem.fix << '\n';
      }
      runtime.out << (clean ? "clean: " : std::to_string(report->problems.size()) + " problem(s): ")
                  << report->files << " file(s), " << report->pages << " page(s) checked\n";
    }
    // The report is the answer (stdout); a problem is an integrity failure for scripts.
    runtime.exit_code = clean ? k_exit_ok : exit_code_for(ErrorCategory::integrity);
  });
}

struct DepsFlags {
  std::string channel = "nightly";
  std::vector<std::string> upstream;      // saved listings
  std::vector<std::string> environments;  // --env PY:PLATFORM
  std::string config;
  std::string matrix_channel;  // default: --channel
};

// "cp314t" -> "3.14t", "cp312" -> "3.12"; empty when the tag names no CPython version.
std::string python_of(std::string_view tag) {
  if (tag.rfind("cp", 0) != 0 || tag.size() < 4) return "";
  std::string digits(tag.substr(2));
  const bool free_threaded = digits.back() == 't';
  if (free_threaded) digits.pop_back();
  if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos) return "";
  return digits.substr(0, 1) + "." + digits.substr(1) + (free_threaded ? "t" : "");
}

// The environments the wheels must install in: each --env, else each cell of the matrix (the
// python and platform of the wheel the cell builds).
Result<std::vector<channels::DepsEnvironment>> deps_environments(const Runtime& runtime,
                                                                 const DepsFlags& flags) {
  std::vector<channels::DepsEnvironment> out;
  auto add = [&out](channels::DepsEnvironment environment) {
    for (const auto& known : out) {
      if (known.python == environment.python && known.platform == environment.platform) return;
    }
    out.push_back(std::move(environment));
  };
  for (const auto& text : flags.environments) {
    const auto colon = text.find(':');
    if (colon == std::string::npos || colon == 0 || colon + 1 == text.size())
      return fail(ErrorCategory::invalid_input,
                  "--env '" + text + "' is not PYTHON:PLATFORM (e.g. 3.12:manylinux_2_28_x86_64)");
    add({text.substr(0, colon), text.substr(colon + 1)});
  }
  if (!out.empty()) return out;
  auto config = find_config(runtime, flags.config, fs::current_path());
  if (!config) {
    return fail(ErrorCategory::invalid_input,
                config.error().message() +
                    ": the target environments come from the matrix; pass --config or --env PY:PLATFORM");
  }
  auto files =
      release_matrix_files(*config, flags.matrix_channel.empty() ? flags.channel : flags.matrix_channel, "0");
  if (!files) return tl::unexpected(files.error());
  for (const auto& file : *files) {
    auto name = packaging::parse_wheel_filename(file.filename);
    if (!name) return tl::unexpected(name.error().with_context(config->string()));
    for (const auto& tag : name->tags()) {
      std::string python = python_of(tag.abi);
      if (python.empty()) python = python_of(tag.interpreter);
      if (!python.empty()) add({python, tag.platform});
    }
  }
  if (out.empty())
    return fail(ErrorCategory::nothing_selected,
                config->string() + ": no cell builds a CPython wheel; pass --env PY:PLATFORM");
  return out;
}

Result<std::vector<std::string>> upstream_files(const DepsFlags& flags) {
  std::vector<std::string> out;
  for (const auto& path : flags.upstream) {
    std::error_code error;
    if (!fs::is_regular_file(path, error))
      return fail(ErrorCategory::not_found, "no such file: " + path + " (--upstream)");
    auto text = platform::read_file(path);
    if (!text) return tl::unexpected(text.error());
    auto files = channels::parse_listing(*text, path);
    if (!files) return tl::unexpected(files.error());
    out.insert(out.end(), files->begin(), files->end());
  }
  return out;
}

Json unresolved_json(const channels::UnresolvedRequirement& item) {
  return {{"wheel", item.wheel},
          {"environment", item.environment},
          {"requirement", item.requirement},
          {"reason", item.reason}};
}

void register_deps(CLI::App& command, Runtime& runtime) {
  auto flags = std::make_shared<DepsFlags>();
  auto root = std::make_shared<std::string>();
  auto store = std::make_shared<StoreFlags>();
  CLI::App* deps = command.add_subcommand(
      "deps",
      "Check that every Requires-Dist of every wheel on a channel resolves, in each target environment, to "
      "a wheel on the channel or upstream (exit 1 when one does not)");
  deps->add_option("--channel", flags->channel, "stable, test or nightly (default nightly)");
  deps->add_option(
      "--upstream", flags->upstream,
      "A saved upstream project page (PEP 691 JSON or PEP 503 HTML) whose files count (repeatable)");
  deps->add_option("--env", flags->environments,
                   "A target environment PYTHON:PLATFORM, e.g. 3.12:manylinux_2_28_x86_64 (repeatable; "
                   "default: every cell of the matrix)");
  deps->add_option("--config", flags->config, "The relforge.toml whose matrix names the environments");
  deps->add_option("--matrix-channel", flags->matrix_channel,
                   "The matrix channel to expand (default: --channel)");
  add_root_option(*deps, *root);
  add_store_options(*deps, *store, deps->get_option("--root"));
  add_json_flag(*deps, runtime);
  deps->callback([&runtime, flags, root, store] {
    auto channel = channels::parse_channel(flags->channel);
    if (!channel) return report_error(runtime, channel.error());
    auto environments = deps_environments(runtime, *flags);
    if (!environments) return report_error(runtime, environments.error());
    auto upstream = upstream_files(*flags);
    if (!upstream) return report_error(runtime, upstream.error());
    auto opened = open_existing_store(runtime, *store, *root);
    if (!opened) return report_error(runtime, opened.error());
    auto files = channels::list_channel(**opened, *channel);
    if (!files) return report_error(runtime, files.error());
    std::vector<channels::DepsWheel> wheels;
    std::vector<std::string> available = std::move(*upstream);
    for (const auto& file : *files) {
      auto metadata = (*opened)->get(file.key + ".metadata");
      if (!metadata) return report_error(runtime, metadata.error());
      if (!*metadata)
        return report_error(runtime, Error(ErrorCategory::integrity,
                                           (*opened)->describe(file.key) +
                                               " has no .metadata sidecar: run relforge index check"));
      wheels.push_back({file.info.filename, std::move(**metadata)});
      available.push_back(file.info.filename);
    }
    auto report = channels::check_dependencies(wheels, available, *environments);
    if (!report) return report_error(runtime, report.error());
    const bool resolved = report->unresolved.empty();
    if (runtime.json) {
      Json envs = Json::array(), unresolved = Json::array();
      for (const auto& environment : *environments) envs.push_back(environment.label());
      for (const auto& item : report->unresolved) unresolved.push_back(unresolved_json(item));
      runtime.out << json_text(Json{{"resolved", resolved},
                                    {"wheels", report->wheels},
                                    {"checks", report->checks},
                                    {"requirements", report->requirements},
                                    {"environments", envs},
                                    {"unresolved", unresolved}})
                  << '\n';
    } else {
      for (const auto& item : report->unresolved)
        runtime.out << item.wheel << " [" << item.environment << "]: " << item.requirement << ": "
                    << item.reason << '\n';
      runtime.out << (resolved ? "resolved: " : std::to_string(report->unresolved.size()) + " unresolved: ")
                  << report->wheels << " wheel(s) in " << environments->size() << " environment(s), "
                  << report->requirements << " requirement(s) checked\n";
    }
    // The report is the answer (stdout); an unresolved requirement is a "no" for scripts.
    runtime.exit_code = resolved ? k_exit_ok : k_exit_false;
  });
}

}  // namespace

void register_index(CLI::App& command, Runtime& runtime) {
  auto root = std::make_shared<std::string>();
  auto store = std::make_shared<StoreFlags>();
  CLI::App* rebuild =
      command.add_subcommand("rebuild", "Re-render every index page from the store's listing");
  add_root_option(*rebuild, *root);
  add_store_options(*rebuild, *store, rebuild->get_option("--root"));
  add_json_flag(*rebuild, runtime);
  rebuild->callback([&runtime, root, store] {
    platform::tune_heap_for_batch_command();
    auto opened = open_existing_store(runtime, *store, *root);
    if (!opened) return report_error(runtime, opened.error());
    auto summary = channels::rebuild_store(**opened);
    if (!summary) return report_error(runtime, summary.error());
    if (runtime.json)
      runtime.out << json_text(Json{{"pages", summary->pages}, {"files", summary->files}}) << '\n';
    else
      runtime.out << "rebuilt " << summary->pages << " page(s) over " << summary->files << " file(s)\n";
    finish(runtime, {});
  });
  register_check(command, runtime);
  register_deps(command, runtime);
}

}  // namespace relforge::cli
