// Every diagnostic of relforge.toml: the message text, with file:line:col and suggestions.
#include "matrix/config.hpp"

#include <gtest/gtest.h>

#include "tests/matrix/support.hpp"

namespace relforge::matrix {
namespace {

using test::error_of;

// A valid base: axes os, python (version), accel (with attributes) and one derived field.
const std::string k_base = R"([project]
name = "torch"
[matrix]
[[matrix.axis]]
name = "os"
values = ["linux", "windows"]
[[matrix.axis]]
name = "python"
kind = "version"
values = ["3.12", "3.14t"]
[[matrix.axis]]
name = "accel"
values = [{ value = "cpu", type = "cpu" }, { value = "cu126", type = "cuda", version = "12.6" }]
[[matrix.field]]
name = "desired_cuda"
template = "{accel}"
)";  // 16 lines

TEST(Config, BaseIsValid) {
  auto spec = parse_spec(k_base, "t.toml");
  ASSERT_TRUE(spec) << spec.error().message();
  EXPECT_EQ(spec->project, "torch");
  EXPECT_EQ(spec->channels, k_default_channels);
  ASSERT_EQ(spec->axes.size(), 3u);
  EXPECT_EQ(spec->axes[1].kind, AxisKind::version);
  EXPECT_EQ(spec->axes[2].attributes, (std::vector<std::string>{"type", "version"}));
  EXPECT_EQ(spec->axes[1].values[1].version->to_string(), "3.14");
}

TEST(Config, AttributesKeepFileOrder) {
  auto spec = parse_spec(R"(
[matrix]
[[matrix.axis]]
name = "a"
values = [{ value = "x", zeta = "1", alpha = "2", mid = "3" }]
)",
                         "t.toml");
  ASSERT_TRUE(spec) << spec.error().message();
  EXPECT_EQ(spec->axes[0].attributes, (std::vector<std::string>{"zeta", "alpha", "mid"}));
}

TEST(Diagnostics, InvalidToml) {
  EXPECT_EQ(error_of("[matrix\n"),
            "t.toml:1:8: invalid TOML: Error while parsing table header: expected ']', saw '\\n'");
}

TEST(Diagnostics, UnknownKeysSuggestTheClosestName) {
  EXPECT_EQ(error_of(k_base + "[[matrix.exlude]]\nos = \"linux\"\n"),
            "t.toml:17:10: unknown key 'exlude' in [matrix]; did you mean 'exclude'?");
  EXPECT_EQ(error_of("[projet]\nname = \"x\"\n" + k_base.substr(k_base.find("[matrix]"))),
            "t.toml:1:2: unknown key 'projet' in the top level; did you mean 'project'?");
  EXPECT_EQ(error_of("[project]\nnaem = \"x\"\n"),
            "t.toml:2:1: unknown key 'naem' in [project]; did you mean 'name'?");
  EXPECT_EQ(error_of(k_base + "[[matrix.axis]]\nname = \"x\"\nvaleus = [\"a\"]\n"),
            "t.toml:19:1: unknown key 'valeus' in [[matrix.axis]]; did you mean 'values'?");
  EXPECT_EQ(error_of(k_base + "[[matrix.field]]\nname = \"x\"\ntempalte = \"a\"\n"),
            "t.toml:19:1: unknown key 'tempalte' in [[matrix.field]]; did you mean 'template'?");
  EXPECT_EQ(error_of(k_base + "[[matrix.zip]]\naxis = [\"os\", \"python\"]\n"),
            "t.toml:18:1: unknown key 'axis' in [[matrix.zip]]; did you mean 'axes'?");
  EXPECT_EQ(error_of(k_base + "[matrix.emit]\nfield = [\"os\"]\n"),
            "t.toml:18:1: unknown key 'field' in [matrix.emit]; did you mean 'fields'?");
}

TEST(Diagnostics, UnknownKeyWithoutCloseMatchListsTheKeys) {
  EXPECT_EQ(error_of(k_base + "[[matrix.zip]]\nwhatever = 1\n"),
            "t.toml:18:1: unknown key 'whatever' in [[matrix.zip]]; expected one of: axes");
}

