// `relforge publish | promote | prune | yank`: what goes into and out of the channel store (a folder,
// or an S3 bucket with --store s3://...). The `index` group is in index_commands.cpp, `serve` in
// serve_command.cpp.
#include <filesystem>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "channels/catalog.hpp"
#include "channels/index.hpp"
#include "channels/maintain.hpp"
#include "channels/publish.hpp"
#include "channels/store.hpp"
#include "cli/channel_root.hpp"
#include "cli/commands.hpp"
#include "cli/environment.hpp"
#include "cli/exit_codes.hpp"
#include "cli/release_matrix.hpp"
#include "core/time.hpp"
#include "platform/allocator.hpp"
#include "platform/fs.hpp"

namespace relforge::cli {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

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
    platform::tune_heap_for_batch_command();
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
      runtime.out << json_text(all) << '\n';
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
    platform::tune_heap_for_batch_command();
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
    auto opened = open_existing_store(runtime, *store, *root);
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
      runtime.out << json_text(Json{{"dry_run", *dry_run},
                                    {"complete", !options->expected_files.empty()},
                                    {"cells_checked", result->cells_checked},
                                    {"plan", plan},
                                    {"published", published},
                                    {"pypi_staged", staged}})
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
  command.add_option("--keep", options->keep, "Newest PEP 440 versions kept per project (default 60)")
      ->check(CLI::Range(0, 1000000));
  command.add_option("--pin", options->pins, "A version never pruned (repeatable)");
  command.add_flag("--dry-run", *dry_run, "Print what would go; remove nothing");
  command.add_flag("--allow-test", *allow_test, "Allow pruning the test channel (its release candidates)");
  add_root_option(command, *root);
  add_store_options(command, *store, command.get_option("--root"));
  add_json_flag(command, runtime);
  command.callback([&runtime, options, channel, root, dry_run, allow_test, store] {
    platform::tune_heap_for_batch_command();
    auto parsed = channels::parse_channel(*channel);
    if (!parsed) return report_error(runtime, parsed.error());
    options->channel = *parsed;
    options->dry_run = *dry_run ? channels::DryRun::yes : channels::DryRun::no;
    options->test = *allow_test ? channels::TestPruning::allow : channels::TestPruning::refuse;
    options->deleted_at = core::rfc3339_utc(runtime.clock.unix_seconds());
    options->on_stage = crash_hook(runtime);
    auto opened = open_existing_store(runtime, *store, *root);
    if (!opened) return report_error(runtime, opened.error());
    auto result = channels::run_prune(*options, **opened);
    if (!result) return report_error(runtime, result.error());
    if (runtime.json) {
      Json removed = Json::array();
      for (const auto& file : result->removed) removed.push_back(file_json(file));
      runtime.out << json_text(Json{{"dry_run", *dry_run},
                                    {"removed", removed},
                                    {"kept_files", result->kept_files},
                                    {"leftovers_removed", result->leftovers}})
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
    platform::tune_heap_for_batch_command();
    auto parsed = channels::parse_channel(*channel);
    if (!parsed) return report_error(runtime, parsed.error());
    options->channel = *parsed;
    options->action = *undo ? channels::YankAction::unyank : channels::YankAction::yank;
    options->on_stage = crash_hook(runtime);
    auto opened = open_existing_store(runtime, *store, *root);
    if (!opened) return report_error(runtime, opened.error());
    auto yanked = channels::run_yank(*options, **opened);
    if (!yanked) return report_error(runtime, yanked.error());
    if (runtime.json) {
      Json variants = Json::array(), files = Json::array();
      for (const auto& file : *yanked) {
        variants.push_back(file.variant);
        files.push_back({{"variant", file.variant}, {"filename", file.filename}});
      }
      runtime.out << json_text(Json{{"filename", options->filename},
                                    {"yanked", !*undo},
                                    {"variants", variants},
                                    {"files", files}})
                  << '\n';
    } else {
      for (const auto& file : *yanked)
        runtime.out << (*undo ? "unyanked " : "yanked ") << file.variant << "/" << file.filename << '\n';
    }
    finish(runtime, {});
  });
}

}  // namespace relforge::cli
