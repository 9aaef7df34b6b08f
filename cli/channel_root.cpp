#include "cli/channel_root.hpp"

#include <utility>

namespace relforge::cli {
namespace {

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

}  // namespace

std::filesystem::path store_root(const Runtime& runtime, const std::string& option) {
  if (!option.empty()) return option;
  if (auto env = runtime.getenv("RELFORGE_CHANNEL_ROOT")) return *env;
  return "channels";
}

void add_root_option(CLI::App& command, std::string& root) {
  command.add_option("--root", root,
                     "Channel store directory (default $RELFORGE_CHANNEL_ROOT or ./channels)");
}

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

Result<std::unique_ptr<channels::ObjectStore>> open_store(const Runtime& runtime, const StoreFlags& flags,
                                                          const std::string& root) {
  if (flags.is_s3()) return open_s3_store(runtime, flags);
  return std::unique_ptr<channels::ObjectStore>(std::make_unique<channels::FilesystemObjectStore>(
      store_root(runtime, flags.store.empty() ? root : flags.store)));
}

Result<std::unique_ptr<channels::ObjectStore>> open_existing_store(const Runtime& runtime,
                                                                   const StoreFlags& flags,
                                                                   const std::string& root) {
  if (!flags.is_s3()) {
    const std::filesystem::path base = store_root(runtime, flags.store.empty() ? root : flags.store);
    std::error_code error;
    const auto status = std::filesystem::status(base, error);
    if (!std::filesystem::exists(status))
      return fail(ErrorCategory::not_found,
                  "channel store " + base.string() + " does not exist (check --root)");
    if (!std::filesystem::is_directory(status))
      return fail(ErrorCategory::invalid_input, "channel store " + base.string() +
                                                    " is not a folder (check --root: it names the folder "
                                                    "that holds whl/)");
  }
  return open_store(runtime, flags, root);
}

}  // namespace relforge::cli