TEST(Diagnostics, ExcludeNamingAnUnknownAxis) {
  EXPECT_EQ(error_of(k_base + "[[matrix.exclude]]\npyhton = \"3.12\"\n"),
            "t.toml:18:1: [[matrix.exclude]] names 'pyhton', which is not an axis; did you mean 'python'?");
  EXPECT_EQ(error_of(k_base + "[[matrix.exclude]]\n\"acel.type\" = \"cpu\"\n"),
            "t.toml:18:1: [[matrix.exclude]] names 'acel.type', which is not an axis; did you mean 'accel'?");
  EXPECT_EQ(error_of(k_base + "[[matrix.exclude]]\n\"accel.tpye\" = \"cpu\"\n"),
            "t.toml:18:1: [[matrix.exclude]] names 'accel.tpye', which is not an attribute of axis 'accel'; "
            "did you "
            "mean 'type'?");
}

TEST(Diagnostics, ExcludeNamingAField) {
  EXPECT_EQ(
      error_of(k_base + "[[matrix.exclude]]\ndesired_cuda = \"cpu\"\n"),
      "t.toml:18:1: [[matrix.exclude]] names 'desired_cuda', which is a field; [[matrix.exclude]] applies "
      "before fields are set: match on axes or `axis.attr`");
}

TEST(Diagnostics, ExcludeWithoutKeys) {
  EXPECT_EQ(error_of(k_base + "[[matrix.exclude]]\nchannels = [\"release\"]\n"),
            "t.toml:17:1: [[matrix.exclude]] has no keys to match: it would remove every cell");
}

TEST(Diagnostics, IncludeSettingAnUnknownAttribute) {
  EXPECT_EQ(
      error_of(k_base + "[[matrix.include]]\nos = \"linux\"\n\"accel.tpe\" = \"x\"\n"),
      "t.toml:19:1: [[matrix.include]] sets 'accel.tpe', but axis 'accel' has no attribute 'tpe'; did you "
      "mean 'type'?");
  EXPECT_EQ(
      error_of(k_base + "[[matrix.include]]\n\"acel.type\" = \"x\"\n"),
      "t.toml:18:1: [[matrix.include]] sets 'acel.type', but 'acel' is not an axis; did you mean 'accel'?");
}

TEST(Diagnostics, IncludePatternMatchingNoValue) {
  EXPECT_EQ(
      error_of(k_base + "[[matrix.include]]\naccel = \"cuda*\"\nrunner = \"gpu\"\n"),
      "t.toml:18:1: [[matrix.include]] accel = 'cuda*' matches no value of axis 'accel', so the include can "
      "never apply (a pattern cannot make a new value)");
  EXPECT_EQ(
      error_of(k_base + "[[matrix.include]]\npython = \">=3.15\"\nrunner = \"x\"\n"),
      "t.toml:18:1: [[matrix.include]] python = '>=3.15' matches no value of axis 'python', so the include "
      "can never apply (a pattern cannot make a new value)");
}

