#pragma once
// Bounds-checked fixed-width integer reads from untrusted bytes, in either byte order: each
// returns nullopt when [offset, offset + width) is not inside the bytes (no overflow possible).
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace relforge::packaging {

enum class ByteOrder { little, big };

template <typename T>
std::optional<T> read_uint(std::string_view bytes, std::uint64_t offset, ByteOrder order) {
  if (offset > bytes.size() || bytes.size() - offset < sizeof(T)) return std::nullopt;
  T value = 0;
  for (std::size_t i = 0; i < sizeof(T); ++i) {
    const auto byte =
        static_cast<unsigned char>(bytes[offset + (order == ByteOrder::little ? i : sizeof(T) - 1 - i)]);
    value |= static_cast<T>(static_cast<T>(byte) << (8 * i));
  }
  return value;
}

inline std::optional<std::uint16_t> read_u16(std::string_view bytes, std::uint64_t offset,
                                             ByteOrder order = ByteOrder::little) {
  return read_uint<std::uint16_t>(bytes, offset, order);
}
inline std::optional<std::uint32_t> read_u32(std::string_view bytes, std::uint64_t offset,
                                             ByteOrder order = ByteOrder::little) {
  return read_uint<std::uint32_t>(bytes, offset, order);
}
inline std::optional<std::uint64_t> read_u64(std::string_view bytes, std::uint64_t offset,
                                             ByteOrder order = ByteOrder::little) {
  return read_uint<std::uint64_t>(bytes, offset, order);
}

// The NUL-terminated string at `offset`, at most `limit` bytes before the NUL and all of them
// printable ASCII; nullopt otherwise (no NUL in range, out of range, control or 8-bit bytes).
inline std::optional<std::string_view> read_c_string(std::string_view bytes, std::uint64_t offset,
                                                     std::size_t limit) {
  if (offset >= bytes.size()) return std::nullopt;
  const auto rest = bytes.substr(static_cast<std::size_t>(offset));
  for (std::size_t i = 0; i < rest.size() && i <= limit; ++i) {
    const auto c = static_cast<unsigned char>(rest[i]);
    if (c == 0) return rest.substr(0, i);
    if (c < 0x20 || c > 0x7e) return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace relforge::packaging
