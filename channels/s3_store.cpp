#include "channels/s3_store.hpp"
#include "core/text.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <functional>
#include <optional>
#include <set>
#include <thread>
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

// Answers that are not objects (errors, empty bodies) and listing pages are small; more is not S3.
constexpr std::size_t k_max_answer_bytes = std::size_t{1} << 20U;
constexpr std::size_t k_max_listing_bytes = std::size_t{64} << 20U;
// Truncated listing pages in a row with nothing on them before the listing is refused.
constexpr std::size_t k_max_empty_pages = 100;

// Why `key` cannot be sent (empty: it can). libcurl resolves "." and ".." segments before sending,
// so such a key would name another key, prefix or bucket; control bytes have no place in a key.
std::string key_problem(std::string_view key) {
  if (key.starts_with('/')) return "starts with '/'";
  for (const char c : key) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) return "holds a control byte";
  }
  for (std::size_t start = 0;;) {
    const auto slash = key.find('/', start);
    const auto segment = key.substr(start, slash == std::string_view::npos ? slash : slash - start);
    if (segment == "." || segment == "..") return "has a '" + std::string(segment) + "' segment";
    if (slash == std::string_view::npos) return "";
    start = slash + 1;
  }
}

// Text from a server as it goes into a message: control bytes as \xNN, so none reaches a terminal.
std::string printable(std::string_view text) {
  static constexpr char k_hex[] = "0123456789abcdef";
  std::string out;
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte == 0x7f) {
      out += "\\x";
      out += k_hex[byte >> 4U];
      out += k_hex[byte & 15U];
    } else {
      out += c;
    }
  }
  return out;
}

