#pragma once
// Runner classes: checks against the matrix (labels exist, fit ARC and Kubernetes, GPU cells on GPU
// classes, unused classes) and the autoscaler configs: scale-config.yml and ARC Helm values.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "matrix/expand.hpp"
#include "runner_images/fleet.hpp"

namespace relforge::runner_images {

// ARC scale-set names (the only runs-on label) are at most 45 characters.
inline constexpr std::size_t k_arc_max_label = 45;
// Kubernetes label values: at most 63 of [A-Za-z0-9._-], alphanumeric at both ends.
inline constexpr std::size_t k_kubernetes_max_label = 63;

// Why a label cannot be an ARC scale-set name / Kubernetes label value; nullopt when it can.
std::optional<std::string> label_problem(std::string_view label);

enum class Severity { error, warning };

struct Finding {
  Severity severity = Severity::error;
  std::string message;
};

struct ClassUse {
  std::string label;
  std::size_t cells = 0;
  std::size_t gpu_cells = 0;
};

struct RunnersReport {
  std::size_t cells = 0;
  std::vector<ClassUse> uses;  // per class, in definition order
  std::vector<Finding> findings;
  std::size_t errors() const;
  std::size_t warnings() const;
};

// Fails only when the fleet cannot be applied to the cells (see check_fields).
Result<RunnersReport> check_runners(const FleetSpec& fleet, const std::vector<matrix::Expansion>& expansions);

// pytorch/test-infra's scale-config.yml: runner_types keyed by label (Linux and Windows classes).
std::string render_scale_config(const FleetSpec& fleet);

struct ArcValues {
  std::string file;  // <label>.yaml
  std::string yaml;
};

// One gha-runner-scale-set values file per Linux class; `skipped` gets the other classes'
// labels. invalid_input when a label cannot be a scale-set name.
Result<std::vector<ArcValues>> render_arc(const FleetSpec& fleet, std::vector<std::string>& skipped);

}  // namespace relforge::runner_images
