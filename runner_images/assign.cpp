// Matching cells to images and GPU needs; one pass per expansion, the first few offenders named.
#include "runner_images/assign.hpp"

#include <algorithm>
#include <map>

#include "matrix/diagnostics.hpp"
#include "runner_images/dockerfile.hpp"

namespace relforge::runner_images {
namespace {

const std::vector<std::string> k_gpu_types = {"cuda", "rocm", "xpu"};

bool has_field(const matrix::Expansion& expansion, const std::string& name) {
  if (name == "id" || name == "build_id") return true;
  return std::find(expansion.names->begin(), expansion.names->end(), name) != expansion.names->end();
}

}  // namespace

bool matches(const std::vector<matrix::Condition>& conditions, const matrix::Cell& cell) {
  for (const auto& condition : conditions) {
    const auto value = cell.find(condition.key);
    if (!value || !condition.matcher.matches_text(*value)) return false;
  }
  return true;
}

Status check_fields(const FleetSpec& fleet, const matrix::Expansion& expansion) {
  auto check = [&](const std::vector<matrix::Condition>& conditions, const std::string& what) -> Status {
    for (const auto& condition : conditions) {
      if (!has_field(expansion, condition.key)) {
        return matrix::fail_at(fleet.file, condition.where,
                               what + " tests '" + condition.key + "', which is not a field of the cells" +
                                   matrix::suggestion(condition.key, *expansion.names));
      }
    }
    return {};
  };
  if (auto ok = check(fleet.image_cells, "[fleet] image_cells"); !ok) return ok;
  if (auto ok = check(fleet.gpu_cells, "[fleet] gpu_cells"); !ok) return ok;
  for (const auto& image : fleet.images) {
    if (auto ok = check(image.when, "the when of image '" + image.display() + "'"); !ok) return ok;
  }
  if (!fleet.runner_classes.empty() && !has_field(expansion, fleet.runs_on)) {
    return fail(ErrorCategory::invalid_input, fleet.file + ": [fleet] runs_on names the field '" +
                                                  fleet.runs_on + "', which the cells do not have" +
                                                  matrix::suggestion(fleet.runs_on, *expansion.names) +
                                                  " (it should hold each cell's runs-on label)");
  }
  return {};
}

Result<const ImageDef*> image_for(const FleetSpec& fleet, const matrix::Cell& cell) {
  if (!matches(fleet.image_cells, cell)) return nullptr;
  const auto accelerator = cell.find(fleet.accelerator);
  const ImageDef* found = nullptr;
  for (const auto& image : fleet.images) {
    if (!accelerator || std::find(image.accelerators.begin(), image.accelerators.end(), *accelerator) ==
                            image.accelerators.end())
      continue;
    if (!matches(image.when, cell)) continue;
    if (found != nullptr) {
      return fail(ErrorCategory::invalid_input,
                  "cell '" + std::string(cell.id()) + "' matches two images, '" + found->display() +
                      "' and '" + image.display() + "': narrow their accelerators or when (" + fleet.file +
                      ")");
    }
    found = &image;
  }
  if (found == nullptr) {
    return fail(ErrorCategory::invalid_input,
                "cell '" + std::string(cell.id()) + "' (" + fleet.accelerator + " '" +
                    std::string(accelerator.value_or("")) +
                    "') has no image definition: add a [[fleet.image]] "
                    "whose accelerators list '" +
                    std::string(accelerator.value_or("")) +
                    "' (and whose when matches the cell), or leave such cells out of [fleet] image_cells (" +
                    fleet.file + ")");
  }
  return found;
}

bool needs_gpu(const FleetSpec& fleet, const matrix::Cell& cell) {
  if (!fleet.gpu_cells.empty()) return matches(fleet.gpu_cells, cell);
  const auto type = cell.find(fleet.accelerator + ".type");
  return type && std::find(k_gpu_types.begin(), k_gpu_types.end(), *type) != k_gpu_types.end();
}

Result<std::vector<PlannedImage>> needed_images(const FleetSpec& fleet,
                                                const std::vector<matrix::Expansion>& expansions) {
  std::map<const ImageDef*, PlannedImage> used;
  std::map<std::string, std::pair<std::size_t, std::string>> missing;  // accel value → (cells, example)
  for (const auto& expansion : expansions) {
    if (auto ok = check_fields(fleet, expansion); !ok) return tl::unexpected(ok.error());
    for (const auto& cell : expansion.cells) {
      auto image = image_for(fleet, cell);
      if (!image) {
        if (image.error().message().find("has no image definition") == std::string::npos)
          return tl::unexpected(image.error());
        auto& entry = missing[std::string(cell.find(fleet.accelerator).value_or(""))];
        if (entry.first++ == 0) entry.second = image.error().message();
        continue;
      }
      if (*image == nullptr) continue;
      auto& planned = used[*image];
      planned.image = *image;
      ++planned.cells;
      if (std::find(planned.channels.begin(), planned.channels.end(), expansion.channel) ==
          planned.channels.end())
        planned.channels.push_back(expansion.channel);
    }
  }
  if (!missing.empty()) {
    std::string message;
    std::vector<std::string> values;
    std::size_t cells = 0;
    for (const auto& [value, entry] : missing) {
      values.push_back(value);
      cells += entry.first;
    }
    message = std::to_string(cells) + " cells have no image definition (" + fleet.accelerator + " " +
              matrix::quoted_list(values) + "); the first: " + missing.begin()->second.second;
    return fail(ErrorCategory::invalid_input, message);
  }
  std::vector<PlannedImage> out;
  for (const auto& image : fleet.images) {
    if (const auto found = used.find(&image); found != used.end()) out.push_back(found->second);
  }
  return out;
}

Status set_container_images(const FleetSpec& fleet, matrix::Expansion& expansion) {
  if (fleet.cell_image != CellImage::content_tag || fleet.images.empty()) return {};
  auto planned = needed_images(fleet, {expansion});
  if (!planned) return tl::unexpected(planned.error());
  std::map<const ImageDef*, std::string> references;
  for (const auto& item : *planned) {
    auto context = build_context(fleet, *item.image);
    if (!context) return tl::unexpected(context.error());
    references[item.image] = context->reference();
  }
  auto names = expansion.names;
  auto column = std::find(names->begin(), names->end(), "container_image");
  const bool add = column == names->end();
  const auto index = static_cast<std::size_t>(column - names->begin());
  if (add) {
    auto extended = std::make_shared<matrix::FieldNames>(*names);
    extended->push_back("container_image");
    names = extended;
  }
  for (auto& cell : expansion.cells) {
    auto image = image_for(fleet, cell);
    if (!image) return tl::unexpected(image.error());
    auto values = cell.values();
    auto types = cell.types();  // the other fields keep their types
    if (add) {
      values.push_back(*image ? references[*image] : std::string());
      types.push_back(matrix::ValueType::string);
    } else if (*image) {
      values[index] = references[*image];
      types[index] = matrix::ValueType::string;
    }
    cell = matrix::Cell(names, cell.id(), cell.build_id(), values, &types);
  }
  expansion.names = names;
  return {};
}

Status set_container_images(const std::filesystem::path& config, const matrix::MatrixSpec& spec,
                            matrix::Expansion& expansion) {
  auto fleet = load_fleet(config, spec);
  if (!fleet) return tl::unexpected(fleet.error());
  if (!*fleet) return {};
  return set_container_images(**fleet, expansion);
}

}  // namespace relforge::runner_images
