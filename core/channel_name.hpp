#pragma once
// The one name of the stable channel. "stable" is its name everywhere; "release" (the name older
// relforge.toml matrices use) is accepted wherever a channel name is read and means the same.
#include <string_view>

namespace relforge::core {

inline constexpr std::string_view k_stable_channel = "stable";

// "release" -> "stable"; every other name as given.
std::string_view canonical_channel(std::string_view name);

// Whether two channel names name the same channel ("release" and "stable" do).
bool same_channel(std::string_view a, std::string_view b);

}  // namespace relforge::core
