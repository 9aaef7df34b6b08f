#pragma once
// Pure formatting for the dashboard: durations and ages people read ("3m 12s", "2h ago"), the
// GitHub web links of commits and pull requests, and which job URLs may become links at all.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "ci_relay/config.hpp"

namespace relforge::ci_relay {

// Two largest units: "42s", "3m 12s", "2h 5m", "3d 4h"; negative durations print as "0s".
std::string human_duration(std::int64_t seconds);
// "just now" under a minute, else the largest unit: "5m ago", "3h ago", "2d ago" ("in 5m" ahead).
std::string relative_time(std::int64_t then, std::int64_t now);

// The first `max_chars` characters of UTF-8 `text`, never cutting a character in half (a byte
// that does not start a character stays with the one before it).
std::string_view utf8_prefix(std::string_view text, std::size_t max_chars);

// The web host that pairs with config.api_base: https://github.com for api.github.com and anything
// unrecognised, https://HOST for a GitHub Enterprise Server base ending in /api/v3.
std::string web_base(const RelayConfig& config);
std::string commit_url(const RelayConfig& config, std::string_view sha);
std::string pull_url(const RelayConfig& config, std::int64_t number);
std::string compare_url(const RelayConfig& config, std::string_view from, std::string_view to);

// `url` when it is an absolute http(s) URL without control characters, else nullopt: job URLs
// come from webhook payloads and must never become javascript: or data: links.
std::optional<std::string> safe_link(std::string_view url);

// The pull request a squash-merged commit message names at its end ("Fix x (#123)").
std::optional<std::int64_t> pull_number_in(std::string_view message);

}  // namespace relforge::ci_relay
