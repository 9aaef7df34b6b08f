#pragma once
// The read-only index server's request handling: PEP 691 content negotiation (Accept, ?format=),
// content types, ETag / If-None-Match, and nothing outside the root: the raw target is decoded
// once, dot-files, symlinks and non-files are 404, malformed paths 400. No sockets here.
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "platform/http_server.hpp"

namespace relforge::channels {

inline constexpr std::string_view k_json_type = "application/vnd.pypi.simple.v1+json";
inline constexpr std::string_view k_html_type = "application/vnd.pypi.simple.v1+html";

enum class PageFormat { json, html };

struct Negotiated {
  PageFormat format;
  std::string content_type;  // the concrete type answered
};

// nullopt: nothing acceptable (406). An empty Accept means text/html.
std::optional<Negotiated> negotiate(std::string_view accept);

platform::HttpResponse handle_request(const std::filesystem::path& root,
                                      const platform::HttpRequest& request);

}  // namespace relforge::channels
