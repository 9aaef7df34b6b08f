#pragma once
// `index deps`: whether every Requires-Dist of every wheel on a channel resolves, in each target
// environment (CPython X.Y on a platform tag) the wheel installs in, to a wheel on the channel or
// in an upstream index listing. Pure: the caller reads the store and the listings.
#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"

namespace relforge::channels {

struct DepsEnvironment {
  std::string python;    // "3.12" or "3.14t"
  std::string platform;  // one platform tag: "manylinux_2_28_x86_64", "win_amd64", ...
  std::string label() const { return python + "-" + platform; }  // "3.12-manylinux_2_28_x86_64"
};

struct DepsWheel {
  std::string filename;
  std::string metadata;  // its METADATA (the PEP 658 FILE.metadata)
};

struct UnresolvedRequirement {
  std::string wheel;
  std::string environment;  // DepsEnvironment::label()
  std::string requirement;  // as the wheel's metadata writes it
  std::string reason;       // what is missing: the project, a matching version, or a fitting wheel
};

struct DepsReport {
  std::size_t wheels = 0;        // wheels checked
  std::size_t checks = 0;        // (wheel, environment) pairs the wheel installs in
  std::size_t requirements = 0;  // requirements evaluated across those pairs (markers that apply)
  std::vector<UnresolvedRequirement> unresolved;
};

// The Requires-Dist values of a METADATA text, in order.
std::vector<std::string> requires_dist(std::string_view metadata);

// The file names of a saved upstream listing: PEP 691 JSON ({"files": [{"filename"}]}) or a PEP 503
// HTML page (each anchor's text). invalid_input naming `where` when it is neither.
Result<std::vector<std::string>> parse_listing(std::string_view text, const std::string& where);

// Resolves every requirement of every wheel in every environment it installs in (its tags among the
// environment's supported tags), against `available` file names (the channel's and upstream's).
// Pre-releases count, as `pip install --pre` installs nightlies. invalid_input for a bad environment.
Result<DepsReport> check_dependencies(const std::vector<DepsWheel>& wheels,
                                      const std::vector<std::string>& available,
                                      const std::vector<DepsEnvironment>& environments);

}  // namespace relforge::channels
