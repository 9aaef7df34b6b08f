// The Dockerfile of one image. The base stage depends only on the base image, the gcc toolset and
// the base script, so images that share those share the stage (and its cached layers).
#include "runner_images/dockerfile.hpp"

#include <algorithm>
#include <cctype>
#include <system_error>

#include "core/text.hpp"
#include "platform/digest.hpp"
#include "platform/fs.hpp"

namespace relforge::runner_images {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view k_scripts = "/opt/relforge/scripts/";

// Double-quotes a value unless every character is plainly safe for both the shell and ENV. `$`
// stays unescaped: `PATH=/x:$PATH` must expand (pins never contain one).
std::string quote(std::string_view value) {
  const bool plain = !value.empty() && std::all_of(value.begin(), value.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) ||
           std::string_view("._-/:+,=@$").find(c) != std::string_view::npos;
  });
  if (plain) return std::string(value);
  std::string out = "\"";
  for (char c : value) {
    if (c == '"' || c == '\\' || c == '`') out += '\\';
    out += c;
  }
  return out + "\"";
}

Result<std::string> python_dir(const std::string& python) {
  const auto parts = core::split(python, '.');
  auto digits = [](std::string_view s) {
    return !s.empty() && std::all_of(s.begin(), s.end(),
                                     [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
  };
  if (parts.size() == 2 && digits(parts[0])) {
    std::string minor(parts[1]);
    const bool threaded = !minor.empty() && minor.back() == 't';
    if (threaded) minor.pop_back();
    if (digits(minor)) {
      const std::string tag = "cp" + std::string(parts[0]) + minor;
      return tag + "-" + tag + (threaded ? "t" : "");
    }
  }
  return fail(ErrorCategory::invalid_input,
              "Python '" + python + "' is not X.Y or X.Yt (e.g. \"3.12\", \"3.14t\")");
}

std::string script_path(const std::string& file) {
  return std::string(k_scripts) + fs::path(file).filename().string();
}

std::string copy_line(const std::string& file) {
  return "COPY scripts/" + fs::path(file).filename().string() + " " + script_path(file) + "\n";
}

// RUN VAR=value ... bash script, one assignment per continuation line.
std::string run_script(const std::vector<std::pair<std::string, std::string>>& env, const std::string& file) {
  std::string out = "RUN ";
  for (const auto& [name, value] : env) {
    if (value.empty()) continue;
    out += name + "=" + quote(value) + " \\\n    ";
  }
  return out + "bash " + script_path(file) + "\n";
}

std::string env_block(const std::vector<std::pair<std::string, std::string>>& env) {
  std::string out;
  for (const auto& [name, value] : env) {
    out += out.empty() ? "ENV " : " \\\n    ";
    out += name + "=" + quote(value);
  }
  return out.empty() ? out : out + "\n";
}

std::string major_minor(const std::string& version) {
  const auto parts = core::split(version, '.');
  if (parts.size() < 2) return version;
  return std::string(parts[0]) + "." + std::string(parts[1]);
}

struct Toolkit {
  std::string prefix;
  std::string script;
  std::string summary;
  std::vector<std::pair<std::string, std::string>> install_env;
  std::vector<std::pair<std::string, std::string>> final_env;
};

std::optional<Toolkit> toolkit_of(const ImageDef& image) {
  if (image.cuda) {
    const auto& c = *image.cuda;
    const std::string prefix = "/usr/local/cuda-" + major_minor(c.version);
    return Toolkit{
        prefix,
        c.script,
        "CUDA " + c.version + " (driver " + c.driver + ")" + (c.cudnn.empty() ? "" : ", cuDNN " + c.cudnn) +
            (c.nccl.empty() ? "" : ", NCCL " + c.nccl) + (c.nvshmem.empty() ? "" : ", NVSHMEM " + c.nvshmem) +
            (c.cusparselt.empty() ? "" : ", cuSPARSELt " + c.cusparselt),
        {{"CUDA_VERSION", c.version},
         {"CUDA_DRIVER", c.driver},
         {"CUDNN_VERSION", c.cudnn},
         {"NCCL_VERSION", c.nccl},
         {"NVSHMEM_VERSION", c.nvshmem},
         {"CUSPARSELT_VERSION", c.cusparselt},
         {"CUDA_PREFIX", prefix}},
        {{"CUDA_HOME", prefix}, {"CUDA_VERSION", c.version}, {"PATH", prefix + "/bin:$PATH"}}};
  }
  if (image.rocm) {
    const auto& r = *image.rocm;
    const std::string prefix = "/opt/rocm-" + r.version;
    const std::string gfx = core::join(r.gfx, ";");
    return Toolkit{prefix,
                   r.script,
                   "ROCm " + r.version + " (" + gfx + ")",
                   {{"ROCM_VERSION", r.version}, {"PYTORCH_ROCM_ARCH", gfx}, {"ROCM_PREFIX", prefix}},
                   {{"ROCM_HOME", prefix},
                    {"ROCM_PATH", prefix},
                    {"PYTORCH_ROCM_ARCH", gfx},
                    {"PATH", prefix + "/bin:$PATH"}}};
  }
  if (image.oneapi) {
    const auto& o = *image.oneapi;
    const std::string prefix = "/opt/intel/oneapi";
    return Toolkit{prefix,
                   o.script,
                   "oneAPI " + o.version,
                   {{"ONEAPI_VERSION", o.version}, {"ONEAPI_PREFIX", prefix}},
                   {{"ONEAPI_ROOT", prefix}, {"ONEAPI_VERSION", o.version}}};
  }
  return std::nullopt;
}

Result<std::string> render(const ImageDef& image) {
  std::vector<std::string> pythons;
  for (const auto& python : image.pythons) {
    auto dir = python_dir(python);
    if (!dir) return tl::unexpected(Error(dir.error()).with_context("image '" + image.display() + "'"));
    pythons.push_back(*dir);
  }
  const auto toolkit = toolkit_of(image);
  std::string out;
  // Nothing here names the file the fleet was read from: the content tag hashes this text, and the
  // same definition moved to another file must keep its tag.
  out +=
      "# Generated by `relforge images render` from the image's [[fleet.image]] definition; edit it "
      "there, not this file.\n";
  out += "# " + image.display() + ": " + (toolkit ? toolkit->summary : std::string("CPU only")) +
         (image.gcc_toolset.empty() ? "" : ", gcc-toolset " + image.gcc_toolset) +
         (image.pythons.empty() ? "" : ", CPython " + core::join(image.pythons, " ")) + "\n\n";

  out += "FROM " + image.base + " AS base\n";
  std::vector<std::pair<std::string, std::string>> base_env = {{"LC_ALL", "C.UTF-8"}, {"LANG", "C.UTF-8"}};
  if (!image.gcc_toolset.empty()) {
    const std::string root = "/opt/rh/gcc-toolset-" + image.gcc_toolset + "/root";
    base_env.push_back({"DEVTOOLSET_ROOTPATH", root});
    base_env.push_back({"PATH", root + "/usr/bin:$PATH"});
  }
  out += env_block(base_env);
  if (!image.base_script.empty()) {
    out += copy_line(image.base_script);
    out += run_script({{"GCC_TOOLSET", image.gcc_toolset}}, image.base_script);
  }

  if (toolkit) {
    out += "\nFROM base AS toolkit\n";
    out += copy_line(toolkit->script);
    out += run_script(toolkit->install_env, toolkit->script);
  }

  out += "\nFROM base AS final\n";
  std::vector<std::pair<std::string, std::string>> final_env;
  if (toolkit) {
    out += "COPY --from=toolkit " + toolkit->prefix + " " + toolkit->prefix + "\n";
    final_env = toolkit->final_env;
  }
  if (!pythons.empty()) final_env.push_back({"RELFORGE_PYTHONS", core::join(pythons, " ")});
  final_env.push_back({"RELFORGE_IMAGE_VARIANT", image.variant});
  out += env_block(final_env);
  if (!image.python_script.empty()) {
    out += copy_line(image.python_script);
    out += "RUN bash " + script_path(image.python_script) +
           (pythons.empty() ? "" : " " + core::join(pythons, " ")) + "\n";
  }
  for (const auto& file : image.files) out += copy_line(file);
  for (const auto& step : image.steps) out += "RUN " + core::replace_all(step, "\n", " \\\n    ") + "\n";
  out += "LABEL dev.relforge.image=" + quote(image.name) +
         " \\\n      dev.relforge.variant=" + quote(image.variant) + "\n";
  return out;
}

}  // namespace

std::string content_tag(const std::string& variant, const std::string& dockerfile,
                        const std::vector<std::pair<std::string, std::string>>& files) {
  auto sorted = files;
  std::sort(sorted.begin(), sorted.end());
  // Length-prefixed, so no two different contexts serialise to the same bytes.
  platform::Sha256 hasher;
  auto add = [&hasher](std::string_view label, std::string_view bytes) {
    hasher.update(label);
    hasher.update(" " + std::to_string(bytes.size()) + "\n");
    hasher.update(bytes);
  };
  add("Dockerfile", dockerfile);
  for (const auto& [path, content] : sorted) add(path, content);
  return variant + "-" + platform::to_hex(hasher.finish()).substr(0, 12);
}

Result<BuildContext> build_context(const FleetSpec& fleet, const ImageDef& image) {
  BuildContext context;
  context.name = image.name;
  context.variant = image.variant;
  context.dir = core::replace_all(image.name, ":", "_") + "/" + image.variant;
  auto dockerfile = render(image);
  if (!dockerfile) return tl::unexpected(dockerfile.error());
  context.dockerfile = std::move(*dockerfile);
  for (const auto& file : image.copied_files()) {
    auto content = platform::read_file(fleet.dir / file);
    if (!content) {
      return fail(ErrorCategory::invalid_input, "image '" + image.display() + "' copies '" + file +
                                                    "', which cannot be read (" + content.error().message() +
                                                    "; paths are relative to " + fleet.file + ")");
    }
    context.files.push_back({"scripts/" + fs::path(file).filename().string(), std::move(*content)});
  }
  context.tag = content_tag(image.variant, context.dockerfile, context.files);
  return context;
}

Result<std::vector<fs::path>> write_context(const BuildContext& context, const fs::path& root) {
  std::vector<fs::path> written;
  const fs::path dir = root / context.dir;
  std::error_code ec;
  fs::create_directories(dir / "scripts", ec);
  if (ec) return fail(ErrorCategory::io, "cannot create " + (dir / "scripts").string() + ": " + ec.message());
  auto put = [&](const fs::path& path, const std::string& content) -> Status {
    if (auto ok = platform::write_file_atomic(path, content, platform::Durability::no_fsync); !ok) return ok;
    written.push_back(path);
    return {};
  };
  if (auto ok = put(dir / "Dockerfile", context.dockerfile); !ok) return tl::unexpected(ok.error());
  for (const auto& [path, content] : context.files) {
    if (auto ok = put(dir / path, content); !ok) return tl::unexpected(ok.error());
    // Scripts keep their executable bit, whatever the checkout's umask did.
    fs::permissions(dir / path, fs::perms::owner_exec | fs::perms::group_exec | fs::perms::others_exec,
                    fs::perm_options::add, ec);
  }
  return written;
}

}  // namespace relforge::runner_images
