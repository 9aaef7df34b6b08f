// `relforge publish | promote | prune | yank | index rebuild | index check`: the channel store (a
// folder, or an S3 bucket with --store s3://...) and its PEP 503/691 indexes (`serve` is in
// serve_command.cpp).
#include <filesystem>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "channels/catalog.hpp"
#include "channels/check.hpp"
#include "channels/deps.hpp"
#include "channels/index.hpp"
#include "channels/maintain.hpp"
#include "channels/publish.hpp"
#include "channels/s3_store.hpp"
#include "channels/store.hpp"
#include "cli/channel_root.hpp"
#include "cli/commands.hpp"
#include "cli/environment.hpp"
#include "cli/exit_codes.hpp"
#include "cli/release_matrix.hpp"
#include "core/time.hpp"
#include "packaging/wheel_name.hpp"
#include "platform/fs.hpp"

namespace relforge::cli {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

// --store s3://bucket/prefix puts the channel tree in an S3-compatible bucket; any other --store
// value is a store directory, like --root.
struct StoreFlags {
  std::string store;
  std::string endpoint;
  std::string region;
  bool is_s3() const { return channels::is_s3_url(store); }
};

void add_store_options(CLI::App& command, StoreFlags& flags, CLI::Option* root) {
  command
      .add_option("--store", flags.store,
                  "s3://bucket/prefix for an S3-compatible bucket (credentials from AWS_ACCESS_KEY_ID, "
                  "AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN), or a directory")
      ->excludes(root);
  command.add_option("--s3-endpoint", flags.endpoint,
                     "S3 endpoint URL (default $AWS_ENDPOINT_URL, else https://s3.<region>.amazonaws.com)");
  command.add_option("--s3-region", flags.region, "S3 region (default $AWS_REGION, else us-east-1)");
}

Result<std::unique_ptr<channels::ObjectStore>> open_s3_store(const Runtime& runtime,
                                                             const StoreFlags& flags) {
  auto location = channels::parse_s3_url(flags.store);
  if (!location) return tl::unexpected(location.error());
  channels::S3Options options;
  options.location = std::move(*location);
  options.endpoint =
      !flags.endpoint.empty() ? flags.endpoint : runtime.getenv("AWS_ENDPOINT_URL").value_or("");
  options.region =
      !flags.region.empty()
          ? flags.region
          : runtime.getenv("AWS_REGION").value_or(runtime.getenv("AWS_DEFAULT_REGION").value_or("us-east-1"));
  options.access_key = runtime.getenv("AWS_ACCESS_KEY_ID").value_or("");
  options.secret_key = runtime.getenv("AWS_SECRET_ACCESS_KEY").value_or("");
  options.session_token = runtime.getenv("AWS_SESSION_TOKEN").value_or("");
  return channels::make_s3_store(std::move(options));
}

// The store a command works on: --store s3://... is a bucket; --store DIR or --root DIR a folder.
Result<std::unique_ptr<channels::ObjectStore>> open_store(const Runtime& runtime, const StoreFlags& flags,
                                                          const std::string& root) {
  if (flags.is_s3()) return open_s3_store(runtime, flags);
  return std::unique_ptr<channels::ObjectStore>(std::make_unique<channels::FilesystemObjectStore>(
      store_root(runtime, flags.store.empty() ? root : flags.store)));
}

Json file_json(const channels::StoredFile& file) {
  return {{"variant", file.variant},
          {"filename", file.info.filename},
          {"version", file.info.version},
          {"sha256", file.info.sha256},
          {"path", file.path.string()}};
}

Json published_json(const channels::PublishedFile& file) {
  return {{"filename", file.filename},
          {"variant", file.variant},
          {"project", file.project},
          {"version", file.version},
          {"sha256", file.sha256},
          {"signed", file.signed_bundle},
          {"state", file.state == channels::PublishState::added ? "added" : "unchanged"}};
}

void print_published(Runtime& runtime, const std::vector<channels::PublishedFile>& files,
                     const std::string& channel) {
  for (const auto& file : files) {
    runtime.out << (file.state == channels::PublishState::added ? "published " : "unchanged ") << channel
                << "/" << file.variant << "/" << file.project << "/" << file.filename
                << (file.signed_bundle ? " (signed)" : "") << '\n';
  }
}

struct SignatureFlags {
  bool require = false;
  bool allow_unsigned = false;
  channels::SignaturePolicy policy() const {
    if (require) return channels::SignaturePolicy::require;
    if (allow_unsigned) return channels::SignaturePolicy::optional;
    return channels::SignaturePolicy::channel_default;
  }
};

void add_signature_flags(CLI::App& command, SignatureFlags& flags, std::optional<fs::path>& key) {
  command.add_option("--key", key, "Public key that verifies each FILE.sigstore.json");
  auto* require = command.add_flag("--require-signatures", flags.require,
                                   "Require signatures (default on stable and test)");
  command
      .add_flag("--allow-unsigned", flags.allow_unsigned, "Accept unsigned wheels even on stable and test")
      ->excludes(require);
}

}  // namespace

