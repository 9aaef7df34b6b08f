#include "ci_relay/dashboard_format.hpp"

#include <charconv>

namespace relforge::ci_relay {

std::string human_duration(std::int64_t seconds) {
  if (seconds < 0) seconds = 0;
  struct Unit {
    std::int64_t size;
    const char* suffix;
  };
  constexpr Unit units[] = {{86400, "d"}, {3600, "h"}, {60, "m"}, {1, "s"}};
  for (std::size_t i = 0; i < std::size(units); ++i) {
    if (seconds < units[i].size && units[i].size != 1) continue;
    std::string out = std::to_string(seconds / units[i].size) + units[i].suffix;
    if (i + 1 < std::size(units)) {
      const std::int64_t rest = (seconds % units[i].size) / units[i + 1].size;
      if (rest > 0) out += " " + std::to_string(rest) + units[i + 1].suffix;
    }
    return out;
  }
  return "0s";
}

std::string relative_time(std::int64_t then, std::int64_t now) {
  const std::int64_t delta = now - then;
  const std::int64_t size = delta < 0 ? -delta : delta;
  if (size < 60) return "just now";
  const std::string amount = size >= 86400  ? std::to_string(size / 86400) + "d"
                             : size >= 3600 ? std::to_string(size / 3600) + "h"
                                            : std::to_string(size / 60) + "m";
  return delta < 0 ? "in " + amount : amount + " ago";
}

std::string_view utf8_prefix(std::string_view text, std::size_t max_chars) {
  std::size_t chars = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto byte = static_cast<unsigned char>(text[i]);
    if ((byte & 0xC0) != 0x80 && chars++ == max_chars) return text.substr(0, i);
  }
  return text;
}

std::string web_base(const RelayConfig& config) {
  std::string_view base = config.api_base;
  while (!base.empty() && base.back() == '/') base.remove_suffix(1);
  constexpr std::string_view enterprise = "/api/v3";
  if (base.size() > enterprise.size() && base.ends_with(enterprise) && base.starts_with("https://"))
    return std::string(base.substr(0, base.size() - enterprise.size()));
  return "https://github.com";
}

std::string commit_url(const RelayConfig& config, std::string_view sha) {
  return web_base(config) + "/" + config.upstream + "/commit/" + std::string(sha);
}

std::string pull_url(const RelayConfig& config, std::int64_t number) {
  return web_base(config) + "/" + config.upstream + "/pull/" + std::to_string(number);
}

std::string compare_url(const RelayConfig& config, std::string_view from, std::string_view to) {
  return web_base(config) + "/" + config.upstream + "/compare/" + std::string(from) + "..." + std::string(to);
}

std::optional<std::string> safe_link(std::string_view url) {
  if (!url.starts_with("https://") && !url.starts_with("http://")) return std::nullopt;
  for (const char c : url) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f || c == ' ') return std::nullopt;
  }
  return std::string(url);
}

std::optional<std::int64_t> pull_number_in(std::string_view message) {
  while (!message.empty() && (message.back() == ' ' || message.back() == '\n')) message.remove_suffix(1);
  if (!message.ends_with(')')) return std::nullopt;
  const auto open = message.rfind("(#");
  if (open == std::string_view::npos) return std::nullopt;
  const std::string_view digits = message.substr(open + 2, message.size() - open - 3);
  std::int64_t number = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), number);
  if (ec != std::errc() || end != digits.data() + digits.size() || digits.empty() || number <= 0)
    return std::nullopt;
  return number;
}

}  // namespace relforge::ci_relay
