#pragma once
// A fixed-size sort key for the versions indexes hold (epoch, at most 4 release numbers after
// trailing zeros, pre/post/dev, a local label of at most 2 short segments): two keys compare
// exactly as their versions do (operator<=>). Versions that do not fit get no key.
#include <array>
#include <compare>
#include <cstdint>
#include <optional>
#include <string_view>

#include "packaging/version.hpp"

namespace relforge::packaging {

struct VersionKey {
  // epoch, release[4] (zero-padded), pre class (0 dev-only, 1..3 a/b/rc, 4 none), pre number,
  // post (0 none, else n + 1), dev absent (0/1), dev number, local[2] (0 none, 1<<56|word, 2<<56|n).
  std::array<std::uint64_t, 12> words{};
  friend auto operator<=>(const VersionKey&, const VersionKey&) = default;
};

std::optional<VersionKey> version_key(const Version& version);

// Packs keys into 3 words that compare (lexicographically, first word first) as the keys do:
// each column gets the bits its largest value needs among the keys to be packed together.
class KeyPacker {
public:
  // `columns`: the bitwise OR, column by column, of every key that will be packed.
  explicit KeyPacker(const VersionKey& columns);
  // As above, with each width rounded up to a power of two while the total still fits 192 bits:
  // a packer widened key by key as a stream grows is rebuilt a few times per column at most.
  static KeyPacker with_room(const VersionKey& columns);
  bool fits() const { return m_total <= 192; }  // pack() is meaningful only then
  bool holds(const VersionKey& key) const;      // every column of `key` fits its width
  std::array<std::uint64_t, 3> pack(const VersionKey& key) const;
  VersionKey unpack(const std::array<std::uint64_t, 3>& packed) const;  // pack's inverse on held keys

private:
  KeyPacker() = default;
  std::array<unsigned, 12> m_widths{};
  unsigned m_total = 0;
};

// parse_version + version_key without allocating for the common spellings: nullopt when the text
// is no version (parse_version says why) or the version does not fit a key.
std::optional<VersionKey> parse_version_key(std::string_view text);

}  // namespace relforge::packaging
