#include "channels/s3_store.hpp"
#include "core/text.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <functional>
#include <optional>
#include <vector>

#include "channels/index.hpp"
#include "core/try.hpp"
#include "platform/digest.hpp"
#include "platform/http_client.hpp"
#include "platform/xml.hpp"

namespace relforge::channels {
namespace fs = std::filesystem;
namespace {

constexpr std::string_view k_empty_sha256 =
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

// Query values are encoded like SigV4's canonical query ('/' too), since libcurl signs them as written.
std::string encode_query_value(std::string_view text) {
  return core::percent_encode(text);
}

// The root of an S3 answer's XML body; a body that is not XML (an empty 404, a proxy's HTML page)
// reads as an empty <Error>, so callers fall back to the HTTP status.
platform::XmlNode error_document(std::string_view body) {
  auto root = platform::parse_xml(body, "S3 answer", "S3 XML answer");
  return root ? std::move(*root) : platform::XmlNode{};
}

class S3Store final : public ObjectStore {
public:
  explicit S3Store(S3Options options) : m_options(std::move(options)) {
    while (!m_options.endpoint.empty() && m_options.endpoint.back() == '/') m_options.endpoint.pop_back();
  }

  std::string describe(const std::string& key) const override {
    return "s3://" + m_options.location.bucket + "/" + full_key(key);
  }

  Result<PutResult> put_if_absent(const std::string& key, const fs::path& file, const std::string& sha256_hex,
                                  const std::string& content_type) override {
    if (auto existing = compare_existing(key, sha256_hex); !existing || existing->has_value()) {
      if (!existing) return tl::unexpected(existing.error());
      return **existing;
    }
    // If-None-Match makes AWS refuse a racing second writer (412); servers that ignore it were
    // covered by the check above.
    auto response = send({.method = "PUT",
                          .key = key,
                          .headers = {{"Content-Type", content_type},
                                      {"If-None-Match", "*"},
                                      {"x-amz-meta-sha256", sha256_hex}},
                          .payload_sha256 = sha256_hex,
                          .body_file = file});
    if (!response) return tl::unexpected(response.error());
    if (response->status == 412 || response->status == 409) {
      auto raced = compare_existing(key, sha256_hex);
      if (!raced) return tl::unexpected(raced.error());
      if (raced->has_value()) return **raced;
    }
    if (response->status != 200) return tl::unexpected(error_of(*response, "PUT", key));
    return PutResult::created;
  }

  Status put(const std::string& key, std::string_view bytes, const std::string& content_type) override {
    auto response = send({.method = "PUT",
                          .key = key,
                          .headers = {{"Content-Type", content_type}},
                          .payload_sha256 = platform::to_hex(platform::sha256(bytes)),
                          .body = std::string(bytes)});
    if (!response) return tl::unexpected(response.error());
    if (response->status != 200) return tl::unexpected(error_of(*response, "PUT", key));
    return {};
  }

  Result<std::optional<std::string>> get(const std::string& key) override {
    auto response = send({.method = "GET", .key = key});
    if (!response) return tl::unexpected(response.error());
    if (response->status == 404 && code_of(*response) != "NoSuchBucket") return std::optional<std::string>();
    if (response->status != 200) return tl::unexpected(error_of(*response, "GET", key));
    return std::optional<std::string>(std::move(response->body));
  }

  Status download(const std::string& key, const fs::path& target) override {
    auto response = send({.method = "GET", .key = key, .response_file = target});
    if (!response) return tl::unexpected(response.error());
    if (response->status != 200) return tl::unexpected(error_of(*response, "GET", key));
    return {};
  }

  Result<std::optional<ObjectInfo>> head(const std::string& key) override {
    auto response = send({.method = "HEAD", .key = key});
    if (!response) return tl::unexpected(response.error());
    if (response->status == 404) return std::optional<ObjectInfo>();
    if (response->status != 200) return tl::unexpected(error_of(*response, "HEAD", key));
    ObjectInfo info;
    info.key = key;
    const std::string length = response->header("content-length").value_or("0");
    info.size = std::strtoull(length.c_str(), nullptr, 10);
    info.etag = response->header("etag").value_or("");
    info.sha256 = response->header("x-amz-meta-sha256").value_or("");
    return std::optional<ObjectInfo>(std::move(info));
  }

  std::optional<fs::path> local_path(const std::string&) const override { return std::nullopt; }

  // No lock: see ObjectStore::lock. Uploads are atomic, so there are no temp objects either.
  Result<std::unique_ptr<StoreLock>> lock() override { return std::make_unique<StoreLock>(); }

  Result<std::vector<ObjectInfo>> list(const std::string& prefix, Temporaries) override {
    std::vector<ObjectInfo> out;
    auto listed = list_pages(prefix, false, [&](const platform::XmlNode& page) {
      for (const auto& entry : page.children) {
        const auto* key = entry.name == "Contents" ? entry.find("Key") : nullptr;
        if (key == nullptr || !key->text.starts_with(base_prefix())) continue;
        ObjectInfo info;
        info.key = key->text.substr(base_prefix().size());
        info.size = std::strtoull(entry.child_text("Size", "0").c_str(), nullptr, 10);
        info.etag = entry.child_text("ETag");
        out.push_back(std::move(info));
      }
    });
    if (!listed) return tl::unexpected(listed.error());
    std::sort(out.begin(), out.end(), [](const ObjectInfo& a, const ObjectInfo& b) { return a.key < b.key; });
    return out;
  }

