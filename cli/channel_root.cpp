#include "cli/channel_root.hpp"

namespace relforge::cli {

std::filesystem::path store_root(const Runtime& runtime, const std::string& option) {
  if (!option.empty()) return option;
  if (auto env = runtime.getenv("RELFORGE_CHANNEL_ROOT")) return *env;
  return "channels";
}

void add_root_option(CLI::App& command, std::string& root) {
  command.add_option("--root", root,
                     "Channel store directory (default $RELFORGE_CHANNEL_ROOT or ./channels)");
}

}  // namespace relforge::cli
