// Planning and locking share one pass: expansions → needed images → rendered contexts and tags.
#include "runner_images/plan.hpp"

#include <map>
#include <optional>

#include <nlohmann/json.hpp>

#include "core/text.hpp"
#include "runner_images/assign.hpp"

namespace relforge::runner_images {

Result<std::vector<ImagePlan>> plan_images(const FleetSpec& fleet,
                                           const std::vector<matrix::Expansion>& expansions) {
  auto needed = needed_images(fleet, expansions);
  if (!needed) return tl::unexpected(needed.error());
  std::vector<ImagePlan> out;
  for (const auto& item : *needed) {
    auto context = build_context(fleet, *item.image);
    if (!context) return tl::unexpected(context.error());
    out.push_back({std::move(*context), item.cells, item.channels, {}});
  }
  return out;
}

void check_registry(std::vector<ImagePlan>& plans, std::string_view registry_url) {
  // An unreachable registry (no HTTP answer at all) is not asked again for every tag: each attempt
  // could wait out the whole timeout.
  std::optional<TagAnswer> unreachable;
  for (auto& plan : plans) {
    if (unreachable) {
      plan.answer = *unreachable;
      continue;
    }
    plan.answer = check_tag(registry_url, plan.context.name, plan.context.tag);
    if (plan.answer.status == TagStatus::unknown && plan.answer.http_status == 0) unreachable = plan.answer;
  }
}

std::vector<std::string> build_commands(const ImagePlan& plan, std::string_view render_dir) {
  std::string dir(render_dir);
  if (!dir.empty() && dir.back() != '/') dir += '/';
  return {"docker build --target final -t " + core::shell_word(plan.context.reference()) + " " +
              core::shell_word(dir + plan.context.dir),
          "docker push " + core::shell_word(plan.context.reference())};
}

Result<std::string> render_lock(const FleetSpec& fleet, const matrix::Expansion& expansion,
                                const std::vector<ImagePlan>& plans, const LockRun& run) {
  using Json = nlohmann::ordered_json;
  std::map<std::string, const ImagePlan*> by_name;  // display name → plan
  Json images = Json::array();
  for (const auto& plan : plans) {
    by_name[plan.context.name + ":" + plan.context.variant] = &plan;
    images.push_back({{"name", plan.context.name},
                      {"variant", plan.context.variant},
                      {"tag", plan.context.tag},
                      {"reference", plan.context.reference()},
                      {"digest", plan.answer.digest.empty() ? Json(nullptr) : Json(plan.answer.digest)},
                      {"status", std::string(status_name(plan.answer.status))}});
  }
  Json cells = Json::array();
  for (const auto& cell : expansion.cells) {
    auto image = image_for(fleet, cell);
    if (!image) return tl::unexpected(image.error());
    const std::string runs_on(cell.find(fleet.runs_on).value_or(""));
    const auto* runner = fleet.find_class(runs_on);
    Json entry = {{"id", std::string(cell.id())},
                  {"runs_on", runs_on},
                  {"runner_class", runner ? Json(runner->label) : Json(nullptr)}};
    if (*image != nullptr) {
      const auto* plan = by_name.at((*image)->display());
      entry["image"] = plan->context.reference();
      entry["digest"] = plan->answer.digest.empty() ? Json(nullptr) : Json(plan->answer.digest);
    } else {
      entry["image"] = nullptr;
      entry["digest"] = nullptr;
    }
    cells.push_back(std::move(entry));
  }
  Json lock = {
      {"version", 1},           {"config", run.config},
      {"channel", run.channel}, {"registry", run.registry.empty() ? Json(nullptr) : Json(run.registry)},
      {"images", images},       {"cells", cells}};
  return lock.dump(2) + "\n";
}

Result<LockedImage> find_locked_image(std::string_view lock_text, std::string_view cell_id,
                                      std::string_view file) {
  const auto lock = nlohmann::json::parse(lock_text, nullptr, false);
  if (lock.is_discarded() || !lock.is_object() || !lock.contains("cells") || !lock["cells"].is_array()) {
    return fail(ErrorCategory::invalid_input, std::string(file) +
                                                  " is not a relforge images lock (no \"cells\" "
                                                  "array): write it with `relforge images lock`");
  }
  for (const auto& cell : lock["cells"]) {
    if (!cell.is_object() || cell.value("id", "") != cell_id) continue;
    LockedImage out;
    if (cell.contains("image") && cell["image"].is_string()) out.reference = cell["image"].get<std::string>();
    if (cell.contains("digest") && cell["digest"].is_string()) out.digest = cell["digest"].get<std::string>();
    if (cell.contains("runner_class") && cell["runner_class"].is_string())
      out.runner_class = cell["runner_class"].get<std::string>();
    return out;
  }
  return fail(ErrorCategory::not_found, std::string(file) + " has no cell '" + std::string(cell_id) +
                                            "' (lock the run that built it with `relforge images lock`)");
}

}  // namespace relforge::runner_images
