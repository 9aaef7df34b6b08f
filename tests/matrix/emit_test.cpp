#include "matrix/emit.hpp"

#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/matrix/support.hpp"

namespace relforge::matrix {
namespace {

using test::expand_text;

const std::string k_emit_config = R"(
[matrix]
build_id = "cp{python|nodot}"
[[matrix.axis]]
name = "os"
values = ["linux", "windows-arm64"]
[[matrix.axis]]
name = "python"
values = ["3.12", "3.13"]
[[matrix.axis]]
name = "accel"
values = [{ value = "cpu", version = "" }]
[[matrix.field]]
name = "quote"
template = "say \"hi\"\\{os}"
)";

Expansion sample() {
  auto expansion = expand_text(k_emit_config);
  EXPECT_TRUE(expansion) << expansion.error().message();
  return *expansion;
}

TEST(Format, ParsesTheFourNames) {
  EXPECT_EQ(*parse_format("table"), Format::table);
  EXPECT_EQ(*parse_format("json"), Format::json);
  EXPECT_EQ(*parse_format("github"), Format::github);
  EXPECT_EQ(*parse_format("ids"), Format::ids);
  auto bad = parse_format("yaml");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message(), "unknown format 'yaml'; expected table, json, github or ids");
}

TEST(EmitTable, AlignedColumnsIdsFirstAttributesCountedNotShown) {
  std::ostringstream out;
  emit_table(out, sample());
  EXPECT_EQ(out.str(),
            "id                      build_id  os             python  accel  quote\n"
            "linux-3.12-cpu          cp312     linux          3.12    cpu    say \"hi\"\\linux\n"
            "linux-3.13-cpu          cp313     linux          3.13    cpu    say \"hi\"\\linux\n"
            "windows-arm64-3.12-cpu  cp312     windows-arm64  3.12    cpu    say \"hi\"\\windows-arm64\n"
            "windows-arm64-3.13-cpu  cp313     windows-arm64  3.13    cpu    say \"hi\"\\windows-arm64\n"
            "4 cells (channel nightly; 1 attribute column not shown: --fields or --format json)\n");
}

TEST(EmitTable, ChosenFieldsInTheirOrderWithDashForEmpty) {
  std::ostringstream out;
  emit_table(out, sample(), {"accel.version", "id"});
  EXPECT_EQ(out.str(),
            "accel.version  id\n"
            "-              linux-3.12-cpu\n"
            "-              linux-3.13-cpu\n"
            "-              windows-arm64-3.12-cpu\n"
            "-              windows-arm64-3.13-cpu\n"
            "4 cells (channel nightly)\n");
}

TEST(EmitTable, UnknownFieldIsRejectedWithASuggestion) {
  const auto status = check_fields(sample(), {"id", "acel"});
  ASSERT_FALSE(status);
  EXPECT_EQ(status.error().category(), ErrorCategory::invalid_input);
  EXPECT_NE(status.error().message().find("unknown field 'acel' in --fields; did you mean 'accel'?"),
            std::string::npos)
      << status.error().message();
  EXPECT_TRUE(check_fields(sample(), {"build_id", "accel.version", "channel"}));
}

TEST(EmitTable, OmitsBuildIdWhenEqualToId) {
  auto expansion = expand_text("[matrix]\n[[matrix.axis]]\nname = \"os\"\nvalues = [\"linux\"]\n", "release");
  ASSERT_TRUE(expansion);
  std::ostringstream out;
  emit_table(out, *expansion);
  EXPECT_EQ(out.str(), "id     os\nlinux  linux\n1 cell (channel release)\n");
}

TEST(EmitJson, EveryFieldPlusIdAndBuildId) {
  std::ostringstream out;
  emit_json(out, sample());
  const auto parsed = nlohmann::ordered_json::parse(out.str());
  ASSERT_EQ(parsed.size(), 4u);
  const auto& first = parsed[0];
  std::vector<std::string> keys;
  for (const auto& [key, value] : first.items()) keys.push_back(key);
  EXPECT_EQ(keys, (std::vector<std::string>{"id", "build_id", "os", "python", "accel", "accel.version",
                                            "quote", "channel"}));
  EXPECT_EQ(first["quote"], "say \"hi\"\\linux");
  EXPECT_EQ(parsed[3]["id"], "windows-arm64-3.13-cpu");
  EXPECT_EQ(parsed[3]["build_id"], "cp313");
  EXPECT_EQ(parsed[3]["channel"], "nightly");
}