TEST(Diagnostics, ARuleTestingAValueNoAxisHasIsATypoThatCanNeverApply) {
  // A mistyped exclude would build every cell it was meant to remove, silently.
  EXPECT_EQ(
      error_of(k_base + "[[matrix.exclude]]\nos = \"widnows\"\n"),
      "t.toml:18:1: [[matrix.exclude]] os = 'widnows' matches no value of axis 'os' (linux, windows), so "
      "it can never apply; did you mean 'windows'?");
  EXPECT_EQ(
      error_of(k_base + "[[matrix.only]]\npython = \"3.13\"\n"),
      "t.toml:18:1: [[matrix.only]] python = '3.13' matches no value of axis 'python' (3.12, 3.14t), so "
      "it can never apply; did you mean '3.12'?");
  EXPECT_EQ(
      error_of(k_base + "[[matrix.exclude]]\nos = \"linux\"\nany = [{ accel = \"cu128\" }]\n"),
      "t.toml:19:10: [[matrix.exclude]] accel = 'cu128' matches no value of axis 'accel' (cpu, cu126), so "
      "it can never apply; did you mean 'cu126'?");
  EXPECT_EQ(
      error_of(k_base + "[[matrix.field]]\nname = \"runner\"\ntemplate = \"x\"\nwhen = { os = \"macos\" }\n"),
      "t.toml:20:10: the 'when' of field 'runner' os = 'macos' matches no value of axis 'os' (linux, "
      "windows), so it can never apply");
  // A value of the axis loads, and so does a pattern or a specifier, whether it matches a value or
  // not: it may guard against values to come.
  for (const char* rule : {"os = \"windows\"", "os = \"win*\"", "python = \">=3.15\"", "accel = \"rocm*\""}) {
    SCOPED_TRACE(rule);
    const auto expanded = test::expand_text(k_base + "[[matrix.exclude]]\n" + rule + "\n");
    EXPECT_TRUE(expanded) << expanded.error().message();
  }
}

TEST(Diagnostics, IncludeSettingADerivedFieldOrId) {
  EXPECT_EQ(error_of(k_base + "[[matrix.include]]\ndesired_cuda = \"x\"\n"),
            "t.toml:18:1: [[matrix.include]] sets 'desired_cuda', which is a derived field (line 14); give "
            "the field "
            "a `when` override instead");
  EXPECT_EQ(
      error_of(k_base + "[[matrix.include]]\nid = \"x\"\n"),
      "t.toml:18:1: [[matrix.include]] cannot set 'id': it is computed (use [matrix] id/build_id templates)");
}

TEST(Diagnostics, WhenNamingAnUnknownName) {
  EXPECT_EQ(
      error_of(k_base + "[[matrix.field]]\nname = \"x\"\ntemplate = \"a\"\nwhen = { os = \"linux\", "
                        "desired_cdua = \"cpu\" }\n"),
      "t.toml:20:24: the 'when' of field 'x' names 'desired_cdua', which is not an axis or field; did you "
      "mean 'desired_cuda'?");
}

TEST(Diagnostics, WhenNamingAFieldDefinedLater) {
  EXPECT_EQ(
      error_of(k_base + "[[matrix.field]]\nname = \"x\"\ntemplate = \"a\"\nwhen = { later = \"1\" }\n"
                        "[[matrix.field]]\nname = \"later\"\ntemplate = \"1\"\n"),
      "t.toml:20:10: the 'when' of field 'x' names 'later', which is not computed yet: field 'later' is "
      "defined at line 21; define it earlier");
}

TEST(Diagnostics, TemplateNamingAnUnknownName) {
  EXPECT_EQ(
      error_of(k_base + "[[matrix.field]]\nname = \"x\"\ntemplate = \"py{pyhton|nodot}\"\n"),
      "t.toml:19:12: field 'x': template 'py{pyhton|nodot}': unknown name 'pyhton'; did you mean 'python'?");
}

TEST(Diagnostics, TemplateUsingAFieldDefinedLaterOrItself) {
  EXPECT_EQ(
      error_of(k_base + "[[matrix.field]]\nname = \"x\"\ntemplate = \"{y}\"\n[[matrix.field]]\nname = \"y\"\n"
                        "template = \"1\"\n"),
      "t.toml:19:12: field 'x': template '{y}': field 'y' is defined later (line 20); define it before it "
      "is used");
  EXPECT_EQ(error_of(k_base + "[[matrix.field]]\nname = \"x\"\ntemplate = \"{x}\"\n"),
            "t.toml:19:12: field 'x': template '{x}': field 'x' refers to itself");
}

