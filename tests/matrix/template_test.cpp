#include "matrix/template.hpp"

#include <gtest/gtest.h>

namespace relforge::matrix {
namespace {

// Slots: 0 python, 1 accel.version, 2 name; var "stable" = "2.13.0"; {id} allowed.
Result<NameBinding> resolve(std::string_view name) {
  NameBinding binding;
  if (name == "python")
    binding.slot = 0;
  else if (name == "accel.version")
    binding.slot = 1;
  else if (name == "name")
    binding.slot = 2;
  else if (name == "id")
    binding.slot = NameBinding::k_id;
  else if (name == "stable")
    binding.constant = "2.13.0";
  else
    return fail(ErrorCategory::invalid_input, "unknown name '" + std::string(name) + "'");
  return binding;
}

std::string render(const std::string& text,
                   const std::vector<std::string>& values = {"3.14t", "12.6", "Torch_X"}) {
  auto compiled = Template::compile(text, resolve);
  EXPECT_TRUE(compiled.has_value()) << (compiled ? "" : compiled.error().message());
  return compiled ? compiled->render(values, "the-id") : "";
}

std::string compile_error(const std::string& text) {
  auto compiled = Template::compile(text, resolve);
  EXPECT_FALSE(compiled.has_value()) << text;
  return compiled ? "" : compiled.error().message();
}

TEST(Template, SubstitutesSlotsAndConstants) {
  EXPECT_EQ(render("py{python}-cuda{accel.version}"), "py3.14t-cuda12.6");
  EXPECT_EQ(render("v{stable}"), "v2.13.0");
  EXPECT_EQ(render("plain text"), "plain text");
  EXPECT_EQ(render(""), "");
}

TEST(Template, Filters) {
  EXPECT_EQ(render("{python|underscore}"), "3_14t");
  EXPECT_EQ(render("cp{python|nodot}"), "cp314t");
  EXPECT_EQ(render("{name|lower}"), "torch_x");
  EXPECT_EQ(render("{name|upper}"), "TORCH_X");
  EXPECT_EQ(render("{name|dash}"), "Torch-X");
  EXPECT_EQ(render("{accel.version|dash}"), "12-6");
  EXPECT_EQ(render("{stable|nodot}"), "2130");  // filters apply to constants too
}

TEST(Template, FiltersChainLeftToRight) {
  EXPECT_EQ(render("{name|upper|dash}"), "TORCH-X");
  EXPECT_EQ(render("{ python | nodot | upper }"), "314T");
}

TEST(Template, DoubledBracesAreLiteral) {
  EXPECT_EQ(render("{{python}}"), "{python}");
  EXPECT_EQ(render("${{{{ matrix.x }}}}-{python}"), "${{ matrix.x }}-3.14t");
}

TEST(Template, IdSlot) {
  EXPECT_EQ(render("{id}/{id|upper}"), "the-id/THE-ID");
}

TEST(Template, RendersAgainWithOtherValues) {
  auto compiled = Template::compile("cp{python|nodot}", resolve);
  ASSERT_TRUE(compiled);
  EXPECT_EQ(compiled->render({"3.10", "", ""}), "cp310");
  EXPECT_EQ(compiled->render({"3.15", "", ""}), "cp315");
  EXPECT_EQ(compiled->slots(), (std::vector<std::uint32_t>{0}));
}

TEST(Template, Errors) {
  EXPECT_NE(compile_error("{pyton}").find("unknown name 'pyton'"), std::string::npos);
  EXPECT_NE(compile_error("{python|nodots}")
                .find("unknown filter 'nodots' in template '{python|nodots}'; did you "
                      "mean 'nodot'?"),
            std::string::npos);
  EXPECT_NE(compile_error("a{python").find("never closed"), std::string::npos);
  EXPECT_NE(compile_error("a}b").find("unmatched '}'"), std::string::npos);
  EXPECT_NE(compile_error("{}").find("empty name"), std::string::npos);
}

}  // namespace
}  // namespace relforge::matrix
