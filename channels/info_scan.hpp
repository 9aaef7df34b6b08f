#pragma once
// A one-pass reader of the sidecars relforge writes (a flat JSON object of ASCII strings without
// escapes, non-negative integers and booleans): `index rebuild` reads one per stored wheel, and the
// general parser cost more than reading the files. Anything else, errors included, is "unsure".
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "channels/store.hpp"

namespace relforge::channels {

// Where the value of a sidecar key goes (at most one of the pointers is set; none for a key the
// record does not know), and which required key it is (0 when optional). Both readers use it.
struct InfoTarget {
  std::string* text = nullptr;
  bool* flag = nullptr;
  std::uint64_t* number = nullptr;
  unsigned required = 0;
};
InfoTarget info_target(FileInfo& info, std::string_view key);
// Every required bit: filename, project, version, sha256 and size.
inline constexpr unsigned k_info_required = 31;

// The record, or nullopt when the text is not in that plain form or not a complete record: the
// caller then asks the general parser, which reads the same record from every text this accepts.
std::optional<FileInfo> scan_plain_info(std::string_view text);

}  // namespace relforge::channels
