#pragma once
// Cells → the image they build in and the runner class they run on. A cell in [fleet] image_cells
// matches exactly one image (its accelerator value, then `when`); zero or two is an error.
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"
#include "matrix/expand.hpp"
#include "runner_images/fleet.hpp"

namespace relforge::runner_images {

// Every condition matches the cell's field of that name (a missing field matches nothing).
bool matches(const std::vector<matrix::Condition>& conditions, const matrix::Cell& cell);

// invalid_input when a condition (image_cells, gpu_cells, an image's `when`) names no field of
// the expansion, or the cells lack the accelerator or runs_on field.
Status check_fields(const FleetSpec& fleet, const matrix::Expansion& expansion);

// The image a cell builds in; nullptr when the cell is outside image_cells.
Result<const ImageDef*> image_for(const FleetSpec& fleet, const matrix::Cell& cell);

// True for cells that need a GPU host: gpu_cells, or {accelerator}.type in cuda, rocm, xpu.
bool needs_gpu(const FleetSpec& fleet, const matrix::Cell& cell);

struct PlannedImage {
  const ImageDef* image = nullptr;
  std::size_t cells = 0;
  std::vector<std::string> channels;  // where some cell needs it
};

// The images the expansions need, in definition order. invalid_input, naming the accelerator
// values and an example cell, when cells have no image definition.
Result<std::vector<PlannedImage>> needed_images(const FleetSpec& fleet,
                                                const std::vector<matrix::Expansion>& expansions);

// `matrix expand`'s hook: replaces each cell's container_image with its image's reference
// (name:tag) when the fleet says content-tag; cells outside image_cells keep theirs.
Status set_container_images(const FleetSpec& fleet, matrix::Expansion& expansion);

// The same, from the config file: a config without [fleet] or images leaves the cells alone.
Status set_container_images(const std::filesystem::path& config, const matrix::MatrixSpec& spec,
                            matrix::Expansion& expansion);

}  // namespace relforge::runner_images
