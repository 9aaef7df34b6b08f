// libFuzzer target: any bytes as a request target (then as a Range header, a request head, a
// chunked body and a connection's received bytes: the decoder and the request gatherer must give
// the same answer however the bytes arrive). Whatever
// decode_url_path accepts must name a place below the root: no absolute path, no "." or "..", no separator,
// NUL or control byte in a segment, and joining the segments onto a root never normalises to outside it.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>

#include "platform/http_chunked.hpp"
#include "platform/http_gather.hpp"
#include "platform/http_head.hpp"
#include "platform/http_range.hpp"
#include "platform/url_path.hpp"

namespace {

void check(bool condition) {
  if (!condition) std::abort();
}

namespace detail = relforge::platform::detail;

detail::GatherStep gather(detail::RequestGatherer& gatherer, std::string_view bytes) {
  const auto precheck = [](const relforge::platform::RequestHead& head) {
    detail::Precheck check;
    if (head.target.find('!') != std::string::npos) check.status = 404;
    check.read_body = head.method == "POST" && (head.chunked || head.content_length.value_or(0) > 0);
    return check;
  };
  return gatherer.advance(bytes, precheck);
}

// As the bytes a connection receives: a request is judged whole (and the same) however the bytes
// arrive, and never reaches past what was received or the limits.
void check_gatherer(std::string_view received, std::size_t cut) {
  relforge::platform::HttpLimits limits;
  limits.max_request_line = 64;
  limits.max_head_bytes = 512;
  detail::RequestGatherer whole(limits, 256);
  const auto step = gather(whole, received);
  detail::RequestGatherer split(limits, 256);
  auto split_step = gather(split, received.substr(0, cut));
  if (split_step == detail::GatherStep::incomplete) split_step = gather(split, received);
  check(split_step == step && split.status() == whole.status() && split.size() == whole.size());
  if (step != detail::GatherStep::complete) return;
  check(whole.size() <= received.size() && whole.head().size <= whole.size());
  check(whole.decoded_body() == split.decoded_body() && whole.decoded_body().size() <= 256);
  // A body is part of the request only when the precheck lets it be read.
  const bool body_read = whole.check().status == 0 && whole.check().read_body;
  if (body_read && !whole.head().chunked)
    check(whole.size() == whole.head().size + *whole.head().content_length);
  if (!body_read) check(whole.size() == whole.head().size && whole.decoded_body().empty());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view target(reinterpret_cast<const char*>(data), size);
  const auto path = relforge::platform::decode_url_path(target);
  if (path) {
    check(!target.empty() && target.front() == '/');
    check(target.size() <= relforge::platform::k_max_url_path_bytes ||
          target.find_first_of("?#") != target.npos);
    const std::filesystem::path root = "/srv/root";
    std::filesystem::path joined = root;
    for (const auto& segment : path->segments) {
      check(!segment.empty());
      check(segment != "." && segment != "..");
      for (const char c : segment) {
        const auto byte = static_cast<unsigned char>(c);
        check(c != '/' && c != '\\' && byte >= 0x20 && byte != 0x7F);
      }
      check(!std::filesystem::path(segment).is_absolute());
      joined /= segment;
    }
    const std::string normal = joined.lexically_normal().string();
    check(normal == root.string() || normal.starts_with(root.string() + "/"));
    // Decoding is done once: decoding a decoded segment again may change it, but the first
    // decode never produced a separator, so the segment count matches the raw '/' count.
    const std::string_view raw = target.substr(0, target.find_first_of("?#"));
    std::size_t slashes = 0;
    for (const char c : raw) slashes += c == '/' ? 1 : 0;
    check(path->segments.size() == slashes - (path->trailing_slash ? 1 : 0));
  }
  // The same bytes as a Range header over a size taken from the input.
  const std::uint64_t file_size = size == 0 ? 0 : data[0] * 97u;
  const auto range = relforge::platform::evaluate_range(target, file_size);
  if (range.outcome == relforge::platform::RangeOutcome::partial) {
    check(range.first <= range.last && range.last < file_size);
  }
  // And as the bytes of a request head: whatever is accepted fits the limits it was given.
  const relforge::platform::HeadLimits limits{64, 512};
  const auto head = relforge::platform::scan_request_head(target, limits);
  if (head.scan == relforge::platform::HeadScan::complete) {
    check(head.head.size <= size && head.head.size <= limits.max_head_bytes);
    check(!head.head.method.empty() && !head.head.target.empty());
    check(!(head.head.chunked && head.head.content_length));
  } else if (head.scan == relforge::platform::HeadScan::incomplete) {
    check(size <= limits.max_head_bytes);
  }
  // And as a chunked body, fed whole and in two pieces split where the input says: the same answer,
  // a body within its limit, and nothing consumed past the end of the body.
  relforge::platform::ChunkedDecoder whole(256, 64);
  const std::size_t took = whole.feed(target);
  check(took <= size && whole.body().size() <= 256);
  if (whole.scan() == relforge::platform::ChunkedScan::incomplete) check(took == size);
  const std::size_t cut = size == 0 ? 0 : data[size - 1] % (size + 1);
  relforge::platform::ChunkedDecoder split(256, 64);
  std::size_t split_took = split.feed(target.substr(0, cut));
  if (split.scan() == relforge::platform::ChunkedScan::incomplete)
    split_took += split.feed(target.substr(cut));
  check(split.scan() == whole.scan() && split.body() == whole.body() && split.status() == whole.status());
  if (whole.scan() == relforge::platform::ChunkedScan::complete) check(split_took == took);
  check_gatherer(target, cut);
  return 0;
}
