#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/support/paths.hpp"
#include "triage/classify.hpp"

// Every fixture log under tests/fixtures/triage/ with the rule and line the built-in rules must
// choose. The ordering_* fixtures hold a specific error with a summary line or a runner epilogue
// after it: the specific error must win.
namespace relforge::triage {
namespace {

struct Case {
  const char* fixture;
  const char* rule;
  std::uint64_t line_num;
  std::vector<std::string> captures;
};

const std::vector<Case>& cases() {
  static const std::vector<Case> table = {
      {"package_download_error_uv.log", "package_download_error", 5, {"nvidia-cudnn-cu12==9.1.0.70"}},
      {"package_download_error_yum.log", "package_download_error", 6, {"baseos"}},
      {"docker_error_login.log",
       "docker_error",
       4,
       {"Get \"https://308535385114.dkr.ecr.us-east-1.amazonaws.com/v2/\": no basic auth credentials"}},
      {"docker_error_push.log", "docker_error", 7, {"permission_denied: write_package"}},
      {"ordering_compile_error_then_clang_tidy_warning.log",
       "compile_error",
       5,
       {"/opt/work/c10/core/Device.cpp", "42", "use of undeclared identifier 'kCUDA'"}},
      {"ordering_assertion_then_summary.log",
       "python_exception",
       8,
       {"AssertionError", "Tensor-likes are not close!"}},
      {"abort.log", "abort", 5, {"Aborted"}},
      {"actionlint.log",
       "actionlint",
       4,
       {".github/workflows/pull.yml", "42",
        "property \"runner\" is not defined in object type {arch: string; os: string}", "expression"}},
      {"artifact_error.log", "artifact_error", 7, {"dist/"}},
      {"aws_credentials.log", "aws_credentials", 6, {"Could not load credentials from any providers"}},
      {"bazel_error.log",
       "bazel_error",
       6,
       {"/home/runner/work/pytorch/pytorch/BUILD.bazel:1123:11",
        "Compiling c10/core/Device.cpp failed: (Exit 1): gcc failed: error executing command /usr/bin/gcc -c "
        "c10/core/Device.cpp"}},
      {"build_step_failed.log", "build_step_failed", 6, {"[Makefile:20: html] Error 2"}},
      {"bus_error.log", "bus_error", 8, {"Fatal Python error: Bus error"}},
      {"clang_tidy.log",
       "clang_tidy",
       5,
       {"torch/csrc/jit/ir/ir.cpp", "1234", "use of a signed integer operand with a binary bitwise operator",
        "hicpp-signed-bitwise"}},
      {"compile_error.log",
       "compile_error",
       7,
       {"/opt/work/aten/src/ATen/native/Loss.cpp", "321",
        "'reduce_mean' was not declared in this scope; did you mean 'reduce_sum'?"}},
      {"context_xtrace.log", "pytest_failure", 7, {"test/test_basic.py::test_zeros", "AssertionError"}},
      {"ctest_failure.log", "ctest_failure", 6, {"kernels_test", "Failed"}},
      {"cuda_error.log", "cuda_error", 5, {"device-side assert triggered"}},
      {"cuda_illegal_address.log",
       "cuda_illegal_address",
       7,
       {"CUDA error: an illegal memory access was encountered"}},
      {"cuda_no_kernel_image.log",
       "cuda_no_kernel_image",
       4,
       {"CUDA error: no kernel image is available for execution on the device"}},
      {"cuda_out_of_memory.log", "cuda_out_of_memory", 4, {"20.00 GiB"}},
      {"curl_error.log",
       "curl_error",
       5,
       {"28",
        "Failed to connect to example-artifacts.s3.amazonaws.com port 443 after 5001 ms: Timeout was "
        "reached"}},
      {"dependency_resolution.log", "dependency_resolution", 11, {"ResolutionImpossible"}},
      {"dirty_checkout.log", "dirty_checkout", 7, {"Build left local git repository checkout dirty"}},
      {"disk_full.log", "disk_full", 6, {"No space left on device"}},
      {"docker_error.log",
       "docker_error",
       5,
       {"manifest for 308535385114.dkr.ecr.us-east-1.amazonaws.com/pytorch/manylinux-builder:cuda12.4-abc123 "
        "not found: manifest unknown: Requested image not found"}},
      {"gha_error.log",
       "gha_error",
       6,
       {"The version '3.14' with architecture 'x64' was not found for Ubuntu 24.04."}},
      {"artifact_error_download.log", "artifact_error", 3, {"wheel-linux-cuda12.4-py3.11"}},
      {"git_fetch_error.log", "git_fetch_error", 3, {"fatal: early EOF"}},
      {"git_missing_ref.log", "git_missing_ref", 5, {"release/9.9"}},
      {"gtest_failure.log", "gtest_failure", 18, {"TensorShape.Reshape"}},
      {"job_cancelled.log", "job_cancelled", 6, {"##[error]The operation was canceled"}},
      {"job_timeout.log", "job_timeout", 4, {"240"}},
      {"keyboard_interrupt.log", "keyboard_interrupt", 11, {"KeyboardInterrupt"}},
      {"linker_error.log", "linker_error", 5, {"1"}},
      {"lintrunner_error.log", "lintrunner_error", 5, {"FLAKE8", "E501"}},
      {"msvc_compile_error.log",
       "msvc_compile_error",
       6,
       {"C:\\actions-runner\\_work\\pytorch\\pytorch\\aten\\src\\ATen\\native\\Reduce.cpp", "87", "C2065",
        "'reduce_mean': undeclared identifier"}},
      {"msvc_link_error.log",
       "msvc_link_error",
       5,
       {"Reduce.cpp.obj", "LNK2019",
        "unresolved external symbol \"void __cdecl at::native::reduce_mean(void)\" referenced in function "
        "\"void __cdecl at::native::sum(void)\""}},
      {"mypy_error.log",
       "mypy_error",
       4,
       {"torch/_inductor/lowering.py", "412",
        "Argument 1 to \"add\" has incompatible type \"str\"; expected \"int\"", "arg-type"}},
      {"nccl_error.log",
       "nccl_error",
       6,
       {"ncclSystemError",
        "System call (e.g. socket, malloc) or external library call failed or device error."}},
      {"nvcc_compile_error.log",
       "nvcc_compile_error",
       5,
       {"/opt/work/csrc/softmax.cu", "142", "identifier \"warp_reduce_max\" is undefined"}},
      {"oom_kill.log", "oom_kill", 5, {"cc1plus"}},
      {"ordering_epilogue_ignored.log",
       "gha_error",
       3,
       {"Unable to resolve action `pytorch/test-infra@v9`, unable to find version `v9`"}},
      {"ordering_failure_then_cancel.log",
       "pytest_failure",
       7,
       {"test/test_ops.py::TestCommonCPU::test_mul_cpu_float32",
        "AssertionError: Tensor-likes are not close!"}},
      {"ordering_pytest_then_gha_error.log",
       "pytest_failure",
       3,
       {"test/test_nn.py::TestNN::test_conv2d", "AssertionError: Scalars are not close!"}},
      {"ordering_signal_summary.log", "test_run_summary", 8, {"test_ops", "SIGSEGV"}},
      {"ordering_syntax_error_then_summary.log",
       "python_exception",
       11,
       {"SyntaxError", "'(' was never closed"}},
      {"ordering_two_gtest_failures.log", "gtest_failure", 7, {"Ops.Mul"}},
      {"package_download_error.log",
       "package_download_error",
       8,
       {"http://archive.ubuntu.com/ubuntu/pool/main/o/openblas/libopenblas-dev_0.3.20+ds-1_amd64.deb"}},
      {"pip_network_error.log", "pip_network_error", 3, {"pypi.org", "Read timed out"}},
      {"pip_wheel_build_failed.log", "pip_wheel_build_failed", 9, {"flash-attn"}},
      {"pytest_error.log",
       "pytest_error",
       10,
       {"test/distributed/test_store.py", "ModuleNotFoundError: No module named 'expecttest'"}},
      {"pytest_failure.log",
       "pytest_failure",
       15,
       {"test/test_ops.py::TestCommonCPU::test_matmul_cpu_float32",
        "AssertionError: Tensor-likes are not close!"}},
      {"pytest_failure_duration.log",
       "pytest_failure",
       9,
       {"test/test_ops.py::TestCommonCPU::test_mul_cpu_float32",
        "AssertionError: Tensor-likes are not close!"}},
      {"pytest_subtest_failure.log",
       "pytest_subtest_failure",
       7,
       {"test/test_ops.py::TestCommonCPU::test_out_cpu_float32", "(op='add')",
        "AssertionError: Scalars are not equal!"}},
      {"python_exception.log",
       "python_exception",
       7,
       {"FileNotFoundError",
        "[Errno 2] No such file or directory: 'aten/src/ATen/native/native_functions.yaml'"}},
      {"python_lint.log",
       "python_lint",
       4,
       {"torch/nn/modules/linear.py", "12", "F401", "[*] `math` imported but unused"}},
      {"pytorch_test_timeout.log", "pytorch_test_timeout", 8, {"30"}},
      {"runner_lost.log", "runner_lost", 3, {"ci-gpu-a100-17"}},
      {"runner_pod_failure.log",
       "runner_pod_failure",
       5,
       {"Error: Pod linux-gpu-7x2kq-workflow is unhealthy with phase status Failed"}},
      {"sccache_block.log", "pytest_failure", 9, {"test/test_tool.py::test_cli", "assert 2 == 0"}},
      {"sccache_error.log",
       "sccache_error",
       5,
       {"Timed out waiting for server startup. Maybe the remote service is unreachable?"}},
      {"segfault.log", "segfault", 7, {"Segmentation fault"}},
      {"test_run_summary.log", "test_run_summary", 14, {"test_ops"}},
      {"test_timeout.log", "test_timeout", 6, {"900.0"}},
      {"undefined_reference.log",
       "undefined_reference",
       5,
       {"at::native::reduce_mean(at::Tensor const&, long)"}},
      {"unittest_failure.log", "unittest_failure", 7, {"test_backward_twice", "__main__.TestAutograd"}},
      {"unittest_failure_duration.log",
       "unittest_failure",
       7,
       {"test_backward_twice", "__main__.TestAutograd.test_backward_twice"}},
  };
  return table;
}

std::filesystem::path fixtures() {
  return std::filesystem::path(relforge::test::source_dir()) / "tests/fixtures/triage";
}

TEST(DefaultRulesTable, EveryFixtureLogIsInTheTable) {
  std::set<std::string> listed;
  for (const auto& c : cases()) listed.insert(c.fixture);
  std::size_t logs = 0;
  for (const auto& entry : std::filesystem::directory_iterator(fixtures())) {
    if (entry.path().extension() != ".log") continue;
    ++logs;
    EXPECT_TRUE(listed.count(entry.path().filename().string()))
        << entry.path().filename() << " has no expected rule and line in this table";
  }
  EXPECT_EQ(logs, cases().size());
}

TEST(DefaultRulesTable, EachFixtureGetsItsRuleLineAndCaptures) {
  auto rules = default_rules();
  ASSERT_TRUE(rules) << rules.error().describe();
  for (const auto& c : cases()) {
    auto result = classify_file(fixtures() / c.fixture, *rules);
    ASSERT_TRUE(result) << c.fixture << ": " << result.error().describe();
    ASSERT_TRUE(result->match.has_value()) << c.fixture << ": no rule matched";
    EXPECT_EQ(result->match->rule, c.rule) << c.fixture << " chose line: " << result->match->line;
    EXPECT_EQ(result->match->line_num, c.line_num) << c.fixture << ": " << result->match->line;
    EXPECT_EQ(result->match->captures, c.captures) << c.fixture;
  }
}

TEST(DefaultRulesTable, RunnerEpiloguesAndSummariesAreNeverTheAnswerWhenAnErrorIsAbove) {
  auto rules = default_rules();
  ASSERT_TRUE(rules);
  const std::string epilogue =
      "2025-01-02T03:04:09.1234567Z ##[error]Executing the custom container implementation failed. Please "
      "contact your self hosted runner administrator.\n"
      "2025-01-02T03:04:10.1234567Z ##[error]Final attempt failed. Child_process exited with error code 1\n"
      "2025-01-02T03:04:11.1234567Z ##[error]The process '/usr/bin/git' failed with exit code 128\n"
      "2025-01-02T03:04:12.1234567Z ##[error]Process completed with exit code 1.\n";
  auto only = classify(epilogue, *rules);
  EXPECT_FALSE(only.match.has_value()) << only.match->line;
  auto with_error = classify(
      "2025-01-02T03:04:05.1234567Z \x1b[31mAssertionError: Scalars are not equal!\x1b[0m\n"
      "2025-01-02T03:04:06.1234567Z RuntimeError: test_nn 2/3 failed!\n" +
          epilogue,
      *rules);
  ASSERT_TRUE(with_error.match.has_value());
  EXPECT_EQ(with_error.match->rule, "python_exception");
  EXPECT_EQ(with_error.match->line_num, 1u);
}

}  // namespace
}  // namespace relforge::triage