  // One delimited listing: the folders come back as common prefixes, so a publish reads one level
  // of a channel instead of every object in it.
  Result<std::vector<std::string>> children(const std::string& prefix) override {
    std::vector<std::string> out;
    const std::string under = base_prefix() + prefix;
    auto listed = list_pages(prefix, true, [&](const platform::XmlNode& page) {
      for (const auto& entry : page.children) {
        const auto* key = entry.name == "Contents"         ? entry.find("Key")
                          : entry.name == "CommonPrefixes" ? entry.find("Prefix")
                                                           : nullptr;
        if (key != nullptr && key->text.size() > under.size() && key->text.starts_with(under))
          out.push_back(key->text.substr(under.size()));
      }
    });
    if (!listed) return tl::unexpected(listed.error());
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
  }

  Status copy(const std::string& from_key, const std::string& to_key) override {
    auto response = send({.method = "PUT",
                          .key = to_key,
                          .headers = {{"Content-Type", "application/octet-stream"},
                                      {"x-amz-copy-source", "/" + m_options.location.bucket + "/" +
                                                                url_escape_path(full_key(from_key))}}});
    if (!response) return tl::unexpected(response.error());
    // CopyObject can fail after its 200 status line; the body then holds an <Error>.
    if (response->status != 200 || response->body.find("<Error>") != std::string::npos) {
      return tl::unexpected(
          error_of(*response, "COPY", from_key).with_context("copying to " + describe(to_key)));
    }
    return {};
  }

  Status remove(const std::string& key) override {
    auto response = send({.method = "DELETE", .key = key});
    if (!response) return tl::unexpected(response.error());
    if (response->status != 204 && response->status != 200 && response->status != 404) {
      return tl::unexpected(error_of(*response, "DELETE", key));
    }
    return {};
  }

private:
  std::string base_prefix() const {
    return m_options.location.prefix.empty() ? "" : m_options.location.prefix + "/";
  }

  // Every page of a ListObjectsV2 of `prefix` (one level of it when `delimited`), in turn to `page`.
  Status list_pages(const std::string& prefix, bool delimited,
                    const std::function<void(const platform::XmlNode&)>& page) {
    std::string token;
    for (;;) {
      // Parameters in sorted order: libcurl 7.88 signs the query string as written.
      std::string query;
      if (!token.empty()) query += "continuation-token=" + encode_query_value(token) + "&";
      if (delimited) query += "delimiter=" + encode_query_value("/") + "&";
      query += "list-type=2&max-keys=" + std::to_string(m_options.list_page_size) +
               "&prefix=" + encode_query_value(base_prefix() + prefix);
      TRY_ASSIGN(const auto response, send({.method = "GET", .query = query, .where = prefix}));
      if (response.status != 200) return tl::unexpected(error_of(response, "LIST", prefix));
      // A listing that is not XML is an error, not an empty channel.
      TRY_ASSIGN(const auto root, platform::parse_xml(response.body, "S3 listing of " + describe(prefix),
                                                      "ListObjectsV2 answer"));
      page(root);
      if (root.child_text("IsTruncated", "false") != "true") return {};
      const auto* next = root.find("NextContinuationToken");
      if (next == nullptr || next->text.empty() || next->text == token) {
        return fail(ErrorCategory::network,
                    "S3 listing of " + describe(prefix) + " is truncated but gave no new continuation token");
      }
      token = next->text;
    }
  }

  struct Call {
    std::string method;
    std::optional<std::string> key{};  // nullopt: the bucket itself
    std::string query{};
    std::vector<std::pair<std::string, std::string>> headers{};
    std::string payload_sha256 = std::string(k_empty_sha256);
    std::string body{};
    std::optional<fs::path> body_file{};
    std::optional<fs::path> response_file{};
    std::string where{};  // for messages when there is no key (a listing's prefix)
  };

  std::string full_key(const std::string& key) const {
    return m_options.location.prefix.empty() ? key : m_options.location.prefix + "/" + key;
  }

  Result<platform::HttpClientResponse> send(Call call) const {
    platform::HttpClientRequest request;
    request.method = call.method;
    request.url = m_options.endpoint + "/" + m_options.location.bucket;
    if (call.key) request.url += "/" + url_escape_path(full_key(*call.key));
    if (!call.query.empty()) request.url += "?" + call.query;
    request.headers = std::move(call.headers);
    request.headers.emplace_back("x-amz-content-sha256", call.payload_sha256);
    if (!m_options.session_token.empty())
      request.headers.emplace_back("x-amz-security-token", m_options.session_token);
    request.body = std::move(call.body);
    request.body_file = std::move(call.body_file);
    request.response_file = std::move(call.response_file);
    request.timeout = m_options.timeout;
    request.aws_sigv4 = "aws:amz:" + m_options.region + ":s3";
    request.user = m_options.access_key;
    request.password = m_options.secret_key;
    auto response = platform::http_request(request);
    if (!response) {
      return tl::unexpected(
          Error(response.error())
              .with_context("S3 " + call.method + " " + describe(call.key.value_or(call.where))));
    }
    return response;
  }