TEST(Diagnostics, TemplateUnknownFilterAndBadBraces) {
  EXPECT_EQ(error_of(k_base + "[[matrix.field]]\nname = \"x\"\ntemplate = \"{os|upcase}\"\n"),
            "t.toml:19:12: field 'x': unknown filter 'upcase' in template '{os|upcase}'; expected one of: "
            "underscore, nodot, lower, upper, dash");
  EXPECT_EQ(error_of(k_base + "[[matrix.field]]\nname = \"x\"\ntemplate = \"{os|uper}\"\n"),
            "t.toml:19:12: field 'x': unknown filter 'uper' in template '{os|uper}'; did you mean 'upper'?");
  EXPECT_EQ(error_of(k_base + "[[matrix.field]]\nname = \"x\"\ntemplate = \"{os\"\n"),
            "t.toml:19:12: field 'x': template '{os': '{' at offset 0 is never closed (write '{{' for a "
            "literal brace)");
}

TEST(Diagnostics, IdTemplates) {
  const std::string head = "[matrix]\nid = \"{os}-{pyton}\"\n";
  EXPECT_EQ(error_of(head + k_base.substr(k_base.find("[[matrix.axis]]"))),
            "t.toml:2:6: [matrix] id: template '{os}-{pyton}': unknown name 'pyton'; did you mean 'python'?");
  EXPECT_EQ(error_of("[matrix]\nid = \"{id}\"\n[[matrix.axis]]\nname = \"os\"\nvalues = [\"a\"]\n"),
            "t.toml:2:6: [matrix] id: template '{id}': unknown name 'id'; did you mean 'os'?");
}

TEST(Diagnostics, ProjectUsedButNotSet) {
  EXPECT_EQ(
      error_of("[matrix]\n[[matrix.axis]]\nname = \"os\"\nvalues = [\"a\"]\n[[matrix.field]]\nname = \"x\"\n"
               "template = \"{project}\"\n"),
      "t.toml:7:12: field 'x': template '{project}': {project} is used but [project] name is not set");
}

TEST(Diagnostics, EmitFieldsNamingAnUnknownField) {
  EXPECT_EQ(error_of(k_base + "[matrix.emit]\nfields = [\"os\", \"desired_cdua\"]\n"),
            "t.toml:18:10: [matrix.emit] fields names 'desired_cdua', which is not a field; did you mean "
            "'desired_cuda'?");
}

TEST(Diagnostics, ZipGroups) {
  EXPECT_EQ(error_of(k_base + "[[matrix.zip]]\naxes = [\"os\", \"pyton\"]\n"),
            "t.toml:17:1: [[matrix.zip]] names 'pyton', which is not an axis; did you mean 'python'?");
  EXPECT_EQ(
      error_of(k_base + "[[matrix.zip]]\naxes = [\"os\", \"accel\"]\n[[matrix.zip]]\naxes = [\"python\", "
                        "\"accel\"]\n"),
      "t.toml:19:1: axis 'accel' is in two [[matrix.zip]] groups (lines 17 and 19); an axis belongs to at "
      "most one group");
  EXPECT_EQ(error_of(k_base + "[[matrix.zip]]\naxes = [\"os\", \"os\"]\n"),
            "t.toml:17:1: [[matrix.zip]] lists axis 'os' twice");
  EXPECT_EQ(error_of(k_base + "[[matrix.zip]]\naxes = [\"os\"]\n"),
            "t.toml:18:8: [[matrix.zip]] axes needs at least two axes to zip together");
}

TEST(Diagnostics, ZipGroupOfUnequalLengthNamesAxesAndLengths) {
  EXPECT_EQ(
      error_of(R"([matrix]
[[matrix.axis]]
name = "python"
values = ["3.10", "3.11", { value = "3.15", channels = ["nightly"] }]
[[matrix.axis]]
name = "image"
values = ["a", "b", "c"]
[[matrix.zip]]
axes = ["python", "image"]
)"),
      "t.toml:8:1: [[matrix.zip]] axes have unequal lengths on channel 'test': 'python' has 2, 'image' has 3 "
      "values; zipped axes need the same number of values");
}

