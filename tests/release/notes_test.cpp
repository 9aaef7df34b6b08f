#include "release/notes.hpp"

#include <gtest/gtest.h>

#include "core/text.hpp"

namespace relforge::release {
namespace {

NoteCommit commit(std::string sha, std::string message, std::vector<std::string> labels = {}) {
  return {std::move(sha), std::move(message), "Ada", std::move(labels)};
}

TEST(ReleaseNotes, PrNumbersFromSquashAndMergeSubjects) {
  EXPECT_EQ(pr_number("fix: cuda stream leak (#1234)"), 1234);
  EXPECT_EQ(pr_number("Merge pull request #77 from dev/branch\n\nAdd xpu wheels"), 77);
  EXPECT_EQ(pr_number("Bump version (#12)\n\nbody (#99)"), 12);
  EXPECT_EQ(pr_number("no number here"), std::nullopt);
  EXPECT_EQ(pr_number("tuple (a, b)"), std::nullopt);
  EXPECT_EQ(pr_number("odd (#12a)"), std::nullopt);
  EXPECT_EQ(pr_number("huge (#12345678901234567890)"), std::nullopt);
}

TEST(ReleaseNotes, ConventionalPrefixesLabelsBreakingAndSkips) {
  const std::vector<NoteCommit> commits = {
      commit("a1", "feat(cuda): add sm_120 kernels (#10)"),
      commit("a2", "fix: wrong stride in matmul (#11)"),
      commit("a3", "Merge pull request #12 from x/y\n\nSpeed up softmax", {"topic: performance"}),
      commit("a4", "refactor!: drop Python 3.9 (#13)"),
      commit("a5", "docs: explain channels\n\nBREAKING CHANGE: index layout moved"),
      commit("a6", "chore: bump ci image (#14)"),
      commit("a7", "Update README"),
      commit("a8", "fix: noisy log (#15)", {"skip-release-notes"}),
  };
  const auto notes = build_notes(commits, default_notes_config(), "v0.3.0", "v0.4.0");
  EXPECT_EQ(notes.commits, 8u);
  EXPECT_EQ(notes.skipped, 2u);
  ASSERT_EQ(notes.sections.size(), 5u);
  EXPECT_EQ(notes.sections[0].title, "Breaking changes");
  ASSERT_EQ(notes.sections[0].entries.size(), 2u);
  EXPECT_EQ(notes.sections[0].entries[0].text, "Drop Python 3.9");
  EXPECT_EQ(notes.sections[0].entries[1].text, "Explain channels");
  EXPECT_EQ(notes.sections[1].title, "New features");
  EXPECT_EQ(notes.sections[1].entries[0].text, "Add sm_120 kernels");
  EXPECT_EQ(notes.sections[1].entries[0].pr, 10);
  EXPECT_EQ(notes.sections[2].title, "Bug fixes");
  EXPECT_EQ(notes.sections[3].title, "Performance");  // from the PR's label: a merge commit has no prefix
  EXPECT_EQ(notes.sections[3].entries[0].text, "Speed up softmax");
  EXPECT_EQ(notes.sections[3].entries[0].pr, 12);
  EXPECT_EQ(notes.sections[4].title, "Other changes");
  EXPECT_EQ(notes.sections[4].entries[0].text, "Update README");
}

TEST(ReleaseNotes, MarkdownLinksPrsOrShowsTheCommit) {
  const auto notes =
      build_notes({commit("0123456789abcdef", "fix: a (#5)"), commit("fedcba9876543210", "fix: b")},
                  default_notes_config(), "v1", "v2");
  EXPECT_EQ(render_markdown(notes, "o/r"),
            "# v2\n\nChanges since v1.\n\n## Bug fixes\n\n- A ([#5](https://github.com/o/r/pull/5))\n"
            "- B (fedcba987654)\n");
  EXPECT_NE(render_markdown(notes, "").find("- A (#5)\n"), std::string::npos);
  EXPECT_NE(render_markdown(build_notes({}, default_notes_config(), "v1", "v2"), "").find("No changes."),
            std::string::npos);
}

TEST(ReleaseNotes, HostileSubjectsRenderAsPlainText) {
  const auto notes = build_notes(
      {commit("1111111111111111", "fix: <img src=x onerror=alert(1)> <h1>owned</h1> & co (#5)"),
       commit("2222222222222222",
              "feat: thanks @pytorch/everyone ![t](https://evil.example/t.png) [docs](javascript:alert(1))"),
       commit("3333333333333333", "docs: typo\r## Security advisory: install evil==6.6.6\r- fake (#77)"),
       commit("4444444444444444", "fix: - 1. *bold* _em_ `code` ~~gone~~ | a | #12 \\ \x1b[8mhidden\x07"),
       commit("5555555555555555", "1. numbered\tline")},
      default_notes_config(), "v1<b>", "v2@x");
  const std::string md = render_markdown(notes, "o/r");
  EXPECT_EQ(
      md,
      "# v2\\@x\n\nChanges since v1&lt;b&gt;.\n\n"
      "## New features\n\n"
      "- Thanks \\@pytorch/everyone \\!\\[t\\](https://evil.example/t.png) \\[docs\\](javascript:alert(1)) "
      "(222222222222)\n\n"
      "## Bug fixes\n\n"
      "- &lt;img src=x onerror=alert(1)&gt; &lt;h1&gt;owned&lt;/h1&gt; &amp; co "
      "([#5](https://github.com/o/r/pull/5))\n"
      "- \\- 1. \\*bold\\* \\_em\\_ \\`code\\` \\~\\~gone\\~\\~ \\| a \\| \\#12 \\\\ \\[8mhidden "
      "(444444444444)\n\n"
      "## Documentation\n\n"
      "- Typo (333333333333)\n\n"
      "## Other changes\n\n"
      "- 1\\. numbered line (555555555555)\n");
  // No line of the notes starts a heading but the sections', and no control character is left.
  for (const auto line : core::split(md, '\n')) {
    if (line.starts_with("#")) {
      EXPECT_TRUE(line.starts_with("## ") || line.starts_with("# v2")) << line;
    }
  }
  EXPECT_EQ(md.find_first_of("\r\x1b\x07"), std::string::npos);
  EXPECT_EQ(markdown_text("\xff@a"), "\xef\xbf\xbd\\@a");
}

TEST(ReleaseNotes, CategoriesFromConfigReplaceTheDefaults) {
  auto config = parse_notes_config(R"(
[release.notes]
other_title = "Misc"
skip_prefixes = []
[[release.notes.category]]
title = "Kernels"
prefixes = ["Kern"]
labels = ["module: kernels"]
)",
                                   "relforge.toml");
  ASSERT_TRUE(config) << config.error().describe();
  ASSERT_EQ(config->categories.size(), 1u);
  EXPECT_EQ(config->categories[0].prefixes, std::vector<std::string>{"kern"});
  const auto notes =
      build_notes({commit("1", "kern: faster gemm"), commit("2", "chore: x")}, *config, "a", "b");
  ASSERT_EQ(notes.sections.size(), 2u);
  EXPECT_EQ(notes.sections[0].title, "Kernels");
  EXPECT_EQ(notes.sections[1].title, "Misc");
  EXPECT_EQ(notes.skipped, 0u);
}

TEST(ReleaseNotes, ConfigMistakesAreNamedWithTheirPlace) {
  auto unknown = parse_notes_config("[release.notes]\nother_titel = \"x\"\n", "relforge.toml");
  ASSERT_FALSE(unknown);
  EXPECT_NE(unknown.error().describe().find("relforge.toml:2:1"), std::string::npos)
      << unknown.error().describe();
  EXPECT_NE(unknown.error().describe().find("did you mean 'other_title'"), std::string::npos)
      << unknown.error().describe();
  auto untitled = parse_notes_config("[[release.notes.category]]\nprefixes = [\"x\"]\n", "relforge.toml");
  ASSERT_FALSE(untitled);
  EXPECT_NE(untitled.error().describe().find("needs 'title'"), std::string::npos)
      << untitled.error().describe();
  auto wrong_type = parse_notes_config("[release.notes]\nskip_labels = 3\n", "relforge.toml");
  ASSERT_FALSE(wrong_type);
  EXPECT_NE(wrong_type.error().describe().find("skip_labels"), std::string::npos);
  EXPECT_TRUE(parse_notes_config("[release]\nversion_file = \"v.txt\"\n", "relforge.toml"));
}

}  // namespace
}  // namespace relforge::release