void register_publish(CLI::App& command, Runtime& runtime) {
  auto options = std::make_shared<channels::PublishOptions>();
  auto channel = std::make_shared<std::string>("nightly");
  auto root = std::make_shared<std::string>();
  auto flags = std::make_shared<SignatureFlags>();
  auto store = std::make_shared<StoreFlags>();
  command.add_option("files", options->files, "Wheels (FILE.sigstore.json beside each when signed)")
      ->required();
  command.add_option("--channel", *channel, "stable, test or nightly (default nightly)");
  command.add_option("--variant", options->variant, "Variant folder (default: the local version label)");
  add_root_option(command, *root);
  add_store_options(command, *store, command.get_option("--root"));
  add_signature_flags(command, *flags, options->public_key);
  add_json_flag(command, runtime);
  command.callback([&runtime, options, channel, root, flags, store] {
    auto parsed = channels::parse_channel(*channel);
    if (!parsed) return report_error(runtime, parsed.error());
    options->channel = *parsed;
    options->signatures = flags->policy();
    options->upload_time = core::rfc3339_utc(runtime.clock.unix_seconds());
    options->on_stage = crash_hook(runtime);
    auto opened = open_store(runtime, *store, *root);
    if (!opened) return report_error(runtime, opened.error());
    auto published = channels::run_publish(*options, **opened);
    if (!published) return report_error(runtime, published.error());
    if (runtime.json) {
      Json all = Json::array();
      for (const auto& file : *published) all.push_back(published_json(file));
      runtime.out << all.dump(2) << '\n';
    } else {
      print_published(runtime, *published, *channel);
    }
    finish(runtime, {});
  });
}

namespace {

Json staged_json(const channels::StagedFile& file) {
  static constexpr const char* k_states[] = {"planned", "staged", "unchanged"};
  return {{"variant", file.variant},   {"source", file.source.string()},
          {"filename", file.filename}, {"path", file.target.string()},
          {"sha256", file.sha256},     {"state", k_states[static_cast<int>(file.state)]}};
}

struct Completeness {
  bool complete = false;
  bool skip = false;
  std::string config;
  std::string matrix_channel = "release";
};

Result<std::vector<channels::ExpectedFile>> expected_release_files(const Runtime& runtime,
                                                                   const Completeness& completeness,
                                                                   const std::string& version) {
  auto config = find_config(runtime, completeness.config, std::filesystem::current_path());
  if (!config) {
    return fail(ErrorCategory::invalid_input,
                config.error().message() +
                    ": a promote to stable checks every cell of the release matrix; pass --config "
                    "relforge.toml, or --no-complete to promote without that check");
  }
  return release_matrix_files(*config, completeness.matrix_channel, version);
}

void print_staged(Runtime& runtime, const std::vector<channels::StagedFile>& files) {
  for (const auto& file : files) {
    const char* verb = file.state == channels::StagingState::planned  ? "would stage"
                       : file.state == channels::StagingState::staged ? "staged"
                                                                      : "unchanged";
    runtime.out << "pypi: " << verb << " " << file.target.string() << " (from " << file.variant << "/"
                << file.source.filename().string() << ")\n";
  }
}

}  // namespace

