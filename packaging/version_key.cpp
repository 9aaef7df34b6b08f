#include "packaging/version_key.hpp"

#include <bit>

namespace relforge::packaging {
namespace {

constexpr std::size_t k_release_words = 4;
constexpr std::size_t k_local_words = 2;
constexpr std::size_t k_word_letters = 7;  // a word segment packs into the low 7 bytes
constexpr std::uint64_t k_top = UINT64_MAX;

bool small_below(const VersionNumber& n, std::uint64_t limit) {
  return n.is_small() && n.small_value() < limit;
}

}  // namespace

// Each column maps packaging's _cmpkey slot to an unsigned integer that orders the same way;
// small values stay small, so a caller may pack the columns of many keys into fewer bits.
std::optional<VersionKey> version_key(const Version& v) {
  VersionKey key;
  auto& w = key.words;
  if (!v.epoch.is_small()) return std::nullopt;
  w[0] = v.epoch.small_value();
  std::size_t significant = v.release.size();
  while (significant > 0 && v.release[significant - 1].is_small() &&
         v.release[significant - 1].small_value() == 0)
    --significant;
  if (significant > k_release_words) return std::nullopt;
  for (std::size_t i = 0; i < significant; ++i) {
    if (!v.release[i].is_small()) return std::nullopt;
    w[1 + i] = v.release[i].small_value();
  }
  // pre: a dev release without pre or post is -Infinity, no pre otherwise +Infinity.
  if (v.pre) {
    if (!v.pre->number.is_small()) return std::nullopt;
    w[5] = static_cast<std::uint64_t>(v.pre->kind) + 1;
    w[6] = v.pre->number.small_value();
  } else {
    w[5] = (!v.post && v.dev) ? 0 : 4;
  }
  // post: absent is -Infinity; dev: absent is +Infinity.
  if (v.post) {
    if (!small_below(*v.post, k_top)) return std::nullopt;
    w[7] = v.post->small_value() + 1;
  }
  if (v.dev) {
    if (!v.dev->is_small()) return std::nullopt;
    w[9] = v.dev->small_value();
  } else {
    w[8] = 1;
  }
  // local: absent (0) below any segment; a number (tag 2) above a word (tag 1); words compare as
  // strings, which zero padding keeps (their bytes are never 0).
  if (v.local.size() > k_local_words) return std::nullopt;
  for (std::size_t i = 0; i < v.local.size(); ++i) {
    const LocalSegment& segment = v.local[i];
    if (segment.number) {
      if (!small_below(*segment.number, std::uint64_t{1} << 56)) return std::nullopt;
      w[10 + i] = (std::uint64_t{2} << 56) | segment.number->small_value();
    } else {
      if (segment.word.size() > k_word_letters) return std::nullopt;
      std::uint64_t packed = std::uint64_t{1} << 56;
      for (std::size_t c = 0; c < segment.word.size(); ++c)
        packed |= static_cast<std::uint64_t>(static_cast<unsigned char>(segment.word[c])) << (8 * (6 - c));
      w[10 + i] = packed;
    }
  }
  return key;
}

KeyPacker::KeyPacker(const VersionKey& columns) {
  for (std::size_t i = 0; i < columns.words.size(); ++i) {
    m_widths[i] = static_cast<unsigned>(std::bit_width(columns.words[i]));
    m_total += m_widths[i];
  }
}

KeyPacker KeyPacker::with_room(const VersionKey& columns) {
  KeyPacker exact(columns), roomy;
  for (std::size_t i = 0; i < exact.m_widths.size(); ++i) {
    roomy.m_widths[i] = exact.m_widths[i] == 0 ? 0 : std::bit_ceil(exact.m_widths[i]);
    roomy.m_total += roomy.m_widths[i];
  }
  return roomy.fits() ? roomy : exact;
}

bool KeyPacker::holds(const VersionKey& key) const {
  for (std::size_t i = 0; i < key.words.size(); ++i) {
    if (m_widths[i] < 64 && (key.words[i] >> m_widths[i]) != 0) return false;
  }
  return true;
}

VersionKey KeyPacker::unpack(const std::array<std::uint64_t, 3>& packed) const {
  const std::array<std::uint64_t, 3> low_first = {packed[2], packed[1], packed[0]};
  VersionKey key;
  unsigned used = 0;
  for (std::size_t i = 0; i < key.words.size(); ++i) {
    const unsigned width = m_widths[i];
    if (width == 0) continue;
    used += width;
    const unsigned low = 192 - used;
    const unsigned word = low / 64, offset = low % 64;
    std::uint64_t value = low_first[word] >> offset;
    if (offset + width > 64) value |= low_first[word + 1] << (64 - offset);
    key.words[i] = width == 64 ? value : value & ((std::uint64_t{1} << width) - 1);
  }
  return key;
}

std::array<std::uint64_t, 3> KeyPacker::pack(const VersionKey& key) const {
  std::array<std::uint64_t, 3> low_first{};  // [0] holds the least significant bits
  unsigned used = 0;                         // bits taken, counted from the most significant end
  for (std::size_t i = 0; i < key.words.size(); ++i) {
    const unsigned width = m_widths[i];
    if (width == 0) continue;
    used += width;
    const unsigned low = 192 - used;  // the column's lowest bit
    const unsigned word = low / 64, offset = low % 64;
    low_first[word] |= key.words[i] << offset;
    if (offset + width > 64) low_first[word + 1] |= key.words[i] >> (64 - offset);
  }
  return {low_first[2], low_first[1], low_first[0]};
}

}  // namespace relforge::packaging
