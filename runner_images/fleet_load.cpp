// [fleet] → FleetSpec: every table's keys and types, with file:line:col errors. Images inherit
// [fleet.defaults] key by key, so one pin changed in an image changes only that image.
#include <algorithm>
#include <set>

#include <toml++/toml.h>

#include "matrix/diagnostics.hpp"
#include "matrix/toml_reader.hpp"
#include "platform/fs.hpp"
#include "platform/toml.hpp"
#include "runner_images/fleet.hpp"

namespace relforge::runner_images {
namespace {

namespace fs = std::filesystem;
using matrix::Location;
using matrix::TomlReader;

const std::vector<std::string> k_fleet_keys = {"include",     "accelerator", "runs_on", "container_image",
                                               "image_cells", "gpu_cells",   "arc",     "defaults",
                                               "image",       "runner_class"};
const std::vector<std::string> k_image_keys = {
    "name",    "variant",       "accelerators", "when", "base",   "gcc_toolset", "base_script",
    "pythons", "python_script", "cuda",         "rocm", "oneapi", "files",       "steps"};
const std::vector<std::string> k_cuda_keys = {"version", "driver",     "cudnn", "nccl",
                                              "nvshmem", "cusparselt", "script"};
const std::vector<std::string> k_rocm_keys = {"version", "gfx", "script"};
const std::vector<std::string> k_oneapi_keys = {"version", "script"};
const std::vector<std::string> k_class_keys = {"label",      "os",  "arch",          "vcpu",
                                               "memory_gib", "gpu", "disk_gib",      "ephemeral",
                                               "min",        "max", "instance_type", "ami"};
const std::vector<std::string> k_gpu_keys = {"type", "vendor", "count"};
const std::vector<std::string> k_vendors = {"nvidia", "amd", "intel"};
const std::vector<std::string> k_arc_keys = {"github_config_url", "github_config_secret", "runner_image"};

// The values that end up in a Dockerfile, a folder name or a docker command line are data: each
// is one plain word of its grammar, never a way to add an instruction, a path or a shell word.
bool all_of_chars(std::string_view text, std::string_view allowed) {
  return !text.empty() && text.find_first_not_of(allowed) == std::string_view::npos;
}
constexpr std::string_view k_lower_alnum = "abcdefghijklmnopqrstuvwxyz0123456789";
constexpr std::string_view k_token_chars =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._+-";
constexpr std::string_view k_tag_chars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-";

// OCI distribution's repository name: lower-case components separated by '/', each of
// [a-z0-9] runs joined by '.', '_', '__' or '-'s; an optional registry host[:port]/ before them.
bool is_repository(std::string_view name) {
  const std::size_t slash = name.find('/');
  if (slash != std::string_view::npos) {
    const std::string_view host = name.substr(0, slash);
    if (host.find_first_of(".:") != std::string_view::npos || host == "localhost") {
      if (!all_of_chars(host, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789.-:"))
        return false;
      name.remove_prefix(slash + 1);
    }
  }
  for (std::size_t start = 0; start <= name.size();) {
    const std::size_t end = std::min(name.find('/', start), name.size());
    const std::string_view part = name.substr(start, end - start);
    if (part.empty() || !all_of_chars(part, std::string(k_lower_alnum) + "._-")) return false;
    if (k_lower_alnum.find(part.front()) == std::string_view::npos ||
        k_lower_alnum.find(part.back()) == std::string_view::npos ||
        part.find("..") != std::string_view::npos || part.find("___") != std::string_view::npos)
      return false;
    start = end + 1;
  }
  return !name.empty();
}

// A base image: REPOSITORY[:TAG][@sha256:DIGEST] in the OCI grammar (stricter than the build
// containers' check in builders/recipe_run.cpp, which takes any registry's spelling of a cell's image).
bool is_oci_image_reference(std::string_view image) {
  const std::size_t at = image.find('@');
  if (at != std::string_view::npos) {
    const std::string_view digest = image.substr(at + 1);
    if (digest.substr(0, 7) != "sha256:" || digest.size() != 71 ||
        !all_of_chars(digest.substr(7), "0123456789abcdef"))
      return false;
    image = image.substr(0, at);
  }
  const std::size_t slash = image.rfind('/');
  const std::size_t colon = image.rfind(':');
  if (colon != std::string_view::npos && (slash == std::string_view::npos || colon > slash)) {
    const std::string_view tag = image.substr(colon + 1);
    if (tag.size() > 128 || !all_of_chars(tag, k_tag_chars) || tag.front() == '.' || tag.front() == '-')
      return false;
    image = image.substr(0, colon);
  }
  return is_repository(image);
}

// A file the image copies: relative to the fleet file and inside its folder.
bool is_inside_path(std::string_view file) {
  const fs::path path(file);
  if (file.empty() || path.is_absolute()) return false;
  return std::none_of(path.begin(), path.end(), [](const fs::path& part) { return part == ".."; });
}

class Loader {
public:
  Loader(std::string file, const matrix::MatrixSpec& spec) : m_reader(std::move(file)), m_spec(spec) {}
  Status load(const toml::table& fleet, FleetSpec& out);

private:
  Result<std::vector<matrix::Condition>> conditions(const toml::node& node, std::string_view what);
  Status image_fields(const toml::table& table, ImageDef& image, std::string_view context);
  Result<std::string> text(const toml::table& table, std::string_view key, std::string_view context);
  Result<std::int64_t> count(const toml::node& node, std::string_view what);
  Status load_class(const toml::table& table, FleetSpec& out);
  Status check_files(const ImageDef& image, const FleetSpec& out);
  Status check_words(const ImageDef& image);

  TomlReader m_reader;
  const matrix::MatrixSpec& m_spec;
};

Result<std::vector<matrix::Condition>> Loader::conditions(const toml::node& node, std::string_view what) {
  auto table = m_reader.table(node, what);
  if (!table) return tl::unexpected(table.error());
  std::vector<matrix::Condition> out;
  for (const auto& [key, value] : TomlReader::ordered(**table)) {
    auto alternatives = m_reader.strings(*value, std::string(what) + " '" + std::string(key->str()) + "'");
    if (!alternatives) return tl::unexpected(alternatives.error());
    auto matcher = matrix::Matcher::parse(*alternatives);
    if (!matcher) return m_reader.fail(TomlReader::location(*value), matcher.error().message());
    out.push_back({std::string(key->str()), std::move(*matcher), TomlReader::location(*key)});
  }
  return out;
}

Result<std::string> Loader::text(const toml::table& table, std::string_view key, std::string_view context) {
  const auto* node = table.get(key);
  if (node == nullptr) return std::string();
  return m_reader.scalar(*node, std::string(context) + " " + std::string(key));
}

Result<std::int64_t> Loader::count(const toml::node& node, std::string_view what) {
  const auto* value = node.as_integer();
  if (value == nullptr || value->get() < 0) {
    return m_reader.fail(
        TomlReader::location(node),
        std::string(what) + " must be a non-negative integer, not " + TomlReader::type_name(node));
  }
  return value->get();
}

Status Loader::image_fields(const toml::table& table, ImageDef& image, std::string_view context) {
  if (auto ok = m_reader.check_keys(table, k_image_keys, context); !ok) return ok;
  const std::string ctx(context);
  for (const auto& [key, target] :
       {std::pair{"name", &image.name}, std::pair{"variant", &image.variant}, std::pair{"base", &image.base},
        std::pair{"gcc_toolset", &image.gcc_toolset}, std::pair{"base_script", &image.base_script},
        std::pair{"python_script", &image.python_script}}) {
    if (const auto* node = table.get(key)) {
      auto value = m_reader.scalar(*node, ctx + " " + key);
      if (!value) return tl::unexpected(value.error());
      *target = std::move(*value);
    }
  }
  for (const auto& [key, target] :
       {std::pair{"accelerators", &image.accelerators}, std::pair{"pythons", &image.pythons},
        std::pair{"files", &image.files}, std::pair{"steps", &image.steps}}) {
    if (const auto* node = table.get(key)) {
      auto value = m_reader.strings(*node, ctx + " " + key);
      if (!value) return tl::unexpected(value.error());
      *target = std::move(*value);
    }
  }
  if (const auto* node = table.get("when")) {
    auto when = conditions(*node, ctx + " when");
    if (!when) return tl::unexpected(when.error());
    image.when = std::move(*when);
  }
  if (const auto* node = table.get("cuda")) {
    auto pins = m_reader.table(*node, ctx + " cuda");
    if (!pins) return tl::unexpected(pins.error());
    if (auto ok = m_reader.check_keys(**pins, k_cuda_keys, ctx + " cuda"); !ok) return ok;
    CudaPins cuda;
    for (const auto& [key, target] :
         {std::pair{"version", &cuda.version}, std::pair{"driver", &cuda.driver},
          std::pair{"cudnn", &cuda.cudnn}, std::pair{"nccl", &cuda.nccl}, std::pair{"nvshmem", &cuda.nvshmem},
          std::pair{"cusparselt", &cuda.cusparselt}, std::pair{"script", &cuda.script}}) {
      auto value = text(**pins, key, ctx + " cuda");
      if (!value) return tl::unexpected(value.error());
      *target = std::move(*value);
    }
    if (cuda.version.empty() || cuda.driver.empty() || cuda.script.empty())
      return m_reader.fail(TomlReader::location(*node),
                           ctx +
                               " cuda needs version (the runfile version, e.g. \"12.6.3\"), driver (e.g. "
                               "\"560.35.05\") and script (the file that installs them)");
    image.cuda = std::move(cuda);
  }
  if (const auto* node = table.get("rocm")) {
    auto pins = m_reader.table(*node, ctx + " rocm");
    if (!pins) return tl::unexpected(pins.error());
    if (auto ok = m_reader.check_keys(**pins, k_rocm_keys, ctx + " rocm"); !ok) return ok;
    RocmPins rocm;
    auto version = text(**pins, "version", ctx + " rocm");
    auto script = text(**pins, "script", ctx + " rocm");
    if (!version) return tl::unexpected(version.error());
    if (!script) return tl::unexpected(script.error());
    rocm.version = *version;
    rocm.script = *script;
    if (const auto* gfx = (*pins)->get("gfx")) {
      auto list = m_reader.strings(*gfx, ctx + " rocm gfx");
      if (!list) return tl::unexpected(list.error());
      rocm.gfx = std::move(*list);
    }
    if (rocm.version.empty() || rocm.gfx.empty() || rocm.script.empty())
      return m_reader.fail(TomlReader::location(*node),
                           ctx + " rocm needs version, gfx (the GPU targets, e.g. [\"gfx942\"]) and script");
    image.rocm = std::move(rocm);
  }
  if (const auto* node = table.get("oneapi")) {
    auto pins = m_reader.table(*node, ctx + " oneapi");
    if (!pins) return tl::unexpected(pins.error());
    if (auto ok = m_reader.check_keys(**pins, k_oneapi_keys, ctx + " oneapi"); !ok) return ok;
    auto version = text(**pins, "version", ctx + " oneapi");
    auto script = text(**pins, "script", ctx + " oneapi");
    if (!version) return tl::unexpected(version.error());
    if (!script) return tl::unexpected(script.error());
    if (version->empty() || script->empty())
      return m_reader.fail(TomlReader::location(*node), ctx + " oneapi needs version and script");
    image.oneapi = OneApiPins{*version, *script};
  }
  return {};
}

Status Loader::check_words(const ImageDef& image) {
  const std::string who = "image '" + image.display() + "'";
  if (!is_repository(image.name))
    return m_reader.fail(image.where,
                         who + ": name '" + image.name +
                             "' is not a repository name (lower-case letters, digits and . _ - "
                             "between them, components joined by /, e.g. pytorch/manylinux-builder)");
  // The variant starts the content tag (VARIANT-<12 hex>, at most 128 characters) and names a folder.
  if (image.variant.size() > 100 || !all_of_chars(image.variant, k_tag_chars) ||
      image.variant.front() == '.' || image.variant.front() == '-')
    return m_reader.fail(image.where, who + ": variant '" + image.variant +
                                          "' is not a tag prefix (letters, digits, . _ - up to 100, not "
                                          "starting with . or -, e.g. cuda12.6)");
  if (!is_oci_image_reference(image.base))
    return m_reader.fail(image.where,
                         who + ": base '" + image.base +
                             "' is not an image reference (REPOSITORY[:TAG][@sha256:DIGEST], e.g. "
                             "quay.io/pypa/manylinux_2_28_x86_64)");
  std::vector<std::pair<std::string, std::string>> pins = {{"gcc_toolset", image.gcc_toolset}};
  for (const auto& python : image.pythons) pins.push_back({"pythons", python});
  if (image.cuda)
    for (const auto& [key, value] :
         {std::pair{"cuda version", &image.cuda->version}, std::pair{"cuda driver", &image.cuda->driver},
          std::pair{"cuda cudnn", &image.cuda->cudnn}, std::pair{"cuda nccl", &image.cuda->nccl},
          std::pair{"cuda nvshmem", &image.cuda->nvshmem},
          std::pair{"cuda cusparselt", &image.cuda->cusparselt}})
      pins.push_back({key, *value});
  if (image.rocm) {
    pins.push_back({"rocm version", image.rocm->version});
    for (const auto& gfx : image.rocm->gfx) pins.push_back({"rocm gfx", gfx});
  }
  if (image.oneapi) pins.push_back({"oneapi version", image.oneapi->version});
  for (const auto& [key, value] : pins) {
    if (!value.empty() && !all_of_chars(value, k_token_chars))
      return m_reader.fail(image.where,
                           who + ": " + key + " '" + value +
                               "' is not a version or a name (letters, digits and . _ + - only): "
                               "it is written into the Dockerfile and its scripts' environment");
  }
  for (const auto& file : image.copied_files()) {
    if (!is_inside_path(file))
      return m_reader.fail(image.where, who + " copies '" + file +
                                            "': files are named relative to the fleet file's folder, without "
                                            "'..', and are copied from there only");
  }
  return {};
}

Status Loader::check_files(const ImageDef& image, const FleetSpec& out) {
  std::set<std::string> names;
  for (const auto& file : image.copied_files()) {
    const fs::path path = out.dir / file;
    std::error_code ec;
    // A link in the repository could still point at a file of the machine that renders the image.
    const fs::path real = fs::weakly_canonical(path, ec);
    const fs::path root = fs::weakly_canonical(out.dir.empty() ? fs::path(".") : out.dir, ec);
    const auto [end, ignored] = std::mismatch(root.begin(), root.end(), real.begin(), real.end());
    if (end != root.end())
      return m_reader.fail(image.where, "image '" + image.display() + "' copies '" + file +
                                            "', which leads to " + real.string() + ", outside " +
                                            root.string() +
                                            ": copy the file into that folder instead of linking it");
    if (!fs::is_regular_file(path, ec)) {
      return m_reader.fail(image.where, "image '" + image.display() + "' copies '" + file +
                                            "', which does not exist (looked for " + path.string() +
                                            "; paths are relative to " + out.file + ")");
    }
    const std::string name = fs::path(file).filename().string();
    if (!names.insert(name).second) {
      return m_reader.fail(image.where, "image '" + image.display() + "' copies two files named '" + name +
                                            "': they would land on the same path in scripts/; rename one");
    }
  }
  return {};
}

Status Loader::load_class(const toml::table& table, FleetSpec& out) {
  if (auto ok = m_reader.check_keys(table, k_class_keys, "[[fleet.runner_class]]"); !ok) return ok;
  RunnerClass runner;
  runner.where = TomlReader::location(table);
  for (const auto& [key, target] :
       {std::pair{"label", &runner.label}, std::pair{"os", &runner.os}, std::pair{"arch", &runner.arch},
        std::pair{"instance_type", &runner.instance_type}, std::pair{"ami", &runner.ami}}) {
    auto value = text(table, key, "[[fleet.runner_class]]");
    if (!value) return tl::unexpected(value.error());
    *target = std::move(*value);
  }
  if (runner.label.empty()) return m_reader.fail(runner.where, "[[fleet.runner_class]] has no 'label'");
  const std::string ctx = "runner class '" + runner.label + "'";
  if (runner.os.empty() || runner.arch.empty())
    return m_reader.fail(runner.where, ctx + " needs os (linux, windows, macos) and arch (x86_64, arm64)");
  for (const auto& [key, target] :
       {std::pair{"vcpu", &runner.vcpu}, std::pair{"memory_gib", &runner.memory_gib},
        std::pair{"disk_gib", &runner.disk_gib}, std::pair{"min", &runner.min},
        std::pair{"max", &runner.max}}) {
    if (const auto* node = table.get(key)) {
      auto value = count(*node, ctx + " " + key);
      if (!value) return tl::unexpected(value.error());
      *target = *value;
    }
  }
  if (const auto* node = table.get("ephemeral")) {
    const auto* flag = node->as_boolean();
    if (flag == nullptr)
      return m_reader.fail(TomlReader::location(*node), ctx + " ephemeral must be true or false");
    runner.ephemeral = flag->get();
  }
  if (const auto* node = table.get("gpu")) {
    auto gpu = m_reader.table(*node, ctx + " gpu");
    if (!gpu) return tl::unexpected(gpu.error());
    if (auto ok = m_reader.check_keys(**gpu, k_gpu_keys, ctx + " gpu"); !ok) return ok;
    auto type = text(**gpu, "type", ctx + " gpu");
    auto vendor = text(**gpu, "vendor", ctx + " gpu");
    if (!type) return tl::unexpected(type.error());
    if (!vendor) return tl::unexpected(vendor.error());
    runner.gpu.type = *type;
    runner.gpu.vendor = *vendor;
    runner.gpu.count = 1;
    if (const auto* n = (*gpu)->get("count")) {
      auto value = count(*n, ctx + " gpu count");
      if (!value) return tl::unexpected(value.error());
      runner.gpu.count = *value;
    }
    if (std::find(k_vendors.begin(), k_vendors.end(), runner.gpu.vendor) == k_vendors.end())
      return m_reader.fail(TomlReader::location(*node), ctx + " gpu vendor '" + runner.gpu.vendor +
                                                            "' is unknown" +
                                                            matrix::suggestion(runner.gpu.vendor, k_vendors));
  }
  if (runner.max < runner.min)
    return m_reader.fail(runner.where, ctx + " has max " + std::to_string(runner.max) + " below min " +
                                           std::to_string(runner.min));
  if (const auto* existing = out.find_class(runner.label))
    return m_reader.fail(
        runner.where, ctx + " is defined twice (first at line " + std::to_string(existing->where.line) + ")");
  out.runner_classes.push_back(std::move(runner));
  return {};
}

Status Loader::load(const toml::table& fleet, FleetSpec& out) {
  if (auto ok = m_reader.check_keys(fleet, k_fleet_keys, "[fleet]"); !ok) return ok;
  for (const auto& [key, target] :
       {std::pair{"accelerator", &out.accelerator}, std::pair{"runs_on", &out.runs_on}}) {
    auto value = text(fleet, key, "[fleet]");
    if (!value) return tl::unexpected(value.error());
    if (!value->empty()) *target = std::move(*value);
  }
  const auto* axis = m_spec.find_axis(out.accelerator);
  if (axis == nullptr) {
    std::vector<std::string> names;
    for (const auto& a : m_spec.axes) names.push_back(a.name);
    return m_reader.fail(
        fleet.get("accelerator") ? TomlReader::location(*fleet.get("accelerator")) : Location{},
        "[fleet] accelerator '" + out.accelerator + "' is not an axis of the matrix" +
            matrix::suggestion(out.accelerator, names));
  }
  if (const auto* node = fleet.get("container_image")) {
    auto value = m_reader.string(*node, "[fleet] container_image");
    if (!value) return tl::unexpected(value.error());
    if (*value == "content-tag") {
      out.cell_image = CellImage::content_tag;
    } else if (*value == "matrix") {
      out.cell_image = CellImage::matrix;
    } else {
      return m_reader.fail(TomlReader::location(*node),
                           "[fleet] container_image must be \"content-tag\" or "
                           "\"matrix\", not '" +
                               *value + "'");
    }
  }
  for (const auto& [key, target] :
       {std::pair{"image_cells", &out.image_cells}, std::pair{"gpu_cells", &out.gpu_cells}}) {
    if (const auto* node = fleet.get(key)) {
      auto value = conditions(*node, std::string("[fleet] ") + key);
      if (!value) return tl::unexpected(value.error());
      *target = std::move(*value);
    }
  }
  if (const auto* node = fleet.get("arc")) {
    auto arc = m_reader.table(*node, "[fleet.arc]");
    if (!arc) return tl::unexpected(arc.error());
    if (auto ok = m_reader.check_keys(**arc, k_arc_keys, "[fleet.arc]"); !ok) return ok;
    for (const auto& [key, target] : {std::pair{"github_config_url", &out.arc.github_config_url},
                                      std::pair{"github_config_secret", &out.arc.github_config_secret},
                                      std::pair{"runner_image", &out.arc.runner_image}}) {
      auto value = text(**arc, key, "[fleet.arc]");
      if (!value) return tl::unexpected(value.error());
      if (!value->empty()) *target = std::move(*value);
    }
  }
  ImageDef defaults;
  if (const auto* node = fleet.get("defaults")) {
    auto table = m_reader.table(*node, "[fleet.defaults]");
    if (!table) return tl::unexpected(table.error());
    if (auto ok = image_fields(**table, defaults, "[fleet.defaults]"); !ok) return ok;
  }
  if (const auto* node = fleet.get("image")) {
    auto tables = m_reader.tables(*node, "fleet.image");
    if (!tables) return tl::unexpected(tables.error());
    for (const auto* table : *tables) {
      ImageDef image = defaults;
      image.where = TomlReader::location(*table);
      if (auto ok = image_fields(*table, image, "[[fleet.image]]"); !ok) return ok;
      if (image.name.empty() || image.variant.empty())
        return m_reader.fail(image.where,
                             "[[fleet.image]] needs a name (the repository) and a variant (the tag prefix)");
      const int toolkits = (image.cuda ? 1 : 0) + (image.rocm ? 1 : 0) + (image.oneapi ? 1 : 0);
      if (toolkits > 1)
        return m_reader.fail(image.where, "image '" + image.display() +
                                              "' has more than one of cuda, rocm and "
                                              "oneapi: one toolkit per image");
      if (image.base.empty())
        return m_reader.fail(image.where, "image '" + image.display() +
                                              "' has no base image (set base here or in "
                                              "[fleet.defaults])");
      for (const auto& value : image.accelerators) {
        const bool known = std::any_of(axis->values.begin(), axis->values.end(),
                                       [&](const matrix::AxisValue& v) { return v.value == value; });
        if (!known) {
          std::vector<std::string> values;
          for (const auto& v : axis->values) values.push_back(v.value);
          return m_reader.fail(image.where, "image '" + image.display() + "' serves accelerator '" + value +
                                                "', which axis '" + axis->name + "' does not have" +
                                                matrix::suggestion(value, values));
        }
      }
      for (const auto& other : out.images) {
        if (other.display() == image.display())
          return m_reader.fail(image.where, "image '" + image.display() +
                                                "' is defined twice (first at line " +
                                                std::to_string(other.where.line) + ")");
      }
      if (auto ok = check_words(image); !ok) return ok;
      if (auto ok = check_files(image, out); !ok) return ok;
      out.images.push_back(std::move(image));
    }
  }
  if (const auto* node = fleet.get("runner_class")) {
    auto tables = m_reader.tables(*node, "fleet.runner_class");
    if (!tables) return tl::unexpected(tables.error());
    for (const auto* table : *tables) {
      if (auto ok = load_class(*table, out); !ok) return ok;
    }
  }
  return {};
}

Result<toml::table> parse(const std::string& text, const std::string& file) {
  return platform::parse_toml(text, file);
}

}  // namespace

std::string ImageDef::toolkit_type() const {
  if (cuda) return "cuda";
  if (rocm) return "rocm";
  if (oneapi) return "xpu";
  return "cpu";
}

std::vector<std::string> ImageDef::copied_files() const {
  std::vector<std::string> out;
  if (!base_script.empty()) out.push_back(base_script);
  if (cuda) out.push_back(cuda->script);
  if (rocm) out.push_back(rocm->script);
  if (oneapi) out.push_back(oneapi->script);
  if (!python_script.empty()) out.push_back(python_script);
  out.insert(out.end(), files.begin(), files.end());
  return out;
}

const RunnerClass* FleetSpec::find_class(std::string_view label) const {
  for (const auto& runner : runner_classes) {
    if (runner.label == label) return &runner;
  }
  return nullptr;
}

Result<std::optional<FleetSpec>> load_fleet(const fs::path& config, const matrix::MatrixSpec& spec) {
  auto text = platform::read_file(config);
  if (!text) return tl::unexpected(text.error());
  auto root = parse(*text, config.string());
  if (!root) return tl::unexpected(root.error());
  FleetSpec out;
  out.file = config.string();
  out.dir = config.parent_path();
  if (const auto* build = root->get("build"); build && build->is_table()) {
    if (const auto* dir = build->as_table()->get("state_dir"); dir && dir->is_string())
      out.state_dir = dir->as_string()->get();
  }
  const auto* node = root->get("fleet");
  if (node == nullptr) return std::optional<FleetSpec>();
  TomlReader reader(config.string());
  auto fleet = reader.table(*node, "[fleet]");
  if (!fleet) return tl::unexpected(fleet.error());
  toml::table included;
  const toml::table* source = *fleet;
  if (const auto* include = (*fleet)->get("include")) {
    auto name = reader.string(*include, "[fleet] include");
    if (!name) return tl::unexpected(name.error());
    if ((*fleet)->size() != 1)
      return reader.fail(TomlReader::location(**fleet),
                         "[fleet] has 'include' and other keys: put the whole fleet in " + *name);
    const fs::path path = config.parent_path() / *name;
    auto included_text = platform::read_file(path);
    if (!included_text)
      return reader.fail(TomlReader::location(*include), "[fleet] include '" + *name + "' cannot be read: " +
                                                             included_text.error().message());
    auto parsed = parse(*included_text, path.string());
    if (!parsed) return tl::unexpected(parsed.error());
    included = std::move(*parsed);
    source = &included;
    out.file = path.string();
    out.dir = path.parent_path();
  }
  if (auto ok = Loader(out.file, spec).load(*source, out); !ok) return tl::unexpected(ok.error());
  return std::optional<FleetSpec>(std::move(out));
}

}  // namespace relforge::runner_images
