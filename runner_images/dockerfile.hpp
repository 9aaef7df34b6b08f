#pragma once
// One image definition → its build context: a multi-stage Dockerfile (base, toolkit, final) and
// the scripts it copies, and the content-addressed tag `<variant>-<first 12 hex of sha256>` over both.
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "runner_images/fleet.hpp"

namespace relforge::runner_images {

struct BuildContext {
  std::string name;  // repository
  std::string variant;
  std::string dir;  // context folder relative to the render root: <name>/<variant>
  std::string dockerfile;
  std::vector<std::pair<std::string, std::string>> files;  // context-relative path, content
  std::string tag;                                         // <variant>-<12 hex>

  std::string reference() const { return name + ":" + tag; }
};

// Reads the copied files (relative to fleet.dir) and renders; invalid_input on a missing file or
// a Python that is not "X.Y" / "X.Yt".
Result<BuildContext> build_context(const FleetSpec& fleet, const ImageDef& image);

// The content-addressed tag of a rendered context (the Dockerfile and every file, by path).
std::string content_tag(const std::string& variant, const std::string& dockerfile,
                        const std::vector<std::pair<std::string, std::string>>& files);

// Writes DIR/<context dir>/Dockerfile and its files, each atomically; returns the paths written.
Result<std::vector<std::filesystem::path>> write_context(const BuildContext& context,
                                                         const std::filesystem::path& root);

}  // namespace relforge::runner_images
