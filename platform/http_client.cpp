#include "platform/http_client.hpp"

#include <curl/curl.h>
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <mutex>
#include <system_error>

#include "core/text.hpp"
#include "platform/fs.hpp"
#include "platform/interrupt_cleanup.hpp"

namespace relforge::platform {
namespace fs = std::filesystem;
namespace {

// curl_global_init is not thread-safe and must run once before any other curl call.
void global_init() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

struct FileCloser {
  void operator()(std::FILE* file) const { std::fclose(file); }
};
using FilePtr = std::unique_ptr<std::FILE, FileCloser>;

// A new file only: a file or link already at `path` (planted under the temp name) is never
// written through. 0666 less the umask, as a file `fopen` creates.
FilePtr create_new_file(const fs::path& path) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
  if (fd < 0) return nullptr;
  FilePtr file(::fdopen(fd, "wb"));
  if (!file) ::close(fd);
  return file;
}

// Where the response body goes: memory, or (for a 2xx answer with response_file set) a temp file
// beside the target that is renamed into place once the transfer completed.
struct BodySink {
  CURL* handle = nullptr;
  std::string* body = nullptr;
  const std::optional<fs::path>* target = nullptr;
  fs::path temp{};
  FilePtr file{};
  std::size_t limit = 0;  // 0: none
  std::size_t received = 0;
  bool decided = false;
  bool write_failed = false;
  std::string create_error{};  // why the temp file could not be created, when it could not
  bool too_large = false;
};

bool is_success(long status) {
  return status >= 200 && status < 300;
}

std::size_t on_body(char* data, std::size_t size, std::size_t count, void* user) {
  auto* sink = static_cast<BodySink*>(user);
  const std::size_t bytes = size * count;
  if (sink->limit != 0 && bytes > sink->limit - sink->received) {
    sink->too_large = true;
    return 0;  // aborts the transfer
  }
  sink->received += bytes;
  if (!sink->decided) {
    sink->decided = true;
    long status = 0;
    curl_easy_getinfo(sink->handle, CURLINFO_RESPONSE_CODE, &status);
    if (sink->target->has_value() && is_success(status)) {
      sink->file = create_new_file(sink->temp);
      if (!sink->file) {
        sink->create_error = std::strerror(errno);
        sink->write_failed = true;
        return 0;  // aborts the transfer
      }
    }
  }
  if (sink->file) {
    if (std::fwrite(data, 1, bytes, sink->file.get()) != bytes) {
      sink->write_failed = true;
      return 0;
    }
    return bytes;
  }
  sink->body->append(data, bytes);
  return bytes;
}

std::size_t on_read(char* buffer, std::size_t size, std::size_t count, void* user) {
  auto* file = static_cast<std::FILE*>(user);
  const std::size_t got = std::fread(buffer, 1, size * count, file);
  if (got == 0 && std::ferror(file)) return CURL_READFUNC_ABORT;
  return got;
}

std::size_t on_header(char* data, std::size_t size, std::size_t count, void* user) {
  auto* headers = static_cast<std::multimap<std::string, std::string>*>(user);
  const std::string_view line(data, size * count);
  // A new status line starts a new header block (after 100 Continue or a redirect): keep only
  // the final response's headers.
  if (line.rfind("HTTP/", 0) == 0) {
    headers->clear();
  } else if (const auto colon = line.find(':'); colon != std::string_view::npos) {
    headers->emplace(core::to_lower(core::trim(line.substr(0, colon))),
                     std::string(core::trim(line.substr(colon + 1))));
  }
  return size * count;
}

struct CurlDeleter {
  void operator()(CURL* handle) const { curl_easy_cleanup(handle); }
};
struct SlistDeleter {
  void operator()(curl_slist* list) const { curl_slist_free_all(list); }
};

// The method, and the body from memory or from a file (`upload` holds it open for the transfer).
Status set_method(CURL* h, const HttpClientRequest& request, FilePtr& upload) {
  if (request.body_file) {
    std::error_code error;
    const auto size = fs::file_size(*request.body_file, error);
    if (!error) upload.reset(std::fopen(request.body_file->c_str(), "rb"));
    if (error || !upload) {
      return fail(ErrorCategory::io, "cannot read " + request.body_file->string() + " to send it to " +
                                         request.url + (error ? ": " + error.message() : ""));
    }
    curl_easy_setopt(h, CURLOPT_UPLOAD, 1L);
    curl_easy_setopt(h, CURLOPT_READFUNCTION, on_read);
    curl_easy_setopt(h, CURLOPT_READDATA, upload.get());
    curl_easy_setopt(h, CURLOPT_INFILESIZE_LARGE, static_cast<curl_off_t>(size));
    if (request.method != "PUT") curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, request.method.c_str());
  } else if (request.method == "HEAD") {
    curl_easy_setopt(h, CURLOPT_NOBODY, 1L);
  } else if (request.method != "GET" || !request.body.empty()) {
    curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, request.method.c_str());
    if (!request.body.empty() || request.method == "POST" || request.method == "PUT") {
      curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(request.body.size()));
      curl_easy_setopt(h, CURLOPT_POSTFIELDS, request.body.data());
    }
  }
  return {};
}