void register_promote(CLI::App& command, Runtime& runtime) {
  auto options = std::make_shared<channels::PromoteOptions>();
  auto pypi_variants = std::make_shared<std::vector<std::string>>();
  auto from = std::make_shared<std::string>("test");
  auto to = std::make_shared<std::string>("stable");
  auto root = std::make_shared<std::string>();
  auto dry_run = std::make_shared<bool>(false);
  auto flags = std::make_shared<SignatureFlags>();
  auto store = std::make_shared<StoreFlags>();
  auto completeness = std::make_shared<Completeness>();
  command.add_option("--from", *from, "Source channel (default test)");
  command.add_option("--to", *to, "Destination channel (default stable)");
  command.add_option("--version", options->version, "Version to promote (public part takes every variant)")
      ->required();
  command.add_option("--expect-variant", options->expect_variants,
                     "A variant that must be present (repeatable)");
  auto* complete = command.add_flag(
      "--complete", completeness->complete,
      "Every cell of the release matrix must be in --from, hash-verified and signed, or nothing is "
      "copied (the default for --to stable)");
  command.add_flag("--no-complete", completeness->skip, "Promote without checking the release matrix")
      ->excludes(complete);
  command.add_option("--config", completeness->config,
                     "The relforge.toml whose matrix --complete checks (default: found from here upwards)");
  command
      .add_option("--matrix-channel", completeness->matrix_channel,
                  "The matrix channel a complete release has every cell of")
      ->capture_default_str();
  command.add_flag("--dry-run", *dry_run, "Show the plan and check hashes; copy nothing");
  command.add_option(
      "--pypi-staging", options->pypi_staging,
      "Also write the PyPI variant's wheels here without the local label (2.7.0+cu130 -> 2.7.0)");
  command.add_option("--pypi-variant", *pypi_variants,
                     "The variant uploaded to PyPI (repeatable; default cu130)");
  add_root_option(command, *root);
  add_store_options(command, *store, command.get_option("--root"));
  add_signature_flags(command, *flags, options->public_key);
  add_json_flag(command, runtime);
  command.callback([&runtime, options, from, to, root, dry_run, flags, pypi_variants, store, completeness] {
    auto source = channels::parse_channel(*from);
    if (!source) return report_error(runtime, source.error());
    auto target = channels::parse_channel(*to);
    if (!target) return report_error(runtime, target.error());
    if (completeness->complete || (*target == channels::Channel::stable && !completeness->skip)) {
      auto expected = expected_release_files(runtime, *completeness, options->version);
      if (!expected) return report_error(runtime, expected.error());
      options->expected_files = std::move(*expected);
    }
    options->from = *source;
    options->to = *target;
    options->dry_run = *dry_run ? channels::DryRun::yes : channels::DryRun::no;
    options->signatures = flags->policy();
    options->upload_time = core::rfc3339_utc(runtime.clock.unix_seconds());
    options->on_stage = crash_hook(runtime);
    if (!pypi_variants->empty()) options->pypi_variants = *pypi_variants;
    auto opened = open_store(runtime, *store, *root);
    if (!opened) return report_error(runtime, opened.error());
    auto result = channels::run_promote(*options, **opened);
    if (!result) return report_error(runtime, result.error());
    if (runtime.json) {
      Json plan = Json::array();
      for (const auto& file : result->plan) plan.push_back(file_json(file));
      Json published = Json::array();
      for (const auto& file : result->published) published.push_back(published_json(file));
      Json staged = Json::array();
      for (const auto& file : result->staged) staged.push_back(staged_json(file));
      runtime.out << Json{{"dry_run", *dry_run},
                          {"complete", !options->expected_files.empty()},
                          {"cells_checked", result->cells_checked},
                          {"plan", plan},
                          {"published", published},
                          {"pypi_staged", staged}}
                         .dump(2)
                  << '\n';
    } else {
      runtime.out << "plan: " << result->plan.size() << " file(s) of " << options->version << " from "
                  << *from << " to " << *to << '\n';
      if (result->cells_checked > 0)
        runtime.out << "complete: all " << result->cells_checked
                    << " cells of the release matrix are present, signed and hash-verified\n";
      for (const auto& file : result->plan)
        runtime.out << "  " << file.variant << "/" << file.info.filename << '\n';
      if (*dry_run)
        runtime.out << "dry run: nothing copied\n";
      else
        print_published(runtime, result->published, *to);
      print_staged(runtime, result->staged);
    }
    finish(runtime, {});
  });
}

void register_prune(CLI::App& command, Runtime& runtime) {
  auto options = std::make_shared<channels::PruneOptions>();
  auto channel = std::make_shared<std::string>("nightly");
  auto root = std::make_shared<std::string>();
  auto dry_run = std::make_shared<bool>(false);
  auto allow_test = std::make_shared<bool>(false);
  auto store = std::make_shared<StoreFlags>();
  command.add_option("--channel", *channel, "nightly, or test with --allow-test; stable is never pruned");
  command.add_option("--keep", options->keep, "Newest PEP 440 versions kept per project (default 60)");
  command.add_option("--pin", options->pins, "A version never pruned (repeatable)");
  command.add_flag("--dry-run", *dry_run, "Print what would go; remove nothing");
  command.add_flag("--allow-test", *allow_test, "Allow pruning the test channel (its release candidates)");
  add_root_option(command, *root);
  add_store_options(command, *store, command.get_option("--root"));
  add_json_flag(command, runtime);
  command.callback([&runtime, options, channel, root, dry_run, allow_test, store] {
    auto parsed = channels::parse_channel(*channel);
    if (!parsed) return report_error(runtime, parsed.error());
    options->channel = *parsed;
    options->dry_run = *dry_run ? channels::DryRun::yes : channels::DryRun::no;
    options->test = *allow_test ? channels::TestPruning::allow : channels::TestPruning::refuse;
    options->deleted_at = core::rfc3339_utc(runtime.clock.unix_seconds());
    options->on_stage = crash_hook(runtime);
    auto opened = open_store(runtime, *store, *root);
    if (!opened) return report_error(runtime, opened.error());
    auto result = channels::run_prune(*options, **opened);
    if (!result) return report_error(runtime, result.error());
    if (runtime.json) {
      Json removed = Json::array();
      for (const auto& file : result->removed) removed.push_back(file_json(file));
      runtime.out << Json{{"dry_run", *dry_run},
                          {"removed", removed},
                          {"kept_files", result->kept_files},
                          {"leftovers_removed", result->leftovers}}
                         .dump(2)
                  << '\n';
    } else {
      for (const auto& file : result->removed) {
        runtime.out << (*dry_run ? "would remove " : "removed ") << file.variant << "/" << file.info.filename
                    << '\n';
      }
      runtime.out << result->removed.size() << " file(s) " << (*dry_run ? "would go" : "removed") << ", "
                  << result->kept_files << " kept\n";
    }
    finish(runtime, {});
  });
}

