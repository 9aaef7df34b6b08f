#include "matrix/names.hpp"

#include <gtest/gtest.h>

#include "tests/matrix/support.hpp"

namespace relforge::matrix {
namespace {

using test::expand_text;
using Strings = std::vector<std::string>;

const std::string k_config = R"(
[project]
name = "Mini.Tensor"
[matrix]
[[matrix.axis]]
name = "os"
values = [{ value = "linux", platform = "manylinux_2_28_x86_64" }, { value = "macos-arm64", platform = "macosx_11_0_arm64" }]
[[matrix.axis]]
name = "python"
kind = "version"
values = ["3.12", { value = "3.14t", abi = "cp314t" }]
[[matrix.axis]]
name = "accel"
values = ["cpu", "cu126"]
[[matrix.exclude]]
os = "macos-arm64"
accel = "cu126"
[[matrix.field]]
name = "python_tag"
template = "cp{python|nodot}"
[[matrix.field]]
name = "python_tag"
template = "cp314"
when = { python = "3.14t" }
[[matrix.field]]
name = "abi_tag"
template = "cp{python|nodot}"
[[matrix.field]]
name = "platform_tag"
template = "{os.platform}"
[[matrix.field]]
name = "local_version"
template = "{accel}"
[[matrix.field]]
name = "local_version"
template = ""
when = { os = "macos-*" }
)";

std::vector<std::string> file_names(const std::string& toml, const std::string& version) {
  auto expansion = expand_text(toml);
  EXPECT_TRUE(expansion) << expansion.error().message();
  auto files = wheel_names(*expansion, "Mini.Tensor", version);
  EXPECT_TRUE(files) << files.error().message();
  std::vector<std::string> out;
  for (const auto& file : *files) out.push_back(file.file_name);
  return out;
}

TEST(WheelNames, OnePerCellWithLocalLabel) {
  EXPECT_EQ(file_names(k_config, "2.14.0"),
            (Strings{"mini_tensor-2.14.0+cpu-cp312-cp312-manylinux_2_28_x86_64.whl",
                     "mini_tensor-2.14.0+cu126-cp312-cp312-manylinux_2_28_x86_64.whl",
                     "mini_tensor-2.14.0+cpu-cp314-cp314t-manylinux_2_28_x86_64.whl",
                     "mini_tensor-2.14.0+cu126-cp314-cp314t-manylinux_2_28_x86_64.whl",
                     "mini_tensor-2.14.0-cp312-cp312-macosx_11_0_arm64.whl",
                     "mini_tensor-2.14.0-cp314-cp314t-macosx_11_0_arm64.whl"}));
}

TEST(WheelNames, VersionIsNormalised) {
  EXPECT_EQ(file_names(k_config, "v2.15.0-dev20260101")[4],
            "mini_tensor-2.15.0.dev20260101-cp312-cp312-macosx_11_0_arm64.whl");
}

Error names_error(const std::string& toml, const std::string& project, const std::string& version) {
  auto expansion = expand_text(toml);
  EXPECT_TRUE(expansion) << expansion.error().message();
  auto files = wheel_names(*expansion, project, version);
  EXPECT_FALSE(files);
  return files ? Error(ErrorCategory::internal, "") : files.error();
}

TEST(WheelNames, Errors) {
  EXPECT_EQ(names_error(k_config, "", "1.0").message(),
            "wheel names need the project name: set [project] name");
  const auto bad_version = names_error(k_config, "x", "2.14.0-final-x");
  EXPECT_EQ(bad_version.category(), ErrorCategory::invalid_input);
  EXPECT_EQ(bad_version.message().rfind("--version '2.14.0-final-x' is not a PEP 440 version: ", 0), 0u);
  EXPECT_EQ(
      names_error(k_config, "x", "2.14.0+cpu").message(),
      "--version '2.14.0+cpu' already has a local label, and cell 'linux-3.12-cpu' adds local_version 'cpu'");
  const std::string no_tags =
      "[project]\nname = \"x\"\n[matrix]\n[[matrix.axis]]\nname = \"os\"\nvalues = [\"linux\"]\n";
  EXPECT_EQ(
      names_error(no_tags, "x", "1.0").message(),
      "cell 'linux' has no field 'python_tag'; wheel names need python_tag, abi_tag and platform_tag: add a "
      "[[matrix.field]] named python_tag (see docs/config.md)");
}

TEST(WheelNames, TwoCellsBuildingTheSameFileIsAConflict) {
  std::string toml = k_config;
  toml.replace(toml.find("template = \"{accel}\""), 20, "template = \"\"");
  const auto error = names_error(toml, "Mini.Tensor", "1.0");
  EXPECT_EQ(error.category(), ErrorCategory::conflict);
  EXPECT_EQ(error.message(),
            "cells 'linux-3.12-cpu' and 'linux-3.12-cu126' would both build "
            "mini_tensor-1.0-cp312-cp312-manylinux_2_28_x86_64.whl; make their tags or local_version "
            "differ");
}

}  // namespace
}  // namespace relforge::matrix
