// The conventions every relforge command follows, through the real binary: suggestions for
// mistyped options, every error (CLI11's parse errors included) as the JSON error object under
// --json, help on a bare group, shell completion from the command tree, relforge.toml found from
// any folder below it, RELFORGE_* variables (flag > variable > discovery), one stable channel
// ("release" is an alias), missing files named as such, NO_COLOR/TERM=dumb, --version, and a
// start-up that needs no temp folder.
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/support/e2e.hpp"
#include "tests/support/paths.hpp"
#include "tests/support/run.hpp"

namespace relforge::test {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

const std::string k_bin = shell_quote(relforge::test::relforge_binary());
const fs::path k_matrix_fixtures = source_path("tests/fixtures/matrix");

// relforge run in `dir` with `env` assignments before it.
RunResult relforge_in(const fs::path& dir, const std::string& args, const std::string& env = "") {
  return run_shell("cd " + shell_quote(dir.string()) + " && " + env + " " + k_bin + " " + args);
}

Json json_error(const RunResult& result) {
  EXPECT_EQ(result.out, "");
  const Json parsed = Json::parse(result.err, nullptr, false);
  EXPECT_FALSE(parsed.is_discarded()) << result.err;
  return parsed;
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// ---- 1. did you mean, for options too ----

TEST(CliConventions, MistypedOptionSuggestsTheClosest) {
  const auto result = relforge("version sort --jsn", "1.0\n");
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_EQ(result.out, "");
  EXPECT_EQ(result.err,
            "relforge: error: unknown option '--jsn' for 'relforge version sort'; did you mean '--json'? "
            "(see 'relforge version sort --help')\n");
  const auto value = relforge("matrix expand --confg=x.toml");
  EXPECT_EQ(value.exit_code, 2);
  EXPECT_TRUE(
      has(value.err, "unknown option '--confg' for 'relforge matrix expand'; did you mean '--config'?"))
      << value.err;
}

TEST(CliConventions, KnownOptionsAndArgumentsAreNotMistaken) {
  // A negated flag, an option's value that looks like a word, and arguments after "--".
  const auto negated = relforge("build --fail-fast --config /nonexistent/relforge.toml");
  EXPECT_FALSE(has(negated.err, "unknown option")) << negated.err;
  EXPECT_EQ(relforge("version compare -- 1.0 2.0").out, "<\n");
  EXPECT_EQ(relforge("version compare --json 1.0 1.0").exit_code, 0);
}

TEST(CliConventions, MistypedCommandStillSuggests) {
  const auto result = relforge("matrx expand");
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_TRUE(has(result.err, "unknown command 'matrx' for 'relforge'; did you mean 'matrix'?"))
      << result.err;
}

// ---- 2. every error as the JSON error object under --json ----

TEST(CliConventions, ParseErrorsAreJsonUnderJson) {
  struct Case {
    const char* args;
    const char* message_part;
  };
  for (const Case c : {Case{"version compare --json 1.0", "relforge version compare: b is required"},
                       Case{"version sort --json --jsn", "unknown option '--jsn'"},
                       Case{"matrx --json", "unknown command 'matrx'"},
                       Case{"version compare --json 1.0 2.0 3.0", "relforge version compare: "},
                       Case{"matrix expand --json --shard-size many", "relforge matrix expand: "}}) {
    SCOPED_TRACE(c.args);
    const auto result = relforge(c.args);
    EXPECT_EQ(result.exit_code, 2);
    const Json error = json_error(result);
    EXPECT_EQ(error["error"]["category"], "invalid_input");
    EXPECT_EQ(error["error"]["exit_code"], 2);
    EXPECT_TRUE(has(error["error"]["message"].get<std::string>(), c.message_part)) << result.err;
  }
}

TEST(CliConventions, ParseErrorsInTextNameTheCommandAndItsHelp) {
  const auto result = relforge("version compare 1.0");
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_EQ(result.err,
            "relforge: error: relforge version compare: b is required (see 'relforge version compare "
            "--help')\n");
}

// ---- 3. help on the bare program and on a bare group ----

TEST(CliConventions, BareProgramAndGroupsShowTheirHelp) {
  const auto bare = relforge("");
  EXPECT_EQ(bare.exit_code, 0) << bare.err;
  EXPECT_EQ(bare.err, "");
  EXPECT_TRUE(has(bare.out, "Usage: relforge")) << bare.out;
  EXPECT_TRUE(has(bare.out, "completion")) << bare.out;
  const auto matrix = relforge("matrix");
  EXPECT_EQ(matrix.exit_code, 0) << matrix.err;
  EXPECT_TRUE(has(matrix.out, "Usage: relforge matrix")) << matrix.out;
  EXPECT_TRUE(has(matrix.out, "expand")) << matrix.out;
  const auto version = relforge("version");
  EXPECT_EQ(version.exit_code, 0) << version.err;
  EXPECT_TRUE(has(version.out, "Usage: relforge version")) << version.out;
  EXPECT_TRUE(has(version.out, "compare")) << version.out;
  const auto nested = relforge("release pick");  // a group inside a group
  EXPECT_EQ(nested.exit_code, 0) << nested.err;
  EXPECT_TRUE(has(nested.out, "Usage: relforge release pick")) << nested.out;
}

TEST(CliConventions, HelpSaysWhatEachCommandDoes) {
  const auto help = relforge("--help");
  EXPECT_TRUE(has(help.out, "Mark a published wheel file as yanked")) << help.out;
  EXPECT_FALSE(has(help.out, "file or version")) << help.out;
  const auto index = relforge("index --help");
  EXPECT_TRUE(has(index.out, "rebuild")) << index.out;
  EXPECT_TRUE(has(index.out, "Re-render every index page")) << index.out;
  EXPECT_TRUE(has(index.out, "Verify the store")) << index.out;
}

// ---- 4. shell completion from the command tree ----

// Runs the bash completion function as bash would for the words typed so far.
std::string bash_complete(const std::string& words) {
  const std::string script = "source <(" + k_bin + " completion bash) && COMP_WORDS=(" + words +
                             ") && COMP_CWORD=$((${#COMP_WORDS[@]} - 1)) && _relforge && "
                             "printf '%s\\n' \"${COMPREPLY[@]}\"";
  const auto result = run_shell("bash -c " + shell_quote(script));
  EXPECT_EQ(result.exit_code, 0) << result.err;
  return result.out;
}

TEST(CliConventions, BashCompletesCommandsSubcommandsAndOptions) {
  EXPECT_EQ(bash_complete("relforge mat"), "matrix\n");
  EXPECT_EQ(bash_complete("relforge matrix ex"), "expand\n");
  EXPECT_EQ(bash_complete("relforge version sort --js"), "--json\n");
  EXPECT_EQ(bash_complete("relforge matrix expand --chan"), "--channel\n");
  EXPECT_EQ(bash_complete("relforge completion --js"), "--json\n");
  // An option's value does not move the completion to another command.
  EXPECT_EQ(bash_complete("relforge matrix expand --config x.toml --for"), "--format\n");
  const auto top = bash_complete("relforge ''");
  for (const char* command : {"matrix\n", "publish\n", "completion\n", "index\n"})
    EXPECT_TRUE(has(top, command)) << top;
}

TEST(CliConventions, ZshAndFishScriptsParseAndComplete) {
  if (run_shell("command -v zsh && command -v fish").exit_code != 0)
    GTEST_SKIP() << "zsh and fish are installed by scripts/install-deps.sh";
  TempDir dir;
  const auto zsh = run_shell(k_bin + " completion zsh > " + shell_quote((dir.path / "c.zsh").string()) +
                             " && zsh -n " + shell_quote((dir.path / "c.zsh").string()));
  EXPECT_EQ(zsh.exit_code, 0) << zsh.err;
  const auto loaded =
      run_shell("zsh -c " + shell_quote("autoload -U compinit && compinit -u -d " +
                                        shell_quote((dir.path / "zcomp").string()) + " && source " +
                                        (dir.path / "c.zsh").string() + " && print -r -- $_comps[relforge]"));
  EXPECT_EQ(loaded.out, "_relforge\n") << loaded.err;
  const std::string fish_file = (dir.path / "c.fish").string();
  const auto fish = run_shell(k_bin + " completion fish > " + shell_quote(fish_file) +
                              " && fish --no-execute " + shell_quote(fish_file));
  EXPECT_EQ(fish.exit_code, 0) << fish.err;
  const auto complete = run_shell("fish -c " + shell_quote("source " + fish_file +
                                                           "; complete -C 'relforge mat'; complete -C "
                                                           "'relforge matrix expand --chan'"));
  EXPECT_TRUE(has(complete.out, "matrix\t")) << complete.out << complete.err;
  EXPECT_TRUE(has(complete.out, "--channel")) << complete.out << complete.err;
}

TEST(CliConventions, UnknownShellIsAnError) {
  const auto result = relforge("completion tcsh");
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_TRUE(has(result.err, "unknown shell 'tcsh' for completion (shells: bash, zsh, fish)")) << result.err;
}

// ---- 5/6. relforge.toml from any folder below it; RELFORGE_CONFIG; precedence ----

class ConfigDiscovery : public ::testing::Test {
protected:
  void SetUp() override {
    fs::copy_file(k_matrix_fixtures / "good.toml", m_dir.path / "relforge.toml");
    fs::copy_file(k_matrix_fixtures / "before.toml", m_dir.path / "other.toml");
    fs::create_directories(m_dir.path / "a" / "b");
    m_good = relforge("matrix expand --format ids --config " +
                      shell_quote((m_dir.path / "relforge.toml").string()))
                 .out;
    m_other =
        relforge("matrix expand --format ids --config " + shell_quote((m_dir.path / "other.toml").string()))
            .out;
    ASSERT_FALSE(m_good.empty());
    ASSERT_FALSE(m_other.empty());
    ASSERT_NE(m_good, m_other);
  }
  TempDir m_dir;
  std::string m_good, m_other;
};

TEST_F(ConfigDiscovery, MatrixFindsTheConfigAbove) {
  const auto result = relforge_in(m_dir.path / "a" / "b", "matrix expand --format ids");
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.out, m_good);
}

TEST_F(ConfigDiscovery, BuildAndMatrixNamesFindTheConfigAbove) {
  // good.toml has no [recipe]: build's error names the discovered file, not ./relforge.toml.
  const auto build = relforge_in(m_dir.path / "a" / "b", "build --dry-run");
  EXPECT_NE(build.exit_code, 0);
  EXPECT_TRUE(has(build.err, (m_dir.path / "relforge.toml").string())) << build.err;
  const auto names = relforge_in(m_dir.path / "a", "matrix names --version 2.13.0");
  EXPECT_EQ(names.exit_code, 0) << names.err;
  EXPECT_TRUE(has(names.out, ".whl")) << names.out;
}

TEST_F(ConfigDiscovery, CiTakesItsConfigRelativeToTheRepositoryRoot) {
  // The workflow runs in the checkout's root: ci keeps --config as given, never this machine's path.
  const auto plan = relforge_in(m_dir.path, "ci plan --json --runner-field os");
  EXPECT_EQ(plan.exit_code, 0) << plan.err;
  const auto below = relforge_in(m_dir.path / "a", "ci plan --json --runner-field os");
  EXPECT_NE(below.exit_code, 0);
  EXPECT_FALSE(has(below.err, "is absolute")) << below.err;
}

TEST_F(ConfigDiscovery, VariableBeatsDiscoveryAndFlagBeatsVariable) {
  const std::string env = "RELFORGE_CONFIG=" + shell_quote((m_dir.path / "other.toml").string());
  const auto from_env = relforge_in(m_dir.path / "a", "matrix expand --format ids", env);
  EXPECT_EQ(from_env.exit_code, 0) << from_env.err;
  EXPECT_EQ(from_env.out, m_other);
  const auto from_flag =
      relforge_in(m_dir.path / "a", "matrix expand --format ids --config ../relforge.toml", env);
  EXPECT_EQ(from_flag.exit_code, 0) << from_flag.err;
  EXPECT_EQ(from_flag.out, m_good);
}

TEST_F(ConfigDiscovery, NoConfigAnywhereKeepsTheNamedDefault) {
  TempDir empty;
  const auto result = relforge_in(empty.path, "matrix expand --format ids");
  EXPECT_EQ(result.exit_code, 4) << result.err;
  EXPECT_TRUE(has(result.err, "relforge.toml")) << result.err;
}

// A one-cell build whose recipe prints a line and fails at once.
void write_failing_build(const fs::path& dir) {
  std::ofstream(dir / "relforge.toml")
      << "[project]\nname = \"demo\"\n[matrix]\nid = \"{python}\"\n"
         "[[matrix.axis]]\nname = \"python\"\nkind = \"version\"\nvalues = [\"3.11\"]\n"
         "[build]\nversion = \"1.0\"\n[recipe]\ncommand = [\"sh\", \"-c\", \"echo working; exit 3\"]\n";
}

TEST(CliConventions, StateDirVariableIsTheDefaultAndTheFlagWins) {
  TempDir dir;
  write_failing_build(dir.path);
  const std::string env =
      "env -u GITHUB_ACTIONS RELFORGE_STATE_DIR=" + shell_quote((dir.path / "from-env").string());
  const auto from_env = relforge_in(dir.path, "build", env);
  EXPECT_TRUE(has(from_env.err, "working")) << from_env.err;
  EXPECT_TRUE(fs::exists(dir.path / "from-env")) << from_env.err;
  EXPECT_FALSE(fs::exists(dir.path / ".relforge"));
  const auto from_flag = relforge_in(dir.path, "build --state-dir from-flag", env);
  EXPECT_TRUE(fs::exists(dir.path / "from-flag")) << from_flag.err;
  EXPECT_FALSE(fs::exists(dir.path / ".relforge"));
}

// ---- 7. one stable channel: "release" is its alias ----

TEST(CliConventions, ReleaseAndStableNameOneMatrixChannel) {
  const auto release =
      relforge_in(k_matrix_fixtures, "matrix expand --config good.toml --channel release --format ids");
  const auto stable =
      relforge_in(k_matrix_fixtures, "matrix expand --config good.toml --channel stable --format ids");
  const auto nightly =
      relforge_in(k_matrix_fixtures, "matrix expand --config good.toml --channel nightly --format ids");
  EXPECT_EQ(release.exit_code, 0) << release.err;
  EXPECT_EQ(stable.exit_code, 0) << stable.err;
  EXPECT_EQ(stable.out, release.out);
  EXPECT_NE(stable.out, nightly.out);  // 3.15 and rocm are off the stable channel
  const auto unknown = relforge_in(k_matrix_fixtures, "matrix expand --config good.toml --channel stabel");
  EXPECT_EQ(unknown.exit_code, 2);
}

// ---- 8. file errors named as such ----

TEST(CliConventions, PublishOfAMissingFileSaysSo) {
  TempDir dir;
  const std::string missing = (dir.path / "mini-1.0-py3-none-any.whl").string();
  const auto result =
      relforge("publish --root " + shell_quote((dir.path / "store").string()) + " " + shell_quote(missing));
  EXPECT_EQ(result.exit_code, 4) << result.err;
  EXPECT_EQ(result.out, "");
  EXPECT_TRUE(has(result.err, "no such file: " + missing)) << result.err;
  EXPECT_FALSE(has(result.err, "libzip")) << result.err;
  const auto json = relforge("publish --json --root " + shell_quote((dir.path / "store").string()) + " " +
                             shell_quote(missing));
  EXPECT_EQ(json_error(json)["error"]["category"], "not_found");
  EXPECT_FALSE(fs::exists(dir.path / "store" / "whl"));
}

TEST(CliConventions, JsonAnswersAboutBytesThatAreNotUtf8AreJsonAndKeepTheirExitCode) {
  // A path or an argument may hold any bytes; JSON text may not. They come out as U+FFFD, and the
  // command's own exit code stands (it used to be 70, "a bug in relforge", after files were written).
  TempDir dir;
  const fs::path folder = dir.path / "caf\xe9";
  fs::create_directories(folder);
  const auto made = run_shell("/usr/bin/python3 " +
                              shell_quote(source_path("tests/fixtures/channels/make_wheel.py").string()) +
                              " " + shell_quote(folder.string()) + " mini 1.0");
  ASSERT_EQ(made.exit_code, 0) << made.err;
  const std::string wheel = (folder / "mini-1.0-py3-none-any.whl").string();
  struct Case {
    std::string args;
    int exit_code;
  };
  for (const Case& c : {Case{"wheel verify --json " + shell_quote(wheel), 0},
                        Case{"wheel hash --json " + shell_quote(wheel), 0},
                        Case{"wheel verify --json " + shell_quote((folder / "missing.whl").string()), 4},
                        Case{"wheel parse --json " + shell_quote("mini\xff-1.0-py3-none-any.whl"), 2},
                        Case{"version normalize --json " + shell_quote("1.0\xff"), 2}}) {
    SCOPED_TRACE(c.args);
    const auto result = relforge(c.args);
    EXPECT_EQ(result.exit_code, c.exit_code) << result.err;
    const std::string& text = c.exit_code == 0 ? result.out : result.err;
    const Json parsed = Json::parse(text, nullptr, false);
    ASSERT_FALSE(parsed.is_discarded()) << text;
    EXPECT_TRUE(has(text, "\\ufffd") || has(text, "\xef\xbf\xbd")) << text;
  }
}

TEST(CliConventions, WheelVerifyTextAndJsonCountTheSameEntries) {
  TempDir dir;
  const auto made = run_shell("/usr/bin/python3 " +
                              shell_quote(source_path("tests/fixtures/channels/make_wheel.py").string()) +
                              " " + shell_quote(dir.path.string()) + " mini 1.0");
  ASSERT_EQ(made.exit_code, 0) << made.err;
  const std::string wheel = shell_quote((dir.path / "mini-1.0-py3-none-any.whl").string());
  const auto json = relforge("wheel verify --json " + wheel);
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const Json parsed = Json::parse(json.out);
  const auto text = relforge("wheel verify " + wheel);
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_TRUE(has(text.out, "OK (" + std::to_string(parsed["entries"].get<int>()) + " entries, " +
                                std::to_string(parsed["hashed"].get<int>()) + " hashed, " +
                                std::to_string(parsed["bytes"].get<long long>()) + " bytes)"))
      << text.out << json.out;
  EXPECT_LT(parsed["hashed"].get<int>(), parsed["entries"].get<int>());  // RECORD has no hash of its own
}

TEST(CliConventions, ChannelAliasOnPublish) {
  TempDir dir;
  const auto result =
      relforge("publish --channel release --root " + shell_quote((dir.path / "store").string()) + " " +
               shell_quote((dir.path / "missing.whl").string()));
  EXPECT_FALSE(has(result.err, "unknown channel")) << result.err;
  const auto bad =
      relforge("publish --channel relase --root " + shell_quote((dir.path / "store").string()) + " x.whl");
  EXPECT_TRUE(has(bad.err, "unknown channel 'relase'")) << bad.err;
}

// ---- 9. NO_COLOR and TERM=dumb ----

// Runs under a pseudo-terminal (util-linux script) so that relforge sees a TTY on stderr.
RunResult on_terminal(const fs::path& dir, const std::string& env, const std::string& args) {
  return run_shell("cd " + shell_quote(dir.string()) + " && " + env + " script -qec " +
                   shell_quote(k_bin + " " + args) + " /dev/null");
}

TEST(CliConventions, NoColorAndDumbTerminalGetNoEscapes) {
  if (run_shell("command -v script").exit_code != 0) GTEST_SKIP() << "script (util-linux) is not installed";
  TempDir dir;
  write_failing_build(dir.path);
  const std::string clean = "env -u GITHUB_ACTIONS -u NO_COLOR TERM=xterm";
  // On a terminal the status line is redrawn with escapes: what the other two runs must not print.
  const auto tty = on_terminal(dir.path, clean, "build --state-dir s1");
  EXPECT_TRUE(has(tty.out, "\033[")) << tty.out;
  const auto no_color = on_terminal(dir.path, clean + " NO_COLOR=1", "build --state-dir s2");
  EXPECT_TRUE(has(no_color.out, "working")) << no_color.out;
  EXPECT_FALSE(has(no_color.out, "\033")) << no_color.out;
  const auto dumb =
      on_terminal(dir.path, "env -u GITHUB_ACTIONS -u NO_COLOR TERM=dumb", "build --state-dir s3");
  EXPECT_TRUE(has(dumb.out, "working")) << dumb.out;
  EXPECT_FALSE(has(dumb.out, "\033")) << dumb.out;
}

// ---- 10. --version ----

TEST(CliConventions, VersionNamesTheCommitAndBuildType) {
  const auto result = relforge("--version");
  EXPECT_EQ(result.exit_code, 0);
  const std::regex shape(
      "relforge [0-9]+\\.[0-9]+\\.[0-9]+ \\(commit ([0-9a-f]{12}|unknown), [A-Za-z]+ build\\)\n");
  EXPECT_TRUE(std::regex_match(result.out, shape)) << result.out;
  // `--version` alone is answered before the command tree is built; with more words CLI11's flag
  // answers: the same line.
  const auto through_cli11 = relforge("--version matrix");
  EXPECT_EQ(through_cli11.exit_code, 0);
  EXPECT_EQ(through_cli11.out, result.out);
}

// ---- start-up without a temp folder ----

TEST(CliConventions, NoTempFolderIsNoCrash) {
  TempDir dir;
  const std::string env = "TMPDIR=" + shell_quote((dir.path / "gone").string());
  EXPECT_EQ(relforge_in(dir.path, "--help", env).exit_code, 0);
  const auto check = relforge_in(dir.path, "index check --root " + shell_quote(dir.path.string()), env);
  EXPECT_EQ(check.exit_code, 0) << check.err;
  const auto promote = relforge_in(dir.path, "promote --no-complete --version 1.0 --root .", env);
  EXPECT_NE(promote.exit_code, 134) << promote.err;  // an abort would be SIGABRT
  EXPECT_FALSE(has(promote.err, "filesystem error")) << promote.err;
  EXPECT_FALSE(has(promote.err, "terminate")) << promote.err;
}

}  // namespace
}  // namespace relforge::test
