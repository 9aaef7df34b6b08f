#pragma once
// A one-pass reader of the sidecars relforge writes (a flat JSON object of ASCII strings without
// escapes, non-negative integers and booleans): `index rebuild` reads one per stored wheel, and the
// general parser cost more than reading the files. Anything else, errors included, is "unsure".
#include <optional>
#include <string_view>

#include "channels/store.hpp"

namespace relforge::channels {

// The record, or nullopt when the text is not in that plain form or not a complete record: the
// caller then asks the general parser, which reads the same record from every text this accepts.
std::optional<FileInfo> scan_plain_info(std::string_view text);

}  // namespace relforge::channels
