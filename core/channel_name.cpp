#include "core/channel_name.hpp"

namespace relforge::core {

std::string_view canonical_channel(std::string_view name) {
  return name == "release" ? k_stable_channel : name;
}

bool same_channel(std::string_view a, std::string_view b) {
  return canonical_channel(a) == canonical_channel(b);
}

}  // namespace relforge::core
