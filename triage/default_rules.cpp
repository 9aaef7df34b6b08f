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
# Lines never chosen: they only say that a step failed, not why.
ignore = [
  '^##\[error\]Process completed with exit code \d+\.?$',
  '^##\[error\]The operation was canceled\.$',
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
name = "nvcc_compile_error"
category = "compile"
pattern = '^(\S+\.cuh?)\((\d+)\): error: (.*)'

[[rule]]
name = "compile_error"
category = "compile"
pattern = '^(\S+\.(?:c|cc|cpp|cxx|h|hh|hpp|hxx|cu|cuh|m|mm)):(\d+):(?:\d+:)? (?:fatal )?error: (.*)'

[[rule]]
name = "undefined_reference"
category = "link"
pattern = '''(?:undefined reference to [`']([^']+)'|undefined symbol: (.+)|Undefined symbols for architecture (\S+):)'''

[[rule]]
name = "linker_error"
category = "link"
pattern = '(?:: cannot find (-l[\w.+-]+)|collect2: error: ld returned (\d+) exit status|^(?:/usr/bin/)?(?:ld|ld\.lld|ld\.gold|lld-link): error: (.*)|LINK : fatal error (LNK\d+): (.*))'

[[rule]]
name = "pytest_failure"
category = "test"
pattern = '^FAILED (\S+::\S+)(?: - (.*))?$'

[[rule]]
name = "pytest_error"
category = "test"
pattern = '^ERROR (\S+\.py(?:::\S+)?)(?: - (.*))?$'

[[rule]]
name = "unittest_failure"
category = "test"
pattern = '^(?:FAIL|ERROR): (\w+) \(([\w.]+)\)'

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
name = "abort"
category = "crash"
pattern = '''(?:terminate called after throwing an instance of '([^']+)'|(Aborted) +\(core dumped\)|(SIGABRT)|Fatal Python error: (Aborted))'''

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
name = "dependency_resolution"
category = "dependency"
pattern = '(?:Could not find a version that satisfies the requirement (\S+)|No matching distribution found for (\S+)|(ResolutionImpossible)|Cannot install (.+) because these package versions have conflicting dependencies|(LibMambaUnsatisfiableError|PackagesNotFoundError|UnsatisfiableError))'

[[rule]]
name = "python_exception"
category = "generic"
pattern = '^(\w+(?:\.\w+)*(?:Error|Exception)): (.+)'

[[rule]]
name = "build_step_failed"
category = "compile"
pattern = '(?:^FAILED: (\S+)|^(?:g?make)(?:\[\d+\])?: \*\*\* (.*)|^ninja: build stopped: (.*))'

[[rule]]
name = "gha_error"
category = "generic"
pattern = '^##\[error\](.*)'
)toml";
  return k_text;
}

}  // namespace relforge::triage