  static std::string code_of(const platform::HttpClientResponse& response) {
    return error_document(response.body).child_text("Code");
  }

  Error error_of(const platform::HttpClientResponse& response, const std::string& what,
                 const std::string& key) const {
    const std::string code = code_of(response);
    const std::string message = error_document(response.body).child_text("Message");
    std::string text = "S3 " + what + " " + describe(key) + " at " + m_options.endpoint + " answered HTTP " +
                       std::to_string(response.status) + (code.empty() ? "" : " " + code) +
                       (message.empty() ? "" : ": " + message);
    if (response.status == 401 || response.status == 403) {
      return Error(ErrorCategory::auth,
                   text + " (check AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and --s3-region)");
    }
    if (code == "NoSuchBucket") {
      return Error(ErrorCategory::not_found, text + " (create the bucket or fix the s3:// URL)");
    }
    if (response.status >= 500)
      return Error(ErrorCategory::network, text + " (a server-side failure: retry later)");
    return Error(ErrorCategory::io, text);
  }

  // nullopt when `key` is absent; else whether its bytes match (a conflict error when not).
  Result<std::optional<PutResult>> compare_existing(const std::string& key, const std::string& sha256_hex) {
    auto existing = head(key);
    if (!existing) return tl::unexpected(existing.error());
    if (!existing->has_value()) return std::optional<PutResult>();
    std::string stored = (*existing)->sha256;
    if (stored.empty()) {
      // Not uploaded by relforge: no sha256 metadata, so hash the bytes themselves.
      auto bytes = get(key);
      if (!bytes) return tl::unexpected(bytes.error());
      if (!bytes->has_value()) return std::optional<PutResult>();
      stored = platform::to_hex(platform::sha256(**bytes));
    }
    if (stored != sha256_hex) return tl::unexpected(immutable_conflict(describe(key), stored));
    return std::optional<PutResult>(PutResult::identical);
  }

  S3Options m_options;
};

}  // namespace

bool is_s3_url(std::string_view text) {
  return text.starts_with("s3://");
}

Result<S3Location> parse_s3_url(std::string_view url) {
  if (!is_s3_url(url)) {
    return fail(ErrorCategory::invalid_input,
                "'" + std::string(url) + "' is not an s3:// URL (s3://bucket/prefix)");
  }
  std::string_view rest = url.substr(5);
  S3Location location;
  const auto slash = rest.find('/');
  location.bucket = std::string(rest.substr(0, slash));
  if (slash != std::string_view::npos) {
    std::string_view prefix = rest.substr(slash + 1);
    while (!prefix.empty() && prefix.back() == '/') prefix.remove_suffix(1);
    location.prefix = std::string(prefix);
  }
  const bool bucket_ok = location.bucket.size() >= 3 && location.bucket.size() <= 63 &&
                         std::all_of(location.bucket.begin(), location.bucket.end(), [](char c) {
                           return std::islower(static_cast<unsigned char>(c)) ||
                                  std::isdigit(static_cast<unsigned char>(c)) || c == '-' || c == '.';
                         });
  if (!bucket_ok) {
    return fail(ErrorCategory::invalid_input, "'" + location.bucket + "' in " + std::string(url) +
                                                  " is not an S3 bucket name (3-63 of a-z 0-9 . -)");
  }
  if (location.prefix.find("//") != std::string::npos || location.prefix.starts_with('/')) {
    return fail(ErrorCategory::invalid_input,
                "the prefix of " + std::string(url) + " has an empty path segment");
  }
  return location;
}

Result<std::unique_ptr<ObjectStore>> make_s3_store(S3Options options) {
  if (options.location.bucket.empty()) return fail(ErrorCategory::invalid_input, "no S3 bucket given");
  if (options.region.empty()) return fail(ErrorCategory::invalid_input, "no S3 region given (--s3-region)");
  if (options.access_key.empty() || options.secret_key.empty()) {
    return fail(ErrorCategory::auth, "no S3 credentials for s3://" + options.location.bucket +
                                         ": set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY");
  }
  if (options.list_page_size == 0) options.list_page_size = 1000;
  if (options.endpoint.empty()) options.endpoint = "https://s3." + options.region + ".amazonaws.com";
  if (!options.endpoint.starts_with("http://") && !options.endpoint.starts_with("https://")) {
    return fail(ErrorCategory::invalid_input,
                "S3 endpoint '" + options.endpoint + "' must start with http:// or https://");
  }
  return std::unique_ptr<ObjectStore>(std::make_unique<S3Store>(std::move(options)));
}

}  // namespace relforge::channels