bool retryable(long status) {
  return status == 429 || status == 500 || status == 502 || status == 503 || status == 504;
}

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
    if (!written(*response)) return tl::unexpected(error_of(*response, "PUT", key));
    return PutResult::created;
  }

  Status put(const std::string& key, std::string_view bytes, const std::string& content_type) override {
    auto response = send({.method = "PUT",
                          .key = key,
                          .headers = {{"Content-Type", content_type}},
                          .payload_sha256 = platform::to_hex(platform::sha256(bytes)),
                          .body = std::string(bytes)});
    if (!response) return tl::unexpected(response.error());
    if (!written(*response)) return tl::unexpected(error_of(*response, "PUT", key));
    return {};
  }

  Result<std::optional<std::string>> get(const std::string& key) override {
    auto response = send({.method = "GET", .key = key, .max_body_bytes = m_options.max_object_bytes});
    if (!response) return tl::unexpected(response.error());
    if (response->status == 404 && code_of(*response) != "NoSuchBucket") return std::optional<std::string>();
    if (response->status != 200) return tl::unexpected(error_of(*response, "GET", key));
    return std::optional<std::string>(std::move(response->body));
  }

  Status download(const std::string& key, const fs::path& target, std::uint64_t max_bytes) override {
    // Held to what the object should hold: a hostile or broken endpoint cannot fill the disk.
    auto response = send({.method = "GET",
                          .key = key,
                          .response_file = target,
                          .max_body_bytes = static_cast<std::size_t>(std::max<std::uint64_t>(max_bytes, 1))});
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
    auto listed = list_pages(prefix, false, [&](const platform::XmlNode& page) -> Status {
      for (const auto& entry : page.children) {
        const auto* key = entry.name == "Contents" ? entry.find("Key") : nullptr;
        if (key == nullptr) continue;
        TRY(check_listed(key->text, prefix));
        ObjectInfo info;
        info.key = key->text.substr(base_prefix().size());
        info.size = std::strtoull(entry.child_text("Size", "0").c_str(), nullptr, 10);
        info.etag = entry.child_text("ETag");
        out.push_back(std::move(info));
      }
      return {};
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
    auto listed = list_pages(prefix, true, [&](const platform::XmlNode& page) -> Status {
      for (const auto& entry : page.children) {
        const auto* key = entry.name == "Contents"         ? entry.find("Key")
                          : entry.name == "CommonPrefixes" ? entry.find("Prefix")
                                                           : nullptr;
        if (key == nullptr) continue;
        TRY(check_listed(key->text, prefix));
        if (key->text.size() == under.size()) continue;  // the folder's own marker object
        std::string child = key->text.substr(under.size());
        const auto slash = child.find('/');
        if (slash != std::string::npos && slash + 1 != child.size()) {
          return fail(ErrorCategory::integrity, "the S3 listing of one level of " + describe(prefix) +
                                                    " names '" + key->text +
                                                    "', more than one level down: " + not_s3_hint());
        }
        out.push_back(std::move(child));
      }
      return {};
    });
    if (!listed) return tl::unexpected(listed.error());
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
  }

  Status copy(const std::string& from_key, const std::string& to_key) override {
    if (const std::string problem = key_problem(from_key); !problem.empty()) {
      return fail(ErrorCategory::invalid_input, "the S3 key '" + printable(full_key(from_key)) + "' " +
                                                    problem + ": no request was sent to copy it");
    }
    auto response = send({.method = "PUT",
                          .key = to_key,
                          .headers = {{"Content-Type", "application/octet-stream"},
                                      {"x-amz-copy-source", "/" + m_options.location.bucket + "/" +
                                                                url_escape_path(full_key(from_key))}}});
    if (!response) return tl::unexpected(response.error());
    // CopyObject can fail after its 200 status line; the body then holds an <Error>.
    if (!written(*response)) {
      return tl::unexpected(
          error_of(*response, "COPY", from_key).with_context("copying to " + describe(to_key)));
    }
    return {};
  }

  Status remove(const std::string& key) override {
    auto response = send({.method = "DELETE", .key = key});
    if (!response) return tl::unexpected(response.error());
    if ((response->status != 404 && !written(*response)) ||
        (response->status == 404 && code_of(*response) == "NoSuchBucket")) {
      return tl::unexpected(error_of(*response, "DELETE", key));
    }
    return {};
  }

private:
  std::string base_prefix() const {
    return m_options.location.prefix.empty() ? "" : m_options.location.prefix + "/";
  }

  static std::string not_s3_hint() {
    return "is --s3-endpoint an S3 server? Run relforge index check after fixing it";
  }

  // A listed key must lie under the listed prefix and be a key relforge can send back.
  Status check_listed(const std::string& key, const std::string& prefix) const {
    const std::string under = base_prefix() + prefix;
    std::string problem = key.starts_with(under) ? key_problem(key) : "lies outside " + under;
    if (problem.empty()) return {};
    return fail(ErrorCategory::integrity,
                "the S3 listing of " + describe(prefix) + " names the key '" + printable(key) + "', which " +
                    problem +
                    ": relforge never writes such a key and will not use it (remove "
                    "the object, or " +
                    not_s3_hint() + ")");
  }

  // Every page of a ListObjectsV2 of `prefix` (one level of it when `delimited`), in turn to `page`.
  // A continuation token seen before, too many pages or entries, or a run of empty truncated pages
  // ends the listing with an error: a server cannot keep relforge paging for ever.
  Status list_pages(const std::string& prefix, bool delimited,
                    const std::function<Status(const platform::XmlNode&)>& page) {
    std::string token;
    std::set<std::string> seen;
    std::size_t entries = 0;
    std::size_t empty_pages = 0;
    const std::string where = "S3 listing of " + describe(prefix);
    for (std::size_t pages = 1;; ++pages) {
      // Parameters in sorted order: libcurl 7.88 signs the query string as written.
      std::string query;
      if (!token.empty()) query += "continuation-token=" + encode_query_value(token) + "&";
      if (delimited) query += "delimiter=" + encode_query_value("/") + "&";
      query += "list-type=2&max-keys=" + std::to_string(m_options.list_page_size) +
               "&prefix=" + encode_query_value(base_prefix() + prefix);
      TRY_ASSIGN(
          const auto response,
          send({.method = "GET", .query = query, .max_body_bytes = k_max_listing_bytes, .where = prefix}));
      if (response.status != 200) return tl::unexpected(error_of(response, "LIST", prefix));
      // A listing that is not XML is an error, not an empty channel.
      TRY_ASSIGN(const auto root, platform::parse_xml(response.body, where, "ListObjectsV2 answer"));
      if (root.name != "ListBucketResult") {
        return fail(ErrorCategory::network, where + " answered <" + root.name +
                                                "> where <ListBucketResult> belongs (" + not_s3_hint() + ")");
      }
      TRY(page(root));
      const auto on_page = static_cast<std::size_t>(
          std::count_if(root.children.begin(), root.children.end(), [](const platform::XmlNode& node) {
            return node.name == "Contents" || node.name == "CommonPrefixes";
          }));
      entries += on_page;
      empty_pages = on_page == 0 ? empty_pages + 1 : 0;
      const std::string truncated = root.child_text("IsTruncated", "false");
      if (truncated == "false") return {};
      if (truncated != "true")
        return fail(ErrorCategory::network, where + " answered IsTruncated '" + printable(truncated) +
                                                "', neither true nor false (" + not_s3_hint() + ")");
      const auto* next = root.find("NextContinuationToken");
      if (next == nullptr || next->text.empty() || !seen.insert(next->text).second) {
        return fail(ErrorCategory::network,
                    where + " is truncated but gave no new continuation token (" + not_s3_hint() + ")");
      }
      if (entries > m_options.max_listed_objects || pages >= m_options.max_list_pages ||
          empty_pages > k_max_empty_pages) {
        return fail(
            ErrorCategory::network,
            where + " did not end after " + std::to_string(pages) + " pages and " + std::to_string(entries) +
                " entries (at most " + std::to_string(m_options.max_list_pages) + " pages, " +
                std::to_string(m_options.max_listed_objects) + " entries and " +
                std::to_string(k_max_empty_pages) + " empty pages in a row are read; " + not_s3_hint() + ")");
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
    std::size_t max_body_bytes = k_max_answer_bytes;
    std::string where{};  // for messages when there is no key (a listing's prefix)
  };

  std::string full_key(const std::string& key) const {
    return m_options.location.prefix.empty() ? key : m_options.location.prefix + "/" + key;
  }

  // A write took: a 2xx status, and no <Error> in its body (CopyObject can fail after its 200
  // status line, and a broken server may answer any write that way).
  static bool written(const platform::HttpClientResponse& response) {
    if (response.status < 200 || response.status >= 300) return false;
    return response.body.empty() || error_document(response.body).name != "Error";
  }

  Result<platform::HttpClientResponse> send(Call call) const {
    const std::string target = call.key.value_or(call.where);
    if (const std::string problem = key_problem(target); !problem.empty()) {
      return fail(ErrorCategory::invalid_input, "the S3 key '" + printable(full_key(target)) + "' " +
                                                    problem + ": no request was sent for it");
    }
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
    request.max_body_bytes = call.max_body_bytes;
    for (std::int64_t attempt = 1;; ++attempt) {
      auto response = platform::http_request(request);
      const bool transient =
          response ? retryable(response->status) : response.error().category() == ErrorCategory::network;
      if (m_options.retry.gives_up(attempt, transient ? core::Transient::yes : core::Transient::no)) {
        if (response) return response;
        return tl::unexpected(Error(response.error())
                                  .with_context("S3 " + call.method + " " + describe(target) + " (" +
                                                std::to_string(attempt) + " attempt(s))"));
      }
      std::this_thread::sleep_for(std::chrono::seconds(m_options.retry.delay_after(attempt)));
    }
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
    if (response.status >= 500 || response.status == 429) {
      return Error(ErrorCategory::network, text + " (a server-side failure through " +
                                               std::to_string(m_options.retry.max_attempts) +
                                               " attempts: retry later)");
    }
    if (response.status >= 300 && response.status < 400) {
      return Error(ErrorCategory::network,
                   text + " (a redirect" +
                       (response.header("location") ? " to " + printable(*response.header("location"))
                                                    : std::string()) +
                       ", never followed: set --s3-endpoint and --s3-region to the bucket's own)");
    }
    if (response.status >= 200 && response.status < 300)
      return Error(ErrorCategory::network, text + " with an <Error> body: the write did not take");
    return Error(ErrorCategory::io, text);
  }

  // nullopt when `key` is absent; else whether its bytes match (a conflict error when not).
  Result<std::optional<PutResult>> compare_existing(const std::string& key, const std::string& sha256_hex) {
    auto existing = head(key);
    if (!existing) return tl::unexpected(existing.error());
    if (!existing->has_value()) return std::optional<PutResult>();
    std::string stored = (*existing)->sha256;
    if (stored.empty()) {
      // Not uploaded by relforge: no sha256 metadata, so hash the bytes themselves, streamed.
      auto digest = object_sha256(*this, key, {});
      if (!digest) return tl::unexpected(digest.error());
      stored = std::move(*digest);
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
