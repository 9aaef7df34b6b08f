#include "channels/serve.hpp"

#include <algorithm>
#include <optional>
#include <vector>

#include "core/text.hpp"
#include "platform/digest.hpp"
#include "platform/open_beneath.hpp"
#include "platform/url_path.hpp"

namespace relforge::channels {
namespace fs = std::filesystem;
namespace {

// What a page is answered as, and the media types a client may name it by: the "latest" alias
// is answered as v1, but only where the client did not refuse v1 by name.
struct Answer {
  std::string_view type;
  std::string_view alias;
  PageFormat format;
};

constexpr Answer k_answers[] = {
    {k_json_type, "application/vnd.pypi.simple.latest+json", PageFormat::json},
    {k_html_type, "application/vnd.pypi.simple.latest+html", PageFormat::html},
    {"text/html", "", PageFormat::html},
};

// How well a media range names an answer: 0 not at all, then */*, type/*, the alias, the type.
int specificity(std::string_view range, const Answer& answer) {
  if (range == answer.type) return 4;
  if (!answer.alias.empty() && range == answer.alias) return 3;
  const std::string_view major = answer.type.substr(0, answer.type.find('/'));
  if (range.size() == major.size() + 2 && range.starts_with(major) && range.ends_with("/*")) return 2;
  return range == "*/*" ? 1 : 0;
}

// Server preference among equal weights, best first: a type the client named (or named by its
// family) JSON first, as PEP 691 recommends; one that only */* admits, which browsers and curl
// send, HTML first.
std::size_t preference(std::size_t answer, int specificity) {
  constexpr std::size_t named = std::size(k_answers);
  return specificity > 1 ? answer : named + (named - 1 - answer);
}

// RFC 9110 §12.4.2: qvalue = ( "0" [ "." 0*3DIGIT ] ) / ( "1" [ "." 0*3("0") ] ), and the
// parameter name is case-insensitive. A weight that is no qvalue (2, nan, inf) makes the range
// unacceptable rather than preferred.
std::optional<double> qvalue(std::string_view text) {
  if (text.empty() || (text[0] != '0' && text[0] != '1')) return std::nullopt;
  if (text.size() == 1) return text[0] == '1' ? 1.0 : 0.0;
  if (text[1] != '.' || text.size() > 5) return std::nullopt;
  double value = text[0] == '1' ? 1.0 : 0.0;
  double scale = 0.1;
  for (const char c : text.substr(2)) {
    if (c < '0' || c > '9' || (text[0] == '1' && c != '0')) return std::nullopt;
    value += (c - '0') * scale;
    scale /= 10;
  }
  return value;
}

double parse_q(std::string_view params) {
  for (auto param : core::split(params, ';')) {
    param = core::trim(param);
    if (param.size() >= 2 && (param[0] == 'q' || param[0] == 'Q') && param[1] == '=')
      return qvalue(core::trim(param.substr(2))).value_or(0.0);
  }
  return 1.0;
}

platform::HttpResponse status_page(int status, const std::string& message) {
  return platform::HttpResponse::text(status, message + "\n");
}

std::string content_type_for(std::string_view name) {
  if (name.ends_with(".whl")) return "application/octet-stream";
  if (name.ends_with(".metadata")) return "text/plain; charset=utf-8";
  if (name.ends_with(".provenance") || name.ends_with(".json")) return "application/json";
  if (name.ends_with(".html")) return "text/html; charset=utf-8";
  return "application/octet-stream";
}

}  // namespace

std::optional<Negotiated> negotiate(std::string_view accept) {
  if (core::trim(accept).empty()) return Negotiated{PageFormat::html, "text/html"};
  // RFC 9110 §12.5.1: each answer takes the weight of the most specific range that matches it, so
  // "text/html;q=0, */*" refuses text/html whatever */* says.
  struct Weight {
    int specificity = 0;
    double q = 0.0;
  };
  Weight weights[std::size(k_answers)];
  for (auto item : core::split(accept, ',')) {
    item = core::trim(item);
    const auto semi = item.find(';');
    const std::string type = core::to_lower(core::trim(item.substr(0, semi)));
    const double q = semi == std::string_view::npos ? 1.0 : parse_q(item.substr(semi + 1));
    for (std::size_t i = 0; i < std::size(k_answers); ++i) {
      const int level = specificity(type, k_answers[i]);
      if (level > weights[i].specificity) weights[i] = {level, q};
    }
  }
  std::optional<std::size_t> best;
  for (std::size_t i = 0; i < std::size(k_answers); ++i) {
    if (weights[i].specificity == 0 || weights[i].q <= 0.0) continue;
    if (!best || weights[i].q > weights[*best].q ||
        (weights[i].q == weights[*best].q &&
         preference(i, weights[i].specificity) < preference(*best, weights[*best].specificity)))
      best = i;
  }
  if (!best) return std::nullopt;
  return Negotiated{k_answers[*best].format, std::string(k_answers[*best].type)};
}

platform::HttpResponse handle_request(const fs::path& root, const platform::HttpRequest& request) {
  if (request.method != "GET" && request.method != "HEAD") {
    auto response = status_page(405, "read-only server: GET and HEAD only");
    response.headers.push_back({"Allow", "GET, HEAD"});
    return response;
  }
  // The raw target, decoded exactly once here: a path httplib decoded already would decode
  // "%252e%252e" to "..".
  const auto path = platform::decode_url_path(request.target);
  if (!path) return status_page(400, "bad path");
  for (const auto& segment : path->segments) {
    // Dot-files (the lock, partial copies, variant markers) never leave the server.
    if (segment.front() == '.') return status_page(404, "not found");
  }
  // Forbidden and missing look the same: a 404 tells nothing about what exists outside.
  auto entry = platform::open_beneath(root, path->segments);
  if (!entry) {
    return entry.error().category() == ErrorCategory::not_found ? status_page(404, "not found")
                                                                : status_page(500, "cannot open the path");
  }
  platform::HttpResponse response;
  std::string etag;
  if (entry->kind() == platform::EntryKind::folder) {
    if (!path->trailing_slash) {
      // The query goes along: "?format=..." chooses the page the redirect leads to.
      const auto end = request.target.find_first_of("?#");
      const std::string query = end != std::string::npos && request.target[end] == '?'
                                    ? request.target.substr(end, request.target.find('#', end) - end)
                                    : "";
      auto redirect = status_page(301, "moved");
      redirect.headers.push_back({"Location", request.target.substr(0, end) + "/" + query});
      return redirect;
    }
    std::string accept = request.header("accept").value_or("");
    if (const auto format = request.query_value("format")) {
      // The query is form-decoded, '+' into ' '; no media type holds a space, so it was a '+'
      // ("?format=application/vnd.pypi.simple.v1+json" as PEP 691 writes it).
      accept = *format;
      std::replace(accept.begin(), accept.end(), ' ', '+');
    }
    const auto negotiated = negotiate(accept);
    if (!negotiated) {
      return status_page(406, "none of the accepted types is served; ask for " + std::string(k_json_type) +
                                  " or " + std::string(k_html_type));
    }
    auto segments = path->segments;
    segments.push_back(negotiated->format == PageFormat::json ? "index.json" : "index.html");
    auto page = platform::open_beneath(root, segments);
    if (!page || page->kind() != platform::EntryKind::file) return status_page(404, "not found");
    auto body = page->read_all();
    if (!body) return status_page(500, "cannot read the page");
    etag = "\"" + platform::to_hex(platform::sha256(*body)).substr(0, 32) + "\"";
    response.content_type = negotiated->content_type;
    if (negotiated->format == PageFormat::html) response.content_type += "; charset=utf-8";
    response.body = std::move(*body);
    response.headers.push_back({"Vary", "Accept"});
    response.headers.push_back({"Cache-Control", "max-age=60"});
  } else {
    if (path->trailing_slash) return status_page(404, "not found");
    // Published files are immutable, so size and modification time identify the bytes.
    etag = "\"" + std::to_string(entry->size()) + "-" + std::to_string(entry->mtime_ns()) + "\"";
    response.content_type = content_type_for(path->segments.back());
    response.open_file = std::make_shared<const platform::OpenEntry>(std::move(*entry));
  }
  response.headers.push_back({"ETag", etag});
  if (const auto match = request.header("if-none-match")) {
    for (auto candidate : core::split(*match, ',')) {
      candidate = core::trim(candidate);
      if (candidate == etag || candidate == "W/" + etag || candidate == "*") {
        // RFC 9110 §15.4.5: the fields a 200 would carry for caches (ETag, Vary, Cache-Control).
        platform::HttpResponse not_modified;
        not_modified.status = 304;
        not_modified.content_type = response.content_type;
        not_modified.headers = response.headers;
        // Left out, httplib would say "Content-Length: 0"; a 304 may only repeat the 200's.
        const std::uint64_t length = response.open_file ? response.open_file->size() : response.body.size();
        not_modified.headers.push_back({"Content-Length", std::to_string(length)});
        return not_modified;
      }
    }
  }
  return response;
}

}  // namespace relforge::channels