TEST(Diagnostics, UnknownChannels) {
  EXPECT_EQ(
      error_of(
          "[matrix]\n[[matrix.axis]]\nname = \"p\"\nvalues = [{ value = \"3.15\", channels = [\"nightl\"] "
          "}]\n"),
      "t.toml:4:40: unknown channel 'nightl' in the channels of p '3.15'; did you mean 'nightly'? (the "
      "channels "
      "are 'nightly', 'test' and 'release')");
  EXPECT_EQ(
      error_of(k_base + "[[matrix.exclude]]\nos = \"linux\"\nchannels = [\"relase\"]\n"),
      "t.toml:19:12: unknown channel 'relase' in [[matrix.exclude]] channels; did you mean 'release'? (the "
      "channels are 'nightly', 'test' and 'release')");
  EXPECT_EQ(
      error_of(k_base +
               "[[matrix.field]]\nname = \"x\"\ntemplate = \"a\"\nwhen = { channel = \"stable\" }\n"),
      "t.toml:20:20: unknown channel 'stable' in the 'when' of field 'x'; expected one of: nightly, test, "
      "release");
}

TEST(Diagnostics, ValueThatIsNotAStringOrTable) {
  EXPECT_EQ(error_of("[matrix]\n[[matrix.axis]]\nname = \"python\"\nvalues = [\"3.9\", 3.10]\n"),
            "t.toml:4:18: a value of axis 'python' must be a string, boolean, integer or a table with "
            "'value', not a float "
            "(quote it: "
            "TOML reads 3.10 as the number 3.1)");
  EXPECT_EQ(
      error_of("[matrix]\n[[matrix.axis]]\nname = \"os\"\nvalues = [[\"a\"]]\n"),
      "t.toml:4:11: a value of axis 'os' must be a string, boolean, integer or a table with 'value', not an "
      "array");
  EXPECT_EQ(error_of("[matrix]\n[[matrix.axis]]\nname = \"os\"\nvalues = [{ name = \"a\" }]\n"),
            "t.toml:4:11: a value of axis 'os' is a table without 'value': write { value = \"...\", ... }");
  EXPECT_EQ(
      error_of(
          "[matrix]\n[[matrix.axis]]\nname = \"os\"\nvalues = [{ value = \"a\", chanels = [\"test\"] }]\n"),
      "t.toml:4:26: attribute 'chanels' of os 'a' must be a string, integer, float or boolean, not an array; "
      "did you mean 'channels'?");
}

TEST(Diagnostics, AxisWithoutValues) {
  EXPECT_EQ(error_of("[matrix]\n[[matrix.axis]]\nname = \"os\"\nvalues = []\n"),
            "t.toml:4:10: axis 'os' has no values: list at least one");
  EXPECT_EQ(error_of("[matrix]\n[[matrix.axis]]\nname = \"os\"\n"), "t.toml:2:1: axis 'os' has no 'values'");
  EXPECT_EQ(error_of("[matrix]\nid = \"x\"\n"),
            "t.toml:1:1: [matrix] has no [[matrix.axis]]: define at least one axis");
  EXPECT_EQ(error_of("[project]\nname = \"x\"\n"),
            "t.toml: no [matrix] table: define the axes with [[matrix.axis]] (see docs/config.md)");
}

TEST(Diagnostics, BadSpecifier) {
  const auto message = error_of(k_base + "[[matrix.exclude]]\npython = \">=3.x\"\n");
  EXPECT_EQ(message.rfind("t.toml:18:10: [[matrix.exclude]] 'python': bad specifier '>=3.x': ", 0), 0u)
      << message;
}

TEST(Diagnostics, MatcherOfTheWrongType) {
  EXPECT_EQ(error_of(k_base + "[[matrix.exclude]]\npython = 3.10\n"),
            "t.toml:18:10: [[matrix.exclude]] 'python' must be a string, boolean or integer, or a list of "
            "them, not a float (quote "
            "numbers: TOML reads 3.10 as the number 3.1)");
}