TEST(EmitJson, EscapesControlCharacters) {
  std::string out;
  append_json_string(out, std::string("a\tb\nc\x01", 6));
  EXPECT_EQ(out, "\"a\\tb\\nc\\u0001\"");
}

TEST(EmitIds, OnePerLine) {
  std::ostringstream out;
  emit_ids(out, sample());
  EXPECT_EQ(out.str(), "linux-3.12-cpu\nlinux-3.13-cpu\nwindows-arm64-3.12-cpu\nwindows-arm64-3.13-cpu\n");
}

TEST(Github, IncludeDocumentWithIdAndEveryFieldByDefault) {
  const auto documents = github_matrices(sample(), {}, k_github_max_jobs);
  ASSERT_EQ(documents.size(), 1u);
  const auto parsed = nlohmann::ordered_json::parse(documents[0]);
  ASSERT_EQ(parsed["include"].size(), 4u);
  std::vector<std::string> keys;
  for (const auto& [key, value] : parsed["include"][0].items()) keys.push_back(key);
  EXPECT_EQ(keys,
            (std::vector<std::string>{"id", "os", "python", "accel", "accel.version", "quote", "channel"}));
  EXPECT_EQ(documents[0].find('\n'), std::string::npos);  // compact: one line for $GITHUB_OUTPUT
}

TEST(Github, EmitFieldsChooseAndOrder) {
  const auto documents = github_matrices(sample(), {"python", "build_id", "os"}, k_github_max_jobs);
  EXPECT_EQ(documents[0].substr(0, 72),
            "{\"include\":[{\"python\":\"3.12\",\"build_id\":\"cp312\",\"os\":\"linux\"},{\"python\":");
}

TEST(Github, ShardsWhenLargerThanShardSize) {
  const auto documents = github_matrices(sample(), {"id"}, 3);
  ASSERT_EQ(documents.size(), 2u);
  EXPECT_EQ(documents[0],
            "{\"include\":[{\"id\":\"linux-3.12-cpu\"},{\"id\":\"linux-3.13-cpu\"},{\"id\":\"windows-arm64-3."
            "12-cpu\"}]}");
  EXPECT_EQ(documents[1], "{\"include\":[{\"id\":\"windows-arm64-3.13-cpu\"}]}");
  EXPECT_EQ(github_matrices(sample(), {"id"}, 4).size(), 1u);
  EXPECT_EQ(github_matrices(sample(), {"id"}, 1).size(), 4u);
}

TEST(Github, StreamedOutputEqualsTheDocuments) {
  std::ostringstream out;
  emit_github(out, sample(), {"id", "os"}, 3);
  const auto documents = github_matrices(sample(), {"id", "os"}, 3);
  EXPECT_EQ(out.str(), documents[0] + "\n" + documents[1] + "\n");
  EXPECT_EQ(github_shard_count(sample(), 3), 2u);
  EXPECT_EQ(github_shard_count(sample(), 4), 1u);
  EXPECT_EQ(github_shard_count(sample(), 256), 1u);
}

TEST(Github, OutputLines) {
  EXPECT_EQ(github_output_lines({"{\"include\":[]}"}), "matrix={\"include\":[]}\n");
  EXPECT_EQ(github_output_lines({"A", "B", "C"}),
            "matrix-0=A\nmatrix-1=B\nmatrix-2=C\nshard-count=3\nshards=[0,1,2]\n");
}

TEST(Github, ThreeHundredCellsMakeTwoShardsOfAtMost256) {
  auto expansion = expand_text(R"(
[matrix]
[[matrix.axis]]
name = "a"
values = ["0", "1", "2"]
[[matrix.axis]]
name = "b"
values = ["0","1","2","3","4","5","6","7","8","9"]
[[matrix.axis]]
name = "c"
values = ["0","1","2","3","4","5","6","7","8","9"]
)");
  ASSERT_TRUE(expansion);
  const auto documents = github_matrices(*expansion, {"id"}, k_github_max_jobs);
  ASSERT_EQ(documents.size(), 2u);
  EXPECT_EQ(nlohmann::json::parse(documents[0])["include"].size(), 256u);
  EXPECT_EQ(nlohmann::json::parse(documents[1])["include"].size(), 44u);
}

}  // namespace
}  // namespace relforge::matrix