void register_yank(CLI::App& command, Runtime& runtime) {
  auto options = std::make_shared<channels::YankOptions>();
  auto channel = std::make_shared<std::string>("nightly");
  auto root = std::make_shared<std::string>();
  auto undo = std::make_shared<bool>(false);
  auto store = std::make_shared<StoreFlags>();
  command
      .add_option("file", options->filename, "The published wheel's file name (a path's folder is ignored)")
      ->required();
  command.add_option("--reason", options->reason, "Why (shown by pip)");
  command.add_option("--channel", *channel, "Channel (default nightly)");
  command.add_flag("--undo", *undo, "Un-yank the file");
  add_root_option(command, *root);
  add_store_options(command, *store, command.get_option("--root"));
  add_json_flag(command, runtime);
  command.callback([&runtime, options, channel, root, undo, store] {
    auto parsed = channels::parse_channel(*channel);
    if (!parsed) return report_error(runtime, parsed.error());
    options->channel = *parsed;
    options->action = *undo ? channels::YankAction::unyank : channels::YankAction::yank;
    options->on_stage = crash_hook(runtime);
    auto opened = open_store(runtime, *store, *root);
    if (!opened) return report_error(runtime, opened.error());
    auto variants = channels::run_yank(*options, **opened);
    if (!variants) return report_error(runtime, variants.error());
    if (runtime.json) {
      runtime.out << Json{{"filename", options->filename}, {"yanked", !*undo}, {"variants", *variants}}.dump(
                         2)
                  << '\n';
    } else {
      for (const auto& variant : *variants)
        runtime.out << (*undo ? "unyanked " : "yanked ") << variant << "/" << options->filename << '\n';
    }
    finish(runtime, {});
  });
}

namespace {

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
    if (!store->is_s3()) {
      // A mistyped path must not read as a clean, empty store.
      const fs::path base = store_root(runtime, store->store.empty() ? *root : store->store);
      if (!fs::is_directory(base)) {
        return report_error(runtime, Error(ErrorCategory::not_found, "channel store " + base.string() +
                                                                         " does not exist (check --root)"));
      }
    }
    auto opened = open_store(runtime, *store, *root);
    if (!opened) return report_error(runtime, opened.error());
    channels::CheckOptions options;
    if (*allow_unsigned) options.signatures = channels::SignaturePolicy::optional;
    auto report = channels::check_store(**opened, options);
    if (!report) return report_error(runtime, report.error());
    const bool clean = report->problems.empty();
    if (runtime.json) {
      Json problems = Json::array();
      for (const auto& problem : report->problems) problems.push_back(problem_json(problem));
      runtime.out << Json{{"clean", clean},
                          {"files", report->files},
                          {"pages", report->pages},
                          {"problems", problems}}
                         .dump(2)
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
    if (!store->is_s3()) {
      const fs::path base = store_root(runtime, store->store.empty() ? *root : store->store);
      if (!fs::is_directory(base))
        return report_error(runtime, Error(ErrorCategory::not_found, "channel store " + base.string() +
                                                                         " does not exist (check --root)"));
    }
    auto opened = open_store(runtime, *store, *root);
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
      runtime.out << Json{{"resolved", resolved},     {"wheels", report->wheels},
                          {"checks", report->checks}, {"requirements", report->requirements},
                          {"environments", envs},     {"unresolved", unresolved}}
                         .dump(2)
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
    auto opened = open_store(runtime, *store, *root);
    if (!opened) return report_error(runtime, opened.error());
    auto summary = channels::rebuild_store(**opened);
    if (!summary) return report_error(runtime, summary.error());
    if (runtime.json)
      runtime.out << Json{{"pages", summary->pages}, {"files", summary->files}}.dump(2) << '\n';
    else
      runtime.out << "rebuilt " << summary->pages << " page(s) over " << summary->files << " file(s)\n";
    finish(runtime, {});
  });
  register_check(command, runtime);
  register_deps(command, runtime);
}

}  // namespace relforge::cli
