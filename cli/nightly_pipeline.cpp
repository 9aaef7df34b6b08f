#include "cli/nightly_pipeline.hpp"

#include <algorithm>
#include <thread>

#include "builders/build_config.hpp"
#include "builders/runner.hpp"
#include "channels/store.hpp"
#include "cli/build_setup.hpp"
#include "cli/nightly_signing.hpp"
#include "core/text.hpp"
#include "matrix/config.hpp"
#include "matrix/expand.hpp"
#include "platform/fs.hpp"
#include "platform/process.hpp"
#include "release/build_version.hpp"
#include "release/config.hpp"

namespace relforge::cli {
namespace {

namespace fs = std::filesystem;

std::string git_output(const fs::path& dir, std::vector<std::string> args) {
  platform::ProcessSpec git;
  git.argv = {"git", "-C", dir.string()};
  git.argv.insert(git.argv.end(), args.begin(), args.end());
  auto result = platform::run_process(git);
  if (!result || result->exit_code != 0) return {};
  return std::string(core::trim(result->out));
}

// The matrix knows channels as nightly | test | release; the store calls the last one stable.
std::string matrix_channel(channels::Channel channel) {
  return channel == channels::Channel::stable ? "release" : std::string(channels::channel_name(channel));
}

Result<builders::BuildOptions> build_options(const NightlyOptions& nightly, channels::Channel channel,
                                             const std::string& version) {
  BuildSetup setup;
  setup.config = nightly.config.string();
  setup.channel = matrix_channel(channel);
  setup.selection = nightly.selection;
  if (nightly.state_dir) setup.state_dir = nightly.state_dir->string();
  setup.path_env = nightly.path_env;
  setup.getenv = nightly.getenv;
  auto options = prepare_build_options(setup);
  if (!options) return options;
  options->config.version = version;
  options->jobs = nightly.jobs;
  options->resume = nightly.resume;
  options->now_unix = nightly.now_unix;
  options->on_line = nightly.on_line;
  return options;
}

std::string index_base(const NightlyOptions& options) {
  if (!options.base_url.empty()) {
    std::string base = options.base_url;
    while (!base.empty() && base.back() == '/') base.pop_back();
    return base;
  }
  return "file://" + fs::absolute(options.root).lexically_normal().string();
}

std::vector<std::string> install_commands(const NightlyOptions& options, channels::Channel channel,
                                          const std::vector<channels::PublishedFile>& published) {
  const std::string channel_path = channels::channel_dir("", channel).string();
  std::vector<std::string> out;
  for (const auto& file : published) {
    std::string command = "pip install ";
    if (channel == channels::Channel::nightly) command += "--pre ";
    command += file.project + " --index-url " + index_base(options) + "/" + channel_path + "/" + file.variant;
    if (std::find(out.begin(), out.end(), command) == out.end()) out.push_back(command);
  }
  return out;
}

}  // namespace

Result<std::string> nightly_version(const fs::path& config, const std::string& date, std::string* source) {
  auto text = platform::read_file(config);
  if (!text) return tl::unexpected(text.error());
  auto release = release::parse_release_config(*text, config.string());
  if (!release) return tl::unexpected(release.error());
  auto build = builders::parse_build_config(*text, config.string());
  if (!build) return tl::unexpected(build.error());
  release::BuildVersionInputs inputs;
  inputs.channel = "nightly";
  inputs.date = date;
  const fs::path version_file = config.parent_path() / release->version_file;
  std::error_code error;
  if (fs::is_regular_file(version_file, error)) {
    auto file_text = platform::read_file(version_file);
    if (!file_text) return tl::unexpected(file_text.error());
    inputs.version_file_text = *file_text;
    if (source) *source = version_file.string();
  } else {
    inputs.version_file_text = build->version;
    if (source) *source = config.string() + " [build] version";
  }
  auto version = release::build_version(inputs);
  if (!version) return tl::unexpected(with_context(std::move(version), "nightly version").error());
  return version->version;
}

Result<NightlyOutput> run_nightly(const NightlyOptions& options) {
  auto channel = channels::parse_channel(options.channel);
  if (!channel) return tl::unexpected(channel.error());
  // The key is checked before anything is built: a bad key must not cost a whole build.
  std::optional<SigningKeys> keys;
  if (options.key) {
    auto loaded = load_signing_keys(*options.key, options.public_key);
    if (!loaded) return tl::unexpected(loaded.error());
    keys = std::move(*loaded);
  }
  NightlyOutput out;
  auto version = nightly_version(options.config, options.date, &out.version_source);
  if (!version) return tl::unexpected(version.error());
  out.version = *version;
  auto build = build_options(options, *channel, out.version);
  if (!build) return tl::unexpected(build.error());
  auto cells = builders::run_build(*build);
  if (!cells) return tl::unexpected(cells.error());
  out.cells = std::move(*cells);

  std::vector<fs::path> wheels;
  std::vector<std::size_t> built_cells;
  std::vector<std::string> waiting;
  for (std::size_t i = 0; i < out.cells.size(); ++i) {
    const auto& cell = out.cells[i];
    if (cell.result == builders::CellResult::succeeded || cell.result == builders::CellResult::up_to_date) {
      ++out.built;
      wheels.emplace_back(cell.wheel);
      built_cells.push_back(i);
    } else if (cell.result == builders::CellResult::waiting) {
      ++out.waiting;
      waiting.push_back(cell.cell + ": " + cell.message);
    } else {
      ++out.failed;
    }
  }
  if (out.built == 0 && out.failed == 0) {
    return fail(ErrorCategory::nothing_selected,
                "none of the " + std::to_string(out.cells.size()) +
                    " selected cells can be built on this machine, so nothing was published (" +
                    core::join(waiting, "; ") +
                    "): select cells this machine has a runner for (see "
                    "'relforge build --plan')");
  }
  if (wheels.empty()) return out;

  if (keys) {
    ProvenanceContext context;
    context.build = &*build;
    context.channel = std::string(channels::channel_name(*channel));
    context.source_repository = git_output(build->config.config_dir, {"remote", "get-url", "origin"});
    for (const auto index : built_cells) {
      auto signed_wheel = sign_built_wheel(*keys, context, out.cells[index]);
      if (!signed_wheel) return tl::unexpected(signed_wheel.error());
      out.signed_wheels.push_back(std::move(*signed_wheel));
    }
  }
  channels::PublishOptions publish;
  publish.root = options.root;
  publish.channel = *channel;
  publish.files = wheels;
  publish.signatures = keys ? channels::SignaturePolicy::require : channels::SignaturePolicy::channel_default;
  if (keys) publish.public_key = keys->public_key_path;
  publish.upload_time = options.upload_time;
  auto published = channels::run_publish(publish);
  if (!published)
    return tl::unexpected(with_context(std::move(published), "publishing the built wheels").error());
  out.published = std::move(*published);
  out.install = install_commands(options, *channel, out.published);
  return out;
}

}  // namespace relforge::cli
