// Raw deflate streams as zip entries hold them. inflate_raw, fed in read steps the input's first
// byte picks, must give exactly what zlib gives with the whole stream at hand, or fail where zlib
// fails; and where zlib stops at the stream's end with bytes left over, inflate_raw refuses them.
#include <zlib.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "packaging/raw_inflate.hpp"
#include "tests/fuzz/fuzz_check.hpp"

namespace {

namespace pk = relforge::packaging;

constexpr std::uint64_t k_limit = 1 << 20;  // a 64 KiB bomb inflates to 64 MiB: stop well before

enum class Ending { complete, trailing, truncated, corrupt, over_limit };

struct Reference {
  Ending ending = Ending::corrupt;
  std::string bytes;
};

// zlib with all of the stream given at once, output taken 64 KiB at a time.
Reference zlib_inflate(std::string_view stream) {
  Reference out;
  z_stream z{};
  if (inflateInit2(&z, -MAX_WBITS) != Z_OK) return out;
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(stream.data()));
  z.avail_in = static_cast<uInt>(stream.size());
  unsigned char buffer[65536];
  for (;;) {
    z.next_out = buffer;
    z.avail_out = sizeof buffer;
    const int code = inflate(&z, Z_NO_FLUSH);
    out.bytes.append(reinterpret_cast<const char*>(buffer), sizeof buffer - z.avail_out);
    if (out.bytes.size() > k_limit) {
      out.ending = Ending::over_limit;
      break;
    }
    if (code == Z_STREAM_END) {
      out.ending = z.avail_in == 0 ? Ending::complete : Ending::trailing;
      break;
    }
    if (code == Z_BUF_ERROR || (code == Z_OK && z.avail_in == 0 && z.avail_out != 0)) {
      out.ending = Ending::truncated;
      break;
    }
    if (code != Z_OK) break;  // corrupt
  }
  inflateEnd(&z);
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::size_t step = 1 + (std::size_t{data[0]} * 97) % 8192;
  const std::string_view stream(reinterpret_cast<const char*>(data) + 1, size - 1);
  std::size_t at = 0;
  auto read = [&](char* into, std::size_t room) -> relforge::Result<std::size_t> {
    const std::size_t n = std::min({room, step, stream.size() - at});
    std::memcpy(into, stream.data() + at, n);
    at += n;
    return n;
  };
  std::string ours;
  auto result = pk::inflate_raw(read, k_limit, [&](std::string_view chunk) { ours.append(chunk); });
  const Reference reference = zlib_inflate(stream);
  if (result && result->size > k_limit) {
    FUZZ_CHECK(reference.ending == Ending::over_limit,
               "only a stream zlib inflates past the limit stops there");
    return 0;
  }
  switch (reference.ending) {
    case Ending::complete:
      FUZZ_CHECK(result.has_value(), "a complete stream inflates");
      FUZZ_CHECK(ours == reference.bytes, "the same bytes as zlib");
      FUZZ_CHECK(result->size == ours.size(), "size counts the bytes handed over");
      FUZZ_CHECK(result->crc32 == crc32_z(0, reinterpret_cast<const Bytef*>(ours.data()), ours.size()),
                 "crc32 is the bytes' CRC-32");
      break;
    case Ending::trailing:
      FUZZ_CHECK(!result && result.error().message() == "has bytes after the end of its deflate stream",
                 "bytes after the stream are refused");
      FUZZ_CHECK(ours == reference.bytes, "the stream itself was inflated as zlib does");
      break;
    case Ending::truncated:
      FUZZ_CHECK(!result && result.error().message() == "ends before its deflate stream does (truncated)",
                 "a stream cut short is truncated");
      break;
    case Ending::corrupt:
      FUZZ_CHECK(!result && result.error().message().starts_with("is corrupt: "), "corrupt data is refused");
      break;
    case Ending::over_limit:  // or fails on corrupt bytes just past it, in a larger output step
      FUZZ_CHECK((result && result->size > k_limit) ||
                     (!result && result.error().message().starts_with("is corrupt: ")),
                 "a bomb stops past the limit");
      break;
  }
  return 0;
}
