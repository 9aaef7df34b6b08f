#pragma once
// The one JSON reader of what a signature covers or travels with (bundles, DSSE envelopes, in-toto
// statements): bounded in size and nesting, and refusing the inputs that two JSON readers can read
// as two different documents: a byte-order mark, a NUL byte, and a key repeated in one object (also when the
// repeats differ only in case, ASCII or the long s and Kelvin sign, as Go's encoding/json matches them).
#include <cstddef>
#include <initializer_list>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/error.hpp"

namespace relforge::signing {

inline constexpr std::size_t k_max_json_depth = 32;

// integrity error naming `what`, the byte offset and the rule broken.
Result<nlohmann::json> parse_strict_json(std::string_view text, std::string_view what, std::size_t max_bytes);

// The first key of `object` that is not in `allowed`; empty when there is none (or no object).
std::string first_key_outside(const nlohmann::json& object, std::initializer_list<std::string_view> allowed);

}  // namespace relforge::signing