// The request's headers as curl takes them, with "Expect:" dropped and a raw body's type named.
std::unique_ptr<curl_slist, SlistDeleter> header_list(const HttpClientRequest& request) {
  curl_slist* raw_list = nullptr;
  const auto append = [&raw_list](const std::string& line) {
    if (curl_slist* head = curl_slist_append(raw_list, line.c_str())) raw_list = head;
  };
  bool has_expect = false;
  bool has_content_type = false;
  for (const auto& [name, value] : request.headers) {
    const std::string lower = core::to_lower(name);
    has_expect = has_expect || lower == "expect";
    has_content_type = has_content_type || lower == "content-type";
    // "Name;" is curl's spelling for a header with an empty value.
    const std::string line = value.empty() ? name + ";" : name + ": " + value;
    append(line);
  }
  // "Expect: 100-continue" would cost a round trip (or a 1 s stall) on every large upload. Signed
  // requests keep it: libcurl signs every header in the list, even a removal like "Expect:".
  if (!has_expect && request.aws_sigv4.empty()) {
    append("Expect:");
  }
  const bool sends_body = !request.body.empty() || request.body_file.has_value() || request.method == "PUT" ||
                          request.method == "POST";
  if (!has_content_type && sends_body) {
    // curl would otherwise claim application/x-www-form-urlencoded for raw bytes.
    append("Content-Type: application/octet-stream");
  }
  return std::unique_ptr<curl_slist, SlistDeleter>(raw_list);
}

