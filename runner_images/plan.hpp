#pragma once
// `images plan` and `images lock`: the images a matrix needs with their content-addressed tags and
// registry status, and the lock file (cell → runner class → image tag and digest) of one run.
#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"
#include "matrix/expand.hpp"
#include "runner_images/dockerfile.hpp"
#include "runner_images/fleet.hpp"
#include "runner_images/registry.hpp"

namespace relforge::runner_images {

struct ImagePlan {
  BuildContext context;
  std::size_t cells = 0;
  std::vector<std::string> channels;
  TagAnswer answer;  // unchecked until check_registry
};

Result<std::vector<ImagePlan>> plan_images(const FleetSpec& fleet,
                                           const std::vector<matrix::Expansion>& expansions);

// Asks the registry about every planned tag (failures become status unknown with a problem).
void check_registry(std::vector<ImagePlan>& plans, std::string_view registry_url);

// `docker build` and `docker push` for one image, its context under `render_dir`.
std::vector<std::string> build_commands(const ImagePlan& plan, std::string_view render_dir);

inline constexpr std::string_view k_lock_file = "images.lock.json";

struct LockRun {
  std::string config;
  std::string channel;
  std::string registry;  // empty: not checked
};

// The lock JSON text: {"version": 1, config, channel, registry, images: [...], cells: [...]}.
Result<std::string> render_lock(const FleetSpec& fleet, const matrix::Expansion& expansion,
                                const std::vector<ImagePlan>& plans, const LockRun& run);

struct LockedImage {
  std::string reference;  // name:tag
  std::string digest;     // "sha256:..." or empty
  std::string runner_class;
};

// The image of cell `cell_id` in a lock file's text; not_found when the lock has no such cell,
// invalid_input when the text is not a relforge images lock.
Result<LockedImage> find_locked_image(std::string_view lock_text, std::string_view cell_id,
                                      std::string_view file);

}  // namespace relforge::runner_images
