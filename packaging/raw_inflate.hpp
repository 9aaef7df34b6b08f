#pragma once
// A zip entry's raw deflate stream inflated through zlib in large steps, with the CRC-32 and size
// of what came out: the entry checks libzip makes, without its 8 KiB steps (half the time).
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "core/error.hpp"

namespace relforge::packaging {

struct Inflated {
  std::uint64_t size = 0;
  std::uint32_t crc32 = 0;
};

// Reads compressed bytes with `read` (into the buffer given; 0 at the end) and hands the output to
// `sink` piece by piece. Stops early, with `size` past `limit`, once more than `limit` bytes have
// come out. Fails, with a message that names no file, on corrupt data and on input that ends
// before the stream does or goes on after it.
Result<Inflated> inflate_raw(const std::function<Result<std::size_t>(char*, std::size_t)>& read,
                             std::uint64_t limit, const std::function<void(std::string_view)>& sink);

}  // namespace relforge::packaging
