#include "packaging/raw_inflate.hpp"

#include <zlib.h>

#include <algorithm>
#include <memory>

namespace relforge::packaging {
namespace {

// 256 KiB of output stays in the core's cache for the hash that reads it next; larger steps
// inflated no faster, smaller ones slower (16 KiB: 30 % more time).
constexpr std::size_t k_input = 256 << 10;
constexpr std::size_t k_output = 256 << 10;

struct Stream {
  z_stream z{};
  bool open = false;
  ~Stream() {
    if (open) inflateEnd(&z);
  }
};

tl::unexpected<Error> corrupt(const Stream& stream) {
  const std::string why = stream.z.msg != nullptr ? stream.z.msg : "invalid deflate data";
  return fail(ErrorCategory::integrity, "is corrupt: " + why);
}

}  // namespace

Result<Inflated> inflate_raw(const std::function<Result<std::size_t>(char*, std::size_t)>& read,
                             std::uint64_t limit, const std::function<void(std::string_view)>& sink) {
  Stream stream;
  if (inflateInit2(&stream.z, -MAX_WBITS) != Z_OK)
    return fail(ErrorCategory::internal, "zlib cannot start an inflate");
  stream.open = true;
  const auto input = std::make_unique_for_overwrite<char[]>(k_input);
  const auto output = std::make_unique_for_overwrite<unsigned char[]>(k_output);
  Inflated out;
  bool input_ended = false;
  for (;;) {
    if (stream.z.avail_in == 0 && !input_ended) {
      auto got = read(input.get(), k_input);
      if (!got) return tl::unexpected(got.error());
      input_ended = *got == 0;
      stream.z.next_in = reinterpret_cast<unsigned char*>(input.get());
      stream.z.avail_in = static_cast<uInt>(*got);
    }
    stream.z.next_out = output.get();
    stream.z.avail_out = k_output;
    const int code = inflate(&stream.z, Z_NO_FLUSH);
    const std::size_t produced = k_output - stream.z.avail_out;
    if (code == Z_DATA_ERROR || code == Z_NEED_DICT || code == Z_MEM_ERROR) return corrupt(stream);
    if (produced > 0) {
      out.size += produced;
      if (out.size > limit) return out;  // a zip bomb is inflated no further
      out.crc32 = static_cast<std::uint32_t>(crc32_z(out.crc32, output.get(), produced));
      sink(std::string_view(reinterpret_cast<const char*>(output.get()), produced));
    }
    if (code == Z_STREAM_END) break;
    // Z_BUF_ERROR: no progress was possible, which with input left cannot happen; so the input ended.
    if (input_ended && stream.z.avail_in == 0 && (code == Z_BUF_ERROR || produced == 0))
      return fail(ErrorCategory::integrity, "ends before its deflate stream does (truncated)");
  }
  if (stream.z.avail_in > 0)
    return fail(ErrorCategory::integrity, "has bytes after the end of its deflate stream");
  if (!input_ended) {
    char probe = 0;
    auto more = read(&probe, 1);
    if (!more) return tl::unexpected(more.error());
    if (*more != 0) return fail(ErrorCategory::integrity, "has bytes after the end of its deflate stream");
  }
  return out;
}

}  // namespace relforge::packaging
