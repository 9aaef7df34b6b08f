#pragma once
// A stored file's identity, as PyPI counts files: PEP 503 project name, canonical PEP 440 version
// (local label included; equal versions such as 1.0 and 1.0.0 are one), build tag and the expanded
// tag set. A channel holds an identity at most
// once, under its canonical file name, and never again once it was deleted (a tombstone).
#include <string>
#include <vector>

#include "core/error.hpp"
#include "packaging/version.hpp"

namespace relforge::channels {

struct FileIdentity {
  std::string project;            // "demo"
  std::string version;            // "1.0+cpu", as packaging renders it
  std::string version_key;        // the same without trailing zeros ("1+cpu"): 1.0 and 1.0.0 are one version
  std::string build;              // "" or "1abc"
  std::vector<std::string> tags;  // expanded, sorted: "py3-none-any"

  std::string key() const;       // one string that compares equal exactly when identities do
  std::string describe() const;  // "demo 1.0+cpu py3-none-any" (+ " build 1" when there is one)
  // Equal exactly when key() is: 1.0 and 1.0.0 are one identity, whatever the spelling.
  bool operator==(const FileIdentity& other) const { return key() == other.key(); }
};

// `version` without trailing zeros in its release ("1.0.0+cpu" -> "1+cpu"), as packaging's
// canonicalize_version compares them: FileIdentity::version_key.
std::string version_key(packaging::Version version);

// Parses a wheel file name the way packaging.utils.parse_wheel_filename does.
Result<FileIdentity> identity_of(const std::string& filename);

// The spelling new files are stored under: "Demo-01.0+CPU-py3-none-any.whl" ->
// "demo-1.0+cpu-py3-none-any.whl" (name in wheel form, version as packaging renders it).
Result<std::string> canonical_filename(const std::string& filename);

}  // namespace relforge::channels