TEST(Diagnostics, AxisDefinitionErrors) {
  EXPECT_EQ(error_of(k_base + "[[matrix.axis]]\nname = \"os\"\nvalues = [\"a\"]\n"),
            "t.toml:18:8: axis 'os' is defined twice (first at line 4)");
  EXPECT_EQ(error_of("[matrix]\n[[matrix.axis]]\nname = \"os\"\nvalues = [\"a\", \"a\"]\n"),
            "t.toml:4:16: axis 'os' lists the value 'a' twice");
  EXPECT_EQ(error_of("[matrix]\n[[matrix.axis]]\nname = \"channel\"\nvalues = [\"a\"]\n"),
            "t.toml:3:8: axis name 'channel' is a reserved name ('channel', 'channels', 'project', 'id', "
            "'build_id', "
            "'value' and 'any' have a meaning of their own); rename it");
  EXPECT_EQ(
      error_of("[matrix]\n[[matrix.axis]]\nname = \"my os\"\nvalues = [\"a\"]\n"),
      "t.toml:3:8: axis name 'my os' is not a valid name: use letters, digits, '_' and '-', starting with a "
      "letter");
  EXPECT_EQ(error_of("[matrix]\n[[matrix.axis]]\nname = \"os\"\nkind = \"versoin\"\nvalues = [\"a\"]\n"),
            "t.toml:4:8: unknown kind 'versoin' of axis 'os'; did you mean 'version'?");
  EXPECT_EQ(
      error_of("[matrix]\n[[matrix.axis]]\nname = \"p\"\nkind = \"version\"\nvalues = [\"3.1\", \"dev\"]\n"),
      "t.toml:5:18: axis 'p' has kind = \"version\" but its value 'dev' has no PEP 440 version: give it a "
      "version attribute ({ value = \"...\", version = \"3.14\" })");
  EXPECT_EQ(
      error_of("[matrix]\n[[matrix.axis]]\nname = 3\nvalues = [\"a\"]\n"),
      "t.toml:3:8: [[matrix.axis]] name must be a string, not an integer (quote it: TOML reads 3.10 as the "
      "number 3.1)");
  EXPECT_EQ(error_of("[matrix]\n[matrix.axis]\nname = \"os\"\nvalues = [\"a\"]\n"),
            "t.toml:2:1: matrix.axis must be an array of tables (write [[matrix.axis]]), not a table");
}

TEST(Diagnostics, FieldDefinitionErrors) {
  EXPECT_EQ(error_of(k_base + "[[matrix.field]]\nname = \"os\"\ntemplate = \"x\"\n"),
            "t.toml:17:1: field 'os' has the name of an axis; rename the field");
  EXPECT_EQ(error_of(k_base + "[[matrix.field]]\nname = \"x\"\n"),
            "t.toml:17:1: field 'x' has no 'template'");
  EXPECT_EQ(error_of(k_base + "[[matrix.field]]\ntemplate = \"x\"\n"),
            "t.toml:17:1: [[matrix.field]] has no 'name'");
}

TEST(Diagnostics, VarClashingWithAField) {
  EXPECT_EQ(
      error_of("[matrix]\n[matrix.vars]\nos = \"x\"\n[[matrix.axis]]\nname = \"os\"\nvalues = [\"a\"]\n"),
      "t.toml: [matrix.vars] os has the name of an axis or field; {os} would be ambiguous: rename the var");
}

TEST(Diagnostics, ChannelListErrors) {
  EXPECT_EQ(
      error_of("[matrix]\nchannels = [\"a\", \"a\"]\n[[matrix.axis]]\nname = \"os\"\nvalues = [\"x\"]\n",
               "a"),
      "t.toml:2:12: channel 'a' is listed twice");
}

TEST(LoadSpec, MissingFileIsNotFound) {
  auto spec = load_spec("/nonexistent/relforge.toml");
  ASSERT_FALSE(spec);
  EXPECT_EQ(spec.error().category(), ErrorCategory::not_found);
  EXPECT_NE(spec.error().message().find("'/nonexistent/relforge.toml' does not exist"), std::string::npos);
}

}  // namespace
}  // namespace relforge::matrix
