// `relforge publish | promote | prune | yank | index rebuild | serve`: the channel store and its
// PEP 503/691 indexes, served read-only over HTTP.
#include <chrono>
#include <csignal>
#include <ctime>
#include <filesystem>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "channels/index.hpp"
#include "channels/maintain.hpp"
#include "channels/object_store_publish.hpp"
#include "channels/publish.hpp"
#include "channels/s3_store.hpp"
#include "channels/store.hpp"
#include "cli/commands.hpp"

namespace relforge::cli {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

std::string now_utc() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm parts{};
  gmtime_r(&now, &parts);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &parts);
  return text;
}

// Where the store lives: --root, else $RELFORGE_CHANNEL_ROOT, else ./channels.
fs::path store_root(const Runtime& runtime, const std::string& option) {
  if (!option.empty()) return option;
  if (auto env = runtime.getenv("RELFORGE_CHANNEL_ROOT")) return *env;
  return "channels";
}

void add_root_option(CLI::App& command, std::string& root) {
  command.add_option("--root", root,
                     "Channel store directory (default $RELFORGE_CHANNEL_ROOT or ./channels)");
}

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
    options->root = store_root(runtime, store->is_s3() || store->store.empty() ? *root : store->store);
    options->signatures = flags->policy();
    options->upload_time = now_utc();
    // Tests crash the publish at a named stage to prove the index never points at missing files.
    if (auto crash_at = runtime.getenv("RELFORGE_TEST_CRASH_AT")) {
      const std::string stage = *crash_at;
      options->on_stage = [stage](std::string_view reached) {
        if (reached == stage) std::raise(SIGKILL);
      };
    }
    Result<std::vector<channels::PublishedFile>> published = fail(ErrorCategory::internal, "not run");
    if (store->is_s3()) {
      auto bucket = open_s3_store(runtime, *store);
      if (!bucket) return report_error(runtime, bucket.error());
      published = channels::run_publish_to_store(*options, **bucket);
    } else {
      published = channels::run_publish(*options);
    }
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
  command.add_option("--from", *from, "Source channel (default test)");
  command.add_option("--to", *to, "Destination channel (default stable)");
  command.add_option("--version", options->version, "Version to promote (public part takes every variant)")
      ->required();
  command.add_option("--expect-variant", options->expect_variants,
                     "A variant that must be present (repeatable)");
  command.add_flag("--dry-run", *dry_run, "Show the plan and check hashes; copy nothing");
  command.add_option(
      "--pypi-staging", options->pypi_staging,
      "Also write the PyPI variant's wheels here without the local label (2.7.0+cu130 -> 2.7.0)");
  command.add_option("--pypi-variant", *pypi_variants,
                     "The variant uploaded to PyPI (repeatable; default cu130)");
  add_root_option(command, *root);
  add_signature_flags(command, *flags, options->public_key);
  add_json_flag(command, runtime);
  command.callback([&runtime, options, from, to, root, dry_run, flags, pypi_variants] {
    auto source = channels::parse_channel(*from);
    if (!source) return report_error(runtime, source.error());
    auto target = channels::parse_channel(*to);
    if (!target) return report_error(runtime, target.error());
    options->from = *source;
    options->to = *target;
    options->root = store_root(runtime, *root);
    options->dry_run = *dry_run ? channels::DryRun::yes : channels::DryRun::no;
    options->signatures = flags->policy();
    options->upload_time = now_utc();
    if (!pypi_variants->empty()) options->pypi_variants = *pypi_variants;
    auto result = channels::run_promote(*options);
    if (!result) return report_error(runtime, result.error());
    if (runtime.json) {
      Json plan = Json::array();
      for (const auto& file : result->plan) plan.push_back(file_json(file));
      Json published = Json::array();
      for (const auto& file : result->published) published.push_back(published_json(file));
      Json staged = Json::array();
      for (const auto& file : result->staged) staged.push_back(staged_json(file));
      runtime.out << Json{{"dry_run", *dry_run},
                          {"plan", plan},
                          {"published", published},
                          {"pypi_staged", staged}}
                         .dump(2)
                  << '\n';
    } else {
      runtime.out << "plan: " << result->plan.size() << " file(s) of " << options->version << " from "
                  << *from << " to " << *to << '\n';
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
  command.add_option("--channel", *channel, "Channel (default nightly)");
  command.add_option("--keep", options->keep, "Newest PEP 440 versions kept per project (default 60)");
  command.add_option("--pin", options->pins, "A version never pruned (repeatable)");
  command.add_flag("--dry-run", *dry_run, "Print what would go; remove nothing");
  add_root_option(command, *root);
  add_json_flag(command, runtime);
  command.callback([&runtime, options, channel, root, dry_run] {
    auto parsed = channels::parse_channel(*channel);
    if (!parsed) return report_error(runtime, parsed.error());
    options->channel = *parsed;
    options->root = store_root(runtime, *root);
    options->dry_run = *dry_run ? channels::DryRun::yes : channels::DryRun::no;
    auto result = channels::run_prune(*options);
    if (!result) return report_error(runtime, result.error());
    if (runtime.json) {
      Json removed = Json::array();
      for (const auto& file : result->removed) removed.push_back(file_json(file));
      runtime.out
          << Json{{"dry_run", *dry_run}, {"removed", removed}, {"kept_files", result->kept_files}}.dump(2)
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
  command.add_option("file", options->filename, "Wheel file name")->required();
  command.add_option("--reason", options->reason, "Why (shown by pip)");
  command.add_option("--channel", *channel, "Channel (default nightly)");
  command.add_flag("--undo", *undo, "Un-yank the file");
  add_root_option(command, *root);
  add_json_flag(command, runtime);
  command.callback([&runtime, options, channel, root, undo] {
    auto parsed = channels::parse_channel(*channel);
    if (!parsed) return report_error(runtime, parsed.error());
    options->channel = *parsed;
    options->root = store_root(runtime, *root);
    options->action = *undo ? channels::YankAction::unyank : channels::YankAction::yank;
    auto variants = channels::run_yank(*options);
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

void register_index(CLI::App& command, Runtime& runtime) {
  auto root = std::make_shared<std::string>();
  auto store = std::make_shared<StoreFlags>();
  CLI::App* rebuild =
      command.add_subcommand("rebuild", "Re-render every index page from the store's listing");
  add_root_option(*rebuild, *root);
  add_store_options(*rebuild, *store, rebuild->get_option("--root"));
  add_json_flag(*rebuild, runtime);
  rebuild->callback([&runtime, root, store] {
    Result<channels::RebuildSummary> summary = fail(ErrorCategory::internal, "not run");
    if (store->is_s3()) {
      auto bucket = open_s3_store(runtime, *store);
      if (!bucket) return report_error(runtime, bucket.error());
      summary = channels::rebuild_store(**bucket);
    } else {
      summary = channels::rebuild_all(store_root(runtime, store->store.empty() ? *root : store->store));
    }
    if (!summary) return report_error(runtime, summary.error());
    if (runtime.json)
      runtime.out << Json{{"pages", summary->pages}, {"files", summary->files}}.dump(2) << '\n';
    else
      runtime.out << "rebuilt " << summary->pages << " page(s) over " << summary->files << " file(s)\n";
    finish(runtime, {});
  });
}

}  // namespace relforge::cli
