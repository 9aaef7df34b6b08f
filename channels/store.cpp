#include "channels/store.hpp"

#include <algorithm>
#include <system_error>

#include "core/channel_name.hpp"
#include "platform/fs.hpp"
#include "platform/interrupt_cleanup.hpp"

namespace relforge::channels {
namespace fs = std::filesystem;

std::string_view channel_name(Channel channel) {
  switch (channel) {
    case Channel::stable:
      return "stable";
    case Channel::test:
      return "test";
    case Channel::nightly:
      return "nightly";
  }
  return "stable";
}

Result<Channel> parse_channel(std::string_view name) {
  if (core::canonical_channel(name) == core::k_stable_channel) return Channel::stable;
  if (name == "test") return Channel::test;
  if (name == "nightly") return Channel::nightly;
  return fail(ErrorCategory::invalid_input, "unknown channel '" + std::string(name) +
                                                "' (channels: stable, test, nightly; release is stable)");
}

bool channel_requires_signatures(Channel channel) {
  return channel != Channel::nightly;
}

fs::path channel_dir(const fs::path& root, Channel channel) {
  if (channel == Channel::stable) return root / "whl";
  return root / "whl" / std::string(channel_name(channel));
}

std::string channel_key(Channel channel) {
  if (channel == Channel::stable) return "whl";
  return "whl/" + std::string(channel_name(channel));
}

Status copy_file_atomic(const fs::path& from, const fs::path& to) {
  const fs::path temp = to.parent_path() / ("." + to.filename().string() + ".partial");
  const platform::RemovedOnInterrupt removed_on_interrupt(temp);
  std::error_code error;
  fs::copy_file(from, temp, fs::copy_options::overwrite_existing, error);
  // The bytes reach the disk before the name does: a sidecar written next must never describe a
  // wheel that a power cut left empty.
  if (!error) error = platform::fsync_path(temp);
  if (!error) fs::rename(temp, to, error);
  if (error) {
    fs::remove(temp);
    return fail(ErrorCategory::io,
                "cannot copy " + from.string() + " to " + to.string() + ": " + error.message());
  }
  return {};
}

}  // namespace relforge::channels