// After the transfer: the error that stopped it, or the download renamed into place.
Status finish_transfer(CURL* h, CURLcode code, const char* error_buffer, const HttpClientRequest& request,
                       BodySink& sink, HttpClientResponse& response) {
  const bool wrote_file = sink.file != nullptr;
  const bool close_failed = sink.file && std::fclose(sink.file.release()) != 0;
  std::error_code ignored;
  if (!sink.create_error.empty())
    return fail(ErrorCategory::io, "cannot create " + sink.temp.string() + " for the response of " +
                                       request.url + ": " + sink.create_error + " (is the folder writable?)");
  if (sink.write_failed || close_failed) {
    fs::remove(sink.temp, ignored);
    return fail(ErrorCategory::io, "cannot write the response of " + request.url + " to " +
                                       request.response_file->string() + " (is the disk full?)");
  }
  if (sink.too_large || code == CURLE_FILESIZE_EXCEEDED) {
    if (wrote_file) fs::remove(sink.temp, ignored);
    return fail(ErrorCategory::network,
                request.method + " " + request.url + " answered more than " + std::to_string(sink.limit) +
                    " bytes, the most taken from it (is the URL a server of that kind?)");
  }
  if (code != CURLE_OK) {
    if (wrote_file) fs::remove(sink.temp, ignored);
    const std::string detail = error_buffer[0] != '\0' ? error_buffer : curl_easy_strerror(code);
    return fail(ErrorCategory::network,
                request.method + " " + request.url + " failed: " + detail + " (is the server reachable?)");
  }
  curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &response.status);
  if (request.response_file && is_success(response.status) && request.method != "HEAD") {
    if (!wrote_file) {
      // An empty 2xx body never reaches on_body; the file still has to exist.
      FilePtr empty = create_new_file(sink.temp);
      if (!empty)
        return fail(ErrorCategory::io, "cannot create " + sink.temp.string() + ": " + std::strerror(errno) +
                                           " (is the folder writable?)");
    }
    std::error_code error;
    fs::rename(sink.temp, *request.response_file, error);
    if (error) {
      fs::remove(sink.temp, ignored);
      return fail(ErrorCategory::io, "cannot move the download of " + request.url + " to " +
                                         request.response_file->string() + ": " + error.message());
    }
  }
  return {};
}

}  // namespace

std::optional<std::string> HttpClientResponse::header(const std::string& lower_case_name) const {
  const auto found = headers.find(lower_case_name);
  if (found == headers.end()) return std::nullopt;
  return found->second;
}

Result<HttpClientResponse> http_request(const HttpClientRequest& request) {
  global_init();
  std::unique_ptr<CURL, CurlDeleter> curl(curl_easy_init());
  if (!curl) return fail(ErrorCategory::internal, "cannot initialise libcurl");
  CURL* h = curl.get();

  HttpClientResponse response;
  BodySink sink;
  sink.handle = h;
  sink.body = &response.body;
  sink.target = &request.response_file;
  sink.limit = request.max_body_bytes;
  if (request.response_file) {
    const fs::path& target = *request.response_file;
    sink.temp = target.parent_path() / ("." + target.filename().string() + temp_suffix() + ".download");
  }
  std::optional<RemovedOnInterrupt> removed_on_interrupt;
  if (request.response_file) removed_on_interrupt.emplace(sink.temp);
  char error_buffer[CURL_ERROR_SIZE] = {};
  curl_easy_setopt(h, CURLOPT_URL, request.url.c_str());
  curl_easy_setopt(h, CURLOPT_ERRORBUFFER, error_buffer);
  curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);  // no SIGALRM for timeouts: we run in threads
  curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, static_cast<long>(request.timeout.count()));
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(h, CURLOPT_WRITEDATA, &sink);
  curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
  curl_easy_setopt(h, CURLOPT_HEADERDATA, &response.headers);
  curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
  // A redirect is an answer like any other: the request, its credentials and its signature never go
  // to a host the caller did not name.
  curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);
  if (request.max_body_bytes != 0)
    curl_easy_setopt(h, CURLOPT_MAXFILESIZE_LARGE, static_cast<curl_off_t>(request.max_body_bytes));

  FilePtr upload;
  if (auto ok = set_method(h, request, upload); !ok) return tl::unexpected(ok.error());
  if (!request.aws_sigv4.empty()) {
    curl_easy_setopt(h, CURLOPT_AWS_SIGV4, request.aws_sigv4.c_str());
    curl_easy_setopt(h, CURLOPT_USERNAME, request.user.c_str());
    curl_easy_setopt(h, CURLOPT_PASSWORD, request.password.c_str());
  }

  const auto list = header_list(request);
  curl_easy_setopt(h, CURLOPT_HTTPHEADER, list.get());

  const CURLcode code = curl_easy_perform(h);
  if (auto ok = finish_transfer(h, code, error_buffer, request, sink, response); !ok)
    return tl::unexpected(ok.error());
  return response;
}

}  // namespace relforge::platform
