// Generated from triage/default_rules.toml by triage/embed_default_rules.py; tests check the
// two stay equal.
#include "triage/rules.hpp"

namespace relforge::triage {

std::string_view default_rules_toml() {
  static constexpr std::string_view k_text =
      R"toml(# relforge's built-in log-classification rules (`relforge triage rules` prints this file).
# File order is priority: when several rules match a log, the one listed first wins, wherever its
# line is. Each rule keeps the LAST line it matched. Patterns are RE2 regexes (no backreferences,
# no lookaround); capture groups become the failure's captures (no groups: the whole match).
# `flaky = true` marks infrastructure failures that are not the change's fault.

[preprocess]
# Lines never chosen: runner epilogues that only say that a step failed, not why.
ignore = [
  '^##\[error\]Process completed with exit code \d+\.?$',
  '^##\[error\]Error: Process completed with exit code \d+\.?$',
  '^##\[error\]Executing the custom container implementation failed\.',
  '^##\[error\]Error: failed to run script step: command terminated with non-zero exit code',
  '''^##\[error\]The process '[^']+' failed with exit code \d+$''',
  '^##\[error\]Final attempt failed\. Child_process exited with error code \d+$',
  '^##\[error\]Child_process exited with error code \d+$',
  '^(?:ERROR|FAILED): Build did NOT complete successfully',
]

# The compiler-cache log (sccache/ccache stats) repeats old errors: skip it.
[[preprocess.skip_block]]
start = '^=+ sccache compilation log =+$'
end = '^=+ If your build fails, please take a look at the log above for possible reasons =+$'

[[rule]]
name = "runner_lost"
category = "infra"
flaky = true
pattern = '(?:The self-hosted runner: (\S+) lost communication with the server|The runner has received a shutdown signal|lost communication with the server)'

[[rule]]
name = "runner_pod_failure"
category = "infra"
flaky = true
pattern = '(?:[Pp]od failed to come online with error: (.*)|Pod (\S+) is unhealthy with phase status (\w+)|Error: Job pod failed to start)'

[[rule]]
name = "disk_full"
category = "infra"
pattern = '(No space left on device|You are running out of disk space)'

[[rule]]
name = "job_timeout"
category = "timeout"
pattern = '(?:has exceeded the maximum execution time of (\d+) minutes|The action .* has timed out after (\d+) minutes)'

[[rule]]
name = "oom_kill"
category = "resource"
pattern = '(?:Killed signal terminated program (\S+)|Out of memory: Killed process \d+ \(([^)]+)\)|line \d+: +\d+ Killed +(.+))'

[[rule]]
name = "pytorch_test_timeout"
category = "timeout"
pattern = 'Command took >(\d+) ?min, returning 124'

[[rule]]
name = "cuda_out_of_memory"
category = "cuda"
pattern = 'CUDA out of memory\. Tried to allocate ([0-9.]+ [KMGT]i?B)'

[[rule]]
name = "cuda_illegal_address"
category = "cuda"
pattern = '(CUDA error: an illegal memory access was encountered)'

[[rule]]
name = "cuda_no_kernel_image"
category = "cuda"
pattern = '(CUDA error: no kernel image is available for execution on the device)'

[[rule]]
name = "nccl_error"
category = "distributed"
pattern = '(?:NCCL error in: \S+, (.*)|(ncclInternalError|ncclSystemError|ncclUnhandledCudaError|ncclRemoteError)(?:: (.*))?|Watchdog caught collective operation timeout: (\S+))'

[[rule]]
name = "cuda_error"
category = "cuda"
pattern = '(?:CUDA error: (.+)|CUDA driver error: (.+)|cudaError\w*: (.+))'

[[rule]]
name = "clang_tidy"
category = "lint"
pattern = '^(\S+):(\d+):\d+: error: (.*) \[([a-z][\w.-]*?)(?:,-warnings-as-errors)?\]$'

[[rule]]
name = "nvcc_compile_error"
category = "compile"
pattern = '^(\S+\.cuh?)\((\d+)\): error: (.*)'

[[rule]]
name = "compile_error"
category = "compile"
pattern = '^(\S+\.(?:c|cc|cpp|cxx|h|hh|hpp|hxx|cu|cuh|m|mm)):(\d+):(?:\d+:)? (?:fatal )?error: (.*)'

[[rule]]
name = "msvc_compile_error"
category = "compile"
pattern = '^(\S+\.(?:c|cc|cpp|cxx|h|hpp|cu|cuh))\((\d+)(?:,\d+)?\): (?:fatal )?error (C\d{4}): (.*)'

[[rule]]
name = "msvc_link_error"
category = "link"
pattern = '^(\S+\.(?:obj|lib)(?:\(\S+\))?) : (?:fatal )?error (LNK\d{4}): (.*)'

[[rule]]
name = "undefined_reference"
category = "link"
pattern = '''(?:undefined reference to [`']([^']+)'|undefined symbol: (.+)|Undefined symbols for architecture (\S+):)'''

[[rule]]
name = "linker_error"
category = "link"
pattern = '(?:: cannot find (-l[\w.+-]+)|collect2: error: ld returned (\d+) exit status|^(?:/usr/bin/)?(?:ld|ld\.lld|ld\.gold|lld-link): error: (.*)|LINK : fatal error (LNK\d+): (.*))'

[[rule]]
name = "bazel_error"
category = "compile"
pattern = '^ERROR: (\S+:\d+:\d+): (.*)'

[[rule]]
name = "pip_wheel_build_failed"
category = "dependency"
pattern = '(?:ERROR: Failed building wheel for (\S+)|Building wheel for (\S+) \(pyproject\.toml\): finished with status .error.)'

[[rule]]
name = "pytest_failure"
category = "test"
pattern = '^FAILED (?:\[[0-9.]+m?s\] )?(\S+::\S+)(?: - (.*))?$'

[[rule]]
name = "pytest_subtest_failure"
category = "test"
pattern = '^SUBFAIL (?:\[[0-9.]+m?s\] )?(\S+::\S+)(?: (\(.*?\)))?(?: - (.*))?$'

[[rule]]
name = "pytest_error"
category = "test"
pattern = '^ERROR (\S+\.py(?:::\S+)?)(?: - (.*))?$'

[[rule]]
name = "unittest_failure"
category = "test"
pattern = '^(?:FAIL|ERROR)(?: \[[0-9.]+m?s\])?: (\w+) \(([\w.]+)\)'

[[rule]]
name = "gtest_failure"
category = "test"
pattern = '^\[  FAILED  \] ([A-Za-z_][\w/]*\.[\w/]+)'

[[rule]]
name = "ctest_failure"
category = "test"
pattern = '^\s*\d+/\d+ Test +#\d+: (\S+) \.+\*+(Failed|Timeout|Exception: \S+)'

[[rule]]
name = "test_timeout"
category = "timeout"
pattern = '(?:Failed: Timeout >([0-9.]+)s|\+{5,} Timeout \+{5,}|Command timed out after (.+))'

[[rule]]
name = "segfault"
category = "crash"
pattern = '(Segmentation fault|SIGSEGV|Fatal Python error: Segmentation fault)'

[[rule]]
name = "bus_error"
category = "crash"
pattern = '(Bus error|SIGBUS|Fatal Python error: Bus error)'

[[rule]]
name = "abort"
category = "crash"
pattern = '''(?:terminate called after throwing an instance of '([^']+)'|(Aborted) +\(core dumped\)|(SIGABRT)|Fatal Python error: (Aborted))'''

[[rule]]
name = "sccache_error"
category = "infra"
flaky = true
pattern = '^sccache: error: (.*)'

[[rule]]
name = "aws_credentials"
category = "credentials"
pattern = '(?:(Could not load credentials from any providers)|(Unable to locate credentials)|An error occurred \((ExpiredToken|InvalidClientTokenId|UnrecognizedClientException|AccessDenied)\)|Not authorized to perform (sts:AssumeRole\w*))'

[[rule]]
name = "docker_error"
category = "docker"
pattern = '(?:Error response from daemon: (.*)|^(?:unauthorized|denied): (.*)|(Cannot perform an interactive login from a non TTY device)|^failed to push (\S+)|(Docker pull failed with exit code \d+))'

[[rule]]
name = "git_missing_ref"
category = "checkout"
pattern = '''(?:error: pathspec '([^']+)' did not match any file\(s\) known to git|fatal: reference is not a tree: (\S+)|fatal: couldn't find remote ref (\S+)|not our ref (\S+)|A branch or tag with the name '([^']+)' could not be found)'''

[[rule]]
name = "dirty_checkout"
category = "checkout"
pattern = '(Build left local git repository checkout dirty)'

[[rule]]
name = "pip_network_error"
category = "network"
flaky = true
pattern = '''(?:HTTPSConnectionPool\(host='([^']+)', port=\d+\): (Read timed out|Max retries exceeded)|(Temporary failure in name resolution)|(Connection reset by peer)|connection broken by '(\w+)')'''

[[rule]]
name = "curl_error"
category = "network"
flaky = true
pattern = '^curl: \((\d+)\) (.*)'

[[rule]]
name = "git_fetch_error"
category = "network"
flaky = true
pattern = '''(?:fatal: unable to access '([^']+)': (.*)|error: RPC failed; (.*)|fatal: the remote end hung up unexpectedly|fatal: early EOF)'''

[[rule]]
name = "package_download_error"
category = "network"
flaky = true
pattern = '''(?:^E: Failed to fetch (\S+)|^E: (Unable to fetch some archives)|Failed to download metadata for repo '([^']+)'|Cannot find a valid baseurl for repo: (\S+)|^error: Failed to download `([^`]+)`|^error: Failed to fetch: `([^`]+)`)'''

[[rule]]
name = "artifact_error"
category = "artifact"
pattern = '(?:No files were found with the provided path: (.*?)\. No artifacts will be uploaded|Failed to CreateArtifact: (.*)|Create Artifact Container failed: (.*)|(An artifact with the same name already exists)|(Unable to find any artifacts for the associated workflow)|Unable to download artifact\(s\): (?:Artifact not found for name: )?(.*))'

[[rule]]
name = "dependency_resolution"
category = "dependency"
pattern = '(?:Could not find a version that satisfies the requirement (\S+)|No matching distribution found for (\S+)|(ResolutionImpossible)|Cannot install (.+) because these package versions have conflicting dependencies|(LibMambaUnsatisfiableError|PackagesNotFoundError|UnsatisfiableError))'

[[rule]]
name = "mypy_error"
category = "lint"
pattern = '^(\S+\.pyi?):(\d+)(?::\d+)?: error: (.*?)(?:  \[([\w-]+)\])?$'

[[rule]]
name = "python_lint"
category = "lint"
pattern = '^(\S+\.pyi?):(\d+):\d+: ([A-Z]{1,4}\d{2,4}) (.*)'

[[rule]]
name = "actionlint"
category = "lint"
pattern = '^(\.github/\S+\.ya?ml):(\d+):\d+: (.*) \[([\w-]+)\]$'

[[rule]]
name = "lintrunner_error"
category = "lint"
pattern = '^\s*Error \(([A-Z0-9_]+)\) (.+)$'

[[rule]]
name = "python_exception"
category = "generic"
pattern = '^(\w+(?:\.\w+)*(?:Error|Exception)): (.+)'

[[rule]]
name = "build_step_failed"
category = "compile"
pattern = '(?:^FAILED: (\S+)|^(?:g?make)(?:\[\d+\])?: \*\*\* (.*)|^ninja: build stopped: (.*))'

[[rule]]
name = "keyboard_interrupt"
category = "interrupted"
pattern = '^(KeyboardInterrupt)\b'

# Summary lines only repeat that tests failed. `summary = true` keeps every other rule off them (no
# python_exception match), so any specific error above them wins; they win only when nothing
# more specific matched.
[[rule]]
name = "test_run_summary"
category = "test"
summary = true
pattern = '^RuntimeError: (\S+)(?: \d+/\d+)? failed!(?: Received signal: (\S+))?'

# Cancellation explains a job only when nothing else did (fail-fast, a newer push).
[[rule]]
name = "job_cancelled"
category = "cancelled"
pattern = '^##\[error\]The (?:operation|job) was (?:canceled|cancelled)\b'

[[rule]]
name = "gha_error"
category = "generic"
pattern = '^##\[error\](.*)'
)toml";
  return k_text;
}

}  // namespace relforge::triage
