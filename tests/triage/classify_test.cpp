#include "triage/classify.hpp"

#include <filesystem>

#include <gtest/gtest.h>
#include <sys/stat.h>

#include "core/utf8.hpp"
#include "platform/fs.hpp"
#include "tests/support/paths.hpp"

namespace relforge::triage {
namespace {

std::shared_ptr<const CompiledRules> rules() {
  static const auto compiled = default_rules();
  EXPECT_TRUE(compiled.has_value()) << (compiled ? "" : compiled.error().describe());
  return *compiled;
}

std::filesystem::path fixture(const std::string& name) {
  return std::filesystem::path(relforge::test::source_dir()) / "tests/fixtures/triage" / name;
}

Classification classify_fixture(const std::string& name) {
  auto result = classify_file(fixture(name), rules());
  EXPECT_TRUE(result.has_value()) << (result ? "" : result.error().describe());
  return result ? *result : Classification{};
}

TEST(DefaultRules, EveryRuleHasAFixtureThatItWins) {
  auto spec = parse_rule_spec(default_rules_toml(), "built-in");
  ASSERT_TRUE(spec.has_value());
  ASSERT_GE(spec->rules.size(), 25u);
  EXPECT_EQ(spec->rules.back().name, "gha_error");
  for (const auto& rule : spec->rules) {
    const auto path = fixture(rule.name + ".log");
    ASSERT_TRUE(std::filesystem::exists(path)) << "no fixture for rule " << rule.name;
    const auto result = classify_fixture(rule.name + ".log");
    ASSERT_TRUE(result.match.has_value()) << rule.name;
    EXPECT_EQ(result.match->rule, rule.name)
        << "fixture " << rule.name << " chose line: " << result.match->line;
  }
}

TEST(DefaultRules, EmbeddedCopyMatchesTheTomlFile) {
  auto file =
      platform::read_file(std::filesystem::path(relforge::test::source_dir()) / "triage/default_rules.toml");
  ASSERT_TRUE(file.has_value());
  EXPECT_EQ(*file, default_rules_toml()) << "run triage/embed_default_rules.py";
}

struct Expected {
  const char* fixture;
  std::uint64_t line_num;
  std::vector<std::string> captures;
};

TEST(Classify, CapturesAndLineNumbersPerCategory) {
  const std::vector<Expected> cases = {
      {"pytest_failure.log",
       15,
       {"test/test_ops.py::TestCommonCPU::test_matmul_cpu_float32",
        "AssertionError: Tensor-likes are not close!"}},
      {"pytest_error.log",
       10,
       {"test/distributed/test_store.py", "ModuleNotFoundError: No module named 'expecttest'"}},
      {"unittest_failure.log", 7, {"test_backward_twice", "__main__.TestAutograd"}},
      {"gtest_failure.log", 18, {"TensorShape.Reshape"}},
      {"ctest_failure.log", 6, {"kernels_test", "Failed"}},
      {"compile_error.log",
       7,
       {"/opt/work/aten/src/ATen/native/Loss.cpp", "321",
        "'reduce_mean' was not declared in this scope; did you mean 'reduce_sum'?"}},
      {"nvcc_compile_error.log",
       5,
       {"/opt/work/csrc/softmax.cu", "142", "identifier \"warp_reduce_max\" is undefined"}},
      {"undefined_reference.log", 5, {"at::native::reduce_mean(at::Tensor const&, long)"}},
      {"linker_error.log", 5, {"1"}},
      {"cuda_out_of_memory.log", 4, {"20.00 GiB"}},
      {"cuda_illegal_address.log", 7, {"CUDA error: an illegal memory access was encountered"}},
      {"cuda_no_kernel_image.log",
       4,
       {"CUDA error: no kernel image is available for execution on the device"}},
      {"cuda_error.log", 5, {"device-side assert triggered"}},
      {"nccl_error.log",
       6,
       {"ncclSystemError",
        "System call (e.g. socket, malloc) or external library call failed or device error."}},
      {"oom_kill.log", 5, {"cc1plus"}},
      {"segfault.log", 7, {"Segmentation fault"}},
      {"abort.log", 5, {"Aborted"}},
      {"job_timeout.log", 4, {"240"}},
      {"test_timeout.log", 6, {"900.0"}},
      {"runner_lost.log", 3, {"ci-gpu-a100-17"}},
      {"disk_full.log", 6, {"No space left on device"}},
      {"pip_network_error.log", 3, {"pypi.org", "Read timed out"}},
      {"curl_error.log",
       5,
       {"28",
        "Failed to connect to example-artifacts.s3.amazonaws.com port 443 after 5001 ms: Timeout was "
        "reached"}},
      {"git_fetch_error.log", 3, {"fatal: early EOF"}},
      {"dependency_resolution.log", 11, {"ResolutionImpossible"}},
      {"python_exception.log",
       7,
       {"FileNotFoundError",
        "[Errno 2] No such file or directory: 'aten/src/ATen/native/native_functions.yaml'"}},
      {"build_step_failed.log", 6, {"[Makefile:20: html] Error 2"}},
      {"gha_error.log", 6, {"The version '3.14' with architecture 'x64' was not found for Ubuntu 24.04."}},
  };
  for (const auto& expected : cases) {
    const auto result = classify_fixture(expected.fixture);
    ASSERT_TRUE(result.match.has_value()) << expected.fixture;
    EXPECT_EQ(result.match->line_num, expected.line_num) << expected.fixture << ": " << result.match->line;
    EXPECT_EQ(result.match->captures, expected.captures) << expected.fixture;
  }
}

TEST(Classify, FlakyAndCategoryComeFromTheRule) {
  const auto lost = classify_fixture("runner_lost.log");
  ASSERT_TRUE(lost.match);
  EXPECT_TRUE(lost.match->flaky);
  EXPECT_EQ(lost.match->category, "infra");
  const auto compile = classify_fixture("compile_error.log");
  ASSERT_TRUE(compile.match);
  EXPECT_FALSE(compile.match->flaky);
  EXPECT_EQ(compile.match->category, "compile");
}

TEST(Classify, EarlyPytestFailureBeatsLateGenericError) {
  const auto result = classify_fixture("ordering_pytest_then_gha_error.log");
  ASSERT_TRUE(result.match);
  EXPECT_EQ(result.match->rule, "pytest_failure");
  EXPECT_EQ(result.match->line_num, 3u);
  EXPECT_EQ(result.lines, 905u);
}

TEST(Classify, TwoMatchesOfOneRuleKeepTheLaterLine) {
  const auto result = classify_fixture("ordering_two_gtest_failures.log");
  ASSERT_TRUE(result.match);
  EXPECT_EQ(result.match->rule, "gtest_failure");
  EXPECT_EQ(result.match->line_num, 7u);
  EXPECT_EQ(result.match->captures, std::vector<std::string>{"Ops.Mul"});
}

TEST(Classify, SkipsTheCompilerCacheBlockAndKeepsCountingLines) {
  const auto result = classify_fixture("sccache_block.log");
  ASSERT_TRUE(result.match);
  EXPECT_EQ(result.match->rule, "pytest_failure");
  EXPECT_EQ(result.match->line_num, 9u);
}

TEST(Classify, ContextIsTheEarlierXtraceLinesOldestFirst) {
  const auto result = classify_fixture("context_xtrace.log");
  ASSERT_TRUE(result.match);
  EXPECT_EQ(result.match->context,
            (std::vector<std::string>{"+ export CI=1", "+ cd /opt/work", "+ pip install -e .",
                                      "+ python -m pytest test/test_basic.py"}));
}

TEST(Classify, ContextKeepsAtMostTwelveLines) {
  std::string log;
  for (int i = 0; i < 30; ++i) log += "+ step " + std::to_string(i) + "\n";
  log += "##[error]boom\n";
  for (int i = 0; i < 5; ++i) log += "+ after " + std::to_string(i) + "\n";
  const auto result = classify(log, rules());
  ASSERT_TRUE(result.match);
  ASSERT_EQ(result.match->context.size(), 12u);
  EXPECT_EQ(result.match->context.front(), "+ step 18");
  EXPECT_EQ(result.match->context.back(), "+ step 29");
}

TEST(Classify, BoilerplateIsNeverChosen) {
  const auto result = classify("+ make\n##[error]Process completed with exit code 2.\n", rules());
  EXPECT_FALSE(result.match.has_value());
  EXPECT_EQ(result.lines, 2u);
}

TEST(Classify, StreamingInTinyPiecesGivesTheSameAnswer) {
  auto text = platform::read_file(fixture("pytest_failure.log"));
  ASSERT_TRUE(text);
  LogScanner scanner(rules());
  for (std::size_t i = 0; i < text->size(); i += 7) scanner.feed(std::string_view(*text).substr(i, 7));
  const auto pieces = scanner.finish();
  const auto whole = classify(*text, rules());
  ASSERT_TRUE(pieces.match && whole.match);
  EXPECT_EQ(pieces.match->line, whole.match->line);
  EXPECT_EQ(pieces.match->line_num, whole.match->line_num);
  EXPECT_EQ(pieces.match->captures, whole.match->captures);
  EXPECT_FALSE(pieces.ends_mid_line);
}

TEST(Classify, MatchesAcrossManyChunks) {
  // Far more than one 256 KiB chunk: the pytest failure at the start must still beat the late error,
  // and a gtest failure in the middle loses to it too.
  std::string log = "FAILED tests/test_a.py::test_one - ValueError: bad\n";
  for (int i = 0; i < 20000; ++i)
    log += "building object " + std::to_string(i) + " of 20000 ....................\n";
  log += "[  FAILED  ] Suite.Case (3 ms)\n";
  for (int i = 0; i < 20000; ++i) log += "+ step " + std::to_string(i) + "\n";
  log += "##[error]late generic error\n";
  const auto result = classify(log, rules());
  ASSERT_TRUE(result.match);
  EXPECT_EQ(result.match->rule, "pytest_failure");
  EXPECT_EQ(result.match->line_num, 1u);
  EXPECT_TRUE(result.match->context.empty());
}

TEST(Classify, TruncatedLogWithoutFinalNewlineStillMatchesItsLastLine) {
  const auto result = classify("+ run\n[  FAILED  ] Suite.Half", rules());
  ASSERT_TRUE(result.match);
  EXPECT_EQ(result.match->rule, "gtest_failure");
  EXPECT_TRUE(result.ends_mid_line);
}

TEST(Classify, VeryLongLinesAreCutNotKeptWhole) {
  std::string log = "FAILED t.py::test_x - " + std::string(200000, 'x') + "\n";
  const auto result = classify(log, rules());
  ASSERT_TRUE(result.match);
  EXPECT_EQ(result.long_lines_cut, 1u);
  EXPECT_LE(result.match->line.size(), k_max_line_bytes);
}

TEST(Classify, InvalidUtf8DoesNotStopMatching) {
  const auto result = classify("caf\xe9 \xff\xfe\n##[error]bad byte \xc3\x28 here\n", rules());
  ASSERT_TRUE(result.match);
  EXPECT_EQ(result.match->rule, "gha_error");
  EXPECT_EQ(core::to_valid_utf8(result.match->line), "##[error]bad byte \xEF\xBF\xBD( here");
}

TEST(Classify, AStrayByteIsMatchedAndCapturedAsOneCharacter) {
  // A Latin-1 compiler message or test name: `.` and `\S` go on past the byte, which is captured
  // as U+FFFD, so two different messages never capture the same text.
  const auto pytest = classify("FAILED tests/test_io.py::test_read - UnicodeError: caf\xe9\n", rules());
  ASSERT_TRUE(pytest.match);
  EXPECT_EQ(pytest.match->rule, "pytest_failure");
  EXPECT_EQ(pytest.match->captures,
            (std::vector<std::string>{"tests/test_io.py::test_read", "UnicodeError: caf\xef\xbf\xbd"}));
  const auto one = classify(
      "src/ops.cpp:12:5: error: \x91"
      "foo\x92 was not declared\n",
      rules());
  const auto other =
      classify("src/ops.cpp:12:5: error: \x91totally_different\x92 has incomplete type\n", rules());
  ASSERT_TRUE(one.match && other.match);
  EXPECT_EQ(one.match->rule, "compile_error");
  EXPECT_EQ(one.match->captures, (std::vector<std::string>{"src/ops.cpp", "12",
                                                           "\xef\xbf\xbd"
                                                           "foo\xef\xbf\xbd was not declared"}));
  EXPECT_NE(one.match->captures, other.match->captures);
  const auto test_name = classify("FAILED test/\xe9.py::t - ok\n", rules());
  ASSERT_TRUE(test_name.match);
  EXPECT_EQ(test_name.match->captures.front(), "test/\xef\xbf\xbd.py::t");
}

TEST(ClassifyFile, RefusesBinaryAndGzipAndMissingFiles) {
  const auto dir = std::filesystem::temp_directory_path() / ("relforge-triage-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  ASSERT_TRUE(platform::write_file_atomic(dir / "core", std::string("\x7f"
                                                                    "ELF\x02\x01\x01\0\0\0",
                                                                    10)));
  ASSERT_TRUE(platform::write_file_atomic(dir / "log.gz", std::string("\x1f\x8b\x08\0", 4)));
  auto binary = classify_file(dir / "core", rules());
  ASSERT_FALSE(binary);
  EXPECT_EQ(binary.error().category(), ErrorCategory::invalid_input);
  EXPECT_NE(binary.error().message().find("binary"), std::string::npos);
  auto gz = classify_file(dir / "log.gz", rules());
  ASSERT_FALSE(gz);
  EXPECT_NE(gz.error().message().find("gunzip"), std::string::npos);
  auto missing = classify_file(dir / "absent.log", rules());
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().category(), ErrorCategory::not_found);
  // A folder or a pipe exists: it is named for what it is, not as missing.
  auto folder = classify_file(dir, rules());
  ASSERT_FALSE(folder);
  EXPECT_EQ(folder.error().category(), ErrorCategory::invalid_input);
  EXPECT_NE(folder.error().message().find("is a folder"), std::string::npos) << folder.error().message();
  ASSERT_EQ(::mkfifo((dir / "pipe").c_str(), 0600), 0);
  auto pipe = classify_file(dir / "pipe", rules());
  ASSERT_FALSE(pipe);
  EXPECT_EQ(pipe.error().category(), ErrorCategory::invalid_input);
  EXPECT_NE(pipe.error().message().find("not a regular file"), std::string::npos) << pipe.error().message();
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace relforge::triage
