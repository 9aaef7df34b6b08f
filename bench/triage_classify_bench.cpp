// Log classification throughput on a generated log of real-looking GitHub Actions lines (every line
// with its timestamp prefix; checkout, pip progress bars, a ninja build with GCC's coloured warnings,
// pytest in colour with long progress lines; the failure at the end), classified by the real
// `relforge triage classify` with the built-in rules, against ripgrep (`rg --no-unicode -c -f
// patterns`) and GNU `grep -E -c -f patterns` (LC_ALL=C) over the same file and the same
// patterns, each pinned to one core, in the same run. rg runs without Unicode classes: they are
// what RE2's \w \d \s mean anyway, and with them rg crawls (under 1 MB/s) over the progress bars'
// box-drawing characters.
// Usage: triage_classify_bench [path/to/relforge] [--mb N] (default 1024 MB) [--write-log FILE].
// Reports MB/s, the ratios to rg and grep by CPU time, and relforge's peak RSS.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/report.hpp"

namespace bench = relforge::bench;

namespace {

namespace fs = std::filesystem;

struct Timed {
  int status = -1;
  double seconds = 0;
  double cpu_seconds = 0;  // user + system: robust when other jobs share the machine
  double max_rss_mb = 0;
};

// Runs argv with stdout to `out_path`, pinned to CPU 0 when taskset exists.
Timed run(std::vector<std::string> argv, const std::string& out_path) {
  if (fs::exists("/usr/bin/taskset")) argv.insert(argv.begin(), {"/usr/bin/taskset", "-c", "0"});
  std::cout.flush();  // the child must not inherit (and repeat) buffered output
  const auto start = std::chrono::steady_clock::now();
  const pid_t pid = fork();
  if (pid == 0) {
    if (std::freopen(out_path.c_str(), "w", stdout) == nullptr) _exit(127);
    std::vector<char*> args;
    for (auto& arg : argv) args.push_back(arg.data());
    args.push_back(nullptr);
    execvp(args[0], args.data());
    _exit(127);
  }
  Timed timed;
  struct rusage usage {};
  wait4(pid, &timed.status, 0, &usage);
  timed.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  timed.max_rss_mb = static_cast<double>(usage.ru_maxrss) / 1024.0;
  const auto seconds = [](const timeval& t) {
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6;
  };
  timed.cpu_seconds = seconds(usage.ru_utime) + seconds(usage.ru_stime);
  return timed;
}

std::string slurp(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

// RE2/Rust syntax → POSIX ERE as GNU grep reads it: no (?:...), no \d, no \w inside brackets.
std::string to_ere(const std::string& pattern) {
  std::string out;
  bool in_class = false;
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    const char c = pattern[i];
    if (!in_class && pattern.compare(i, 3, "(?:") == 0) {
      out += '(';
      i += 2;
    } else if (c == '\\' && i + 1 < pattern.size()) {
      const char next = pattern[++i];
      if (next == 'd')
        out += in_class ? "0-9" : "[0-9]";
      else if (next == 'w' && in_class)
        out += "[:alnum:]_";
      else if (next == 'S' && in_class)
        out += "^[:space:]";
      else
        out += std::string{'\\', next};
    } else {
      if (c == '[' && !in_class)
        in_class = true;
      else if (c == ']' && in_class && out.back() != '[' && out.back() != '^')
        in_class = false;
      out += c;
    }
  }
  return out;
}

// A deterministic generator (the same log on every run and machine).
struct Lcg {
  std::uint64_t state = 0x9e3779b97f4a7c15ULL;
  std::uint32_t next() {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<std::uint32_t>(state >> 33);
  }
  std::size_t below(std::size_t n) { return next() % n; }
};

// Jobs of a PyTorch-like CI run one after another: checkout and docker pull, pip installs with
// rich progress bars (ANSI and box-drawing characters), a ninja build with GCC's coloured
// warnings, then pytest in colour (verbose lines and long dot-progress lines), xtrace here and
// there. Every line has the GitHub Actions timestamp prefix. Only the last job fails, at its end.
class CiLog {
public:
  explicit CiLog(std::string& out) : m_out(out) {}

  void job(bool fails) {
    line("##[group]Run actions/checkout@v4");
    line("with:");
    line("  repository: pytorch/pytorch");
    line("##[endgroup]");
    line(
        "\x1b[36;1mgit -c protocol.version=2 fetch --no-tags --prune --no-recurse-submodules --depth=1 "
        "origin "
        "+" +
        hex(40) + ":refs/remotes/pull/" + std::to_string(m_rng.below(150000)) + "/merge\x1b[0m");
    for (int i = 0; i < 12; ++i) line(hex(12) + ": Pull complete");
    line("+ pip install -r requirements.txt");
    for (int i = 0; i < 60; ++i) pip();
    line("+ python setup.py develop");
    const std::size_t targets = 7302;
    for (std::size_t i = 1; i <= 2400; ++i) build(i * 3, targets);
    line("+ python test/run_test.py --shard 1 4 --verbose --keep-going");
    for (int file = 0; file < 12; ++file) tests(file);
    if (fails) failure();
  }

private:
  std::string& m_out;
  Lcg m_rng;
  std::uint64_t m_tick = 0;

  std::string hex(std::size_t n) {
    static constexpr char k_digits[] = "0123456789abcdef";
    std::string text;
    for (std::size_t i = 0; i < n; ++i) text += k_digits[m_rng.below(16)];
    return text;
  }
  std::string pick(std::initializer_list<const char*> items) {
    return *(items.begin() + m_rng.below(items.size()));
  }
  void line(const std::string& text) {
    ++m_tick;
    char stamp[40];
    std::snprintf(stamp, sizeof stamp, "2026-11-30T%02u:%02u:%02u.%07uZ ",
                  static_cast<unsigned>(m_tick / 3600000 % 24), static_cast<unsigned>(m_tick / 60000 % 60),
                  static_cast<unsigned>(m_tick / 1000 % 60), static_cast<unsigned>(m_tick * 7919 % 10000000));
    m_out += stamp;
    m_out += text;
    m_out += '\n';
  }

  void pip() {
    const std::string package = pick({"numpy", "sympy", "networkx", "jinja2", "fsspec", "filelock",
                                      "typing_extensions", "expecttest", "hypothesis", "pytest-xdist"});
    const std::string mb = std::to_string(1 + m_rng.below(40)) + "." + std::to_string(m_rng.below(10));
    line("Collecting " + package + "==" + std::to_string(1 + m_rng.below(3)) + "." +
         std::to_string(m_rng.below(30)) + ".0");
    line("  Downloading https://files.pythonhosted.org/packages/" + hex(2) + "/" + hex(2) + "/" + hex(60) +
         "/" + package + "-2.1.3-cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64.whl (" + mb + " MB)");
    std::string bar;
    for (int i = 0; i < 40; ++i) bar += "\xe2\x94\x81";  // U+2501, rich's progress bar
    line("     \x1b[38;2;114;156;31m" + bar + "\x1b[0m \x1b[32m" + mb + "/" + mb + " MB\x1b[0m \x1b[31m" +
         std::to_string(20 + m_rng.below(200)) + ".4 MB/s\x1b[0m eta \x1b[36m0:00:00\x1b[0m");
    if (m_rng.below(2) == 0)
      line("Requirement already satisfied: " + package + " in /opt/conda/lib/python3.11/site-packages");
  }

  void build(std::size_t step, std::size_t targets) {
    const std::string file =
        pick({"BinaryOpsKernel", "UnaryOpsKernel", "ReduceOpsKernel", "Activation", "Loss", "Convolution",
              "TensorFactories", "Sorting", "IndexKernel", "Distributions"});
    line("[" + std::to_string(step) + "/" + std::to_string(targets) +
         "] Building CXX object caffe2/CMakeFiles/torch_cpu.dir/__/aten/src/ATen/native/cpu/" + file +
         ".cpp.DEFAULT.cpp.o");
    if (m_rng.below(10) == 0) {  // GCC's coloured warning with its source excerpt
      const std::string where = "/var/lib/jenkins/pytorch/aten/src/ATen/native/cpu/" + file +
                                ".cpp:" + std::to_string(10 + m_rng.below(900)) + ":" +
                                std::to_string(1 + m_rng.below(40));
      line("\x1b[01m\x1b[K" + where +
           ":\x1b[m\x1b[K \x1b[01;35m\x1b[Kwarning: \x1b[m\x1b[Kunused variable "
           "'\x1b[01m\x1b[Kacc\x1b[m\x1b[K' [\x1b[01;35m\x1b[K-Wunused-variable\x1b[m\x1b[K]");
      line("  321 |   auto acc = at::vec::Vectorized<scalar_t>(0);");
      line("      |        \x1b[01;35m\x1b[K^~~\x1b[m\x1b[K");
    }
    if (m_rng.below(40) == 0)
      line("[" + std::to_string(step + 1) + "/" + std::to_string(targets) +
           "] /usr/bin/c++ -DAT_PER_OPERATOR_HEADERS -DUSE_C10D_GLOO -Werror=return-type "
           "-Werror=non-virtual-dtor "
           "-Wno-error=deprecated-declarations -O3 -DNDEBUG -fPIC -c "
           "/var/lib/jenkins/pytorch/aten/src/ATen/native/cpu/" +
           file + ".cpp");
  }

  void tests(int file) {
    const std::string module = pick({"test_ops", "test_nn", "test_torch", "test_autograd", "test_linalg",
                                     "test_binary_ufuncs", "test_reductions", "test_indexing"});
    line("Running " + module + " 1/1 ... [2026-11-30 12:34:56.123456]");
    line("Executing ['/opt/conda/envs/py_3.11/bin/python', '-bb', '" + module +
         ".py', '-v', '--use-pytest', '-x', '--rerun-disabled-tests'] ... [2026-11-30 12:34:56.123456]");
    line("\x1b[1m============================= test session starts ==============================\x1b[0m");
    line(
        "platform linux -- Python 3.11.10, pytest-7.3.2, pluggy-1.5.0 -- /opt/conda/envs/py_3.11/bin/python");
    for (int i = 0; i < 1500; ++i) {
      const std::string op = pick({"abs", "add", "mul", "matmul", "softmax", "conv2d", "addmm", "where",
                                   "index_put", "scatter_reduce", "nan_to_num", "logsumexp"});
      const std::string dtype = pick({"float32", "float64", "bfloat16", "complex64", "int64", "bool"});
      const std::string name = module + ".py::TestCommonCPU::test_python_ref__refs_" + op + "_cpu_" + dtype;
      const std::size_t kind = m_rng.below(100);
      const std::string percent = "[" + std::to_string(i * 100 / 1500) + "%]";
      if (kind < 75)
        line(name + " \x1b[32mPASSED\x1b[0m\x1b[32m [0.0" + std::to_string(m_rng.below(900)) +
             "s]\x1b[0m\x1b[32m " + percent + "\x1b[0m");
      else if (kind < 88)
        line(name + " \x1b[33mSKIPPED\x1b[0m\x1b[33m [0.0011s] (Skipped! Operation does not support " +
             dtype + ")\x1b[0m\x1b[33m " + percent + "\x1b[0m");
      else if (kind < 91)
        line(name +
             " \x1b[33mXFAIL\x1b[0m\x1b[33m [0.0042s] (reference result was farther (0.1) from the precise "
             "computation than the torch result) " +
             percent + "\x1b[0m");
      else if (kind < 96)  // pytest without -v: a long line of progress dots
        line(module + ".py " + std::string(60 + m_rng.below(160), '.') + "s" + std::string(40, '.') + " " +
             percent);
      else if (kind < 98)
        line(module + ".py::TestCommonCPU::test_errors_ValueError_cpu_" + dtype + " \x1b[32mPASSED\x1b[0m " +
             percent);
      else
        line("+ python -c 'import torch; print(torch.__config__.show())'");
    }
    line(
        "\x1b[32m========== \x1b[32m\x1b[1m1402 passed\x1b[0m, \x1b[33m196 skipped\x1b[0m, \x1b[33m45 "
        "xfailed\x1b[0m\x1b[32m in 312.15s (0:05:12)\x1b[0m\x1b[32m ==========\x1b[0m");
    if (file % 4 == 3)
      line("The following tests were skipped on this shard: see test-reports/" + module + ".xml");
  }

  void failure() {
    line("Traceback (most recent call last):");
    line(
        "  File \"/var/lib/jenkins/pytorch/test/test_ops.py\", line 412, in "
        "test_python_ref__refs_mul_cpu_float32");
    line("    self.assertEqual(actual, expected)");
    line("AssertionError: Tensor-likes are not close!");
    line(
        "\x1b[31mFAILED\x1b[0m [0.2043s] test_ops.py::TestCommonCPU::test_python_ref__refs_mul_cpu_float32 - "
        "AssertionError: Tensor-likes are not close!");
    line(
        "\x1b[31m=================== \x1b[31m\x1b[1m1 failed\x1b[0m, \x1b[32m1401 passed\x1b[0m\x1b[31m in "
        "301.11s ===================\x1b[0m");
    line("Traceback (most recent call last):");
    line("  File \"/var/lib/jenkins/pytorch/test/run_test.py\", line 1981, in <module>");
    line("    raise RuntimeError(");
    line("RuntimeError: test_ops 1/1 failed!");
    line("##[error]Process completed with exit code 1.");
  }
};

void write_log(const fs::path& path, std::size_t megabytes) {
  std::ofstream out(path, std::ios::binary);
  std::string job;
  CiLog log(job);
  std::size_t written = 0;
  const std::size_t target = megabytes << 20;
  while (true) {
    job.clear();
    // A job is about 4 MB: the last one, the one that reaches the size, fails.
    const bool last = written + (5 << 20) >= target;
    log.job(last);
    out.write(job.data(), static_cast<std::streamsize>(job.size()));
    written += job.size();
    if (last) break;
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::string relforge = (fs::canonical("/proc/self/exe").parent_path().parent_path() / "relforge").string();
  std::size_t megabytes = 1024;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--mb" && i + 1 < argc) {
      megabytes = std::stoul(argv[++i]);
    } else if (arg == "--write-log" && i + 1 < argc) {  // the input alone, for profiling
      write_log(argv[++i], megabytes);
      return 0;
    } else if (arg.rfind("--", 0) != 0)
      relforge = arg;
  }
  const fs::path dir = fs::temp_directory_path() / ("relforge-triage-bench-" + std::to_string(getpid()));
  fs::create_directories(dir);
  if (run({relforge, "triage", "rules", "--json"}, (dir / "rules.json").string()).status != 0) {
    std::cerr << "triage_classify_bench: `" << relforge << " triage rules --json` failed\n";
    return 1;
  }
  const auto rules = nlohmann::json::parse(slurp(dir / "rules.json"));
  std::ofstream rg_patterns(dir / "patterns.rg"), ere_patterns(dir / "patterns.ere");
  for (const auto& rule : rules) {
    rg_patterns << rule["pattern"].get<std::string>() << '\n';
    ere_patterns << to_ere(rule["pattern"].get<std::string>()) << '\n';
  }
  rg_patterns.close();
  ere_patterns.close();
  const fs::path log = dir / "ci.log";
  write_log(log, megabytes);
  const double mb = static_cast<double>(fs::file_size(log)) / (1 << 20);
  run({"cat", log.string()}, "/dev/null");  // warm the page cache so every tool reads from memory

  std::cout << "log: " << static_cast<long>(mb) << " MB, " << rules.size() << " patterns (built-in rules)\n";
  std::cout << "MB/s by wall clock and by CPU time (user+sys; the fair figure on a shared machine)\n";
  const auto report = [mb](const std::string& label, const Timed& timed) {
    std::cout << label << mb / timed.seconds << " MB/s wall, " << mb / timed.cpu_seconds << " MB/s CPU (exit "
              << WEXITSTATUS(timed.status) << ", peak RSS " << timed.max_rss_mb << " MB)\n";
  };
  const auto ours =
      run({relforge, "triage", "classify", "--json", log.string()}, (dir / "ours.json").string());
  const auto result = nlohmann::json::parse(slurp(dir / "ours.json"));
  report("relforge triage classify: ", ours);
  std::cout << "  chose rule " << result[0]["rule"] << " at line " << result[0]["line_num"] << "\n";
  std::optional<Timed> rg;
  if (fs::exists("/usr/bin/rg")) {
    rg = run({"/usr/bin/rg", "--no-unicode", "-c", "-f", (dir / "patterns.rg").string(), log.string()},
             "/dev/null");
    report("rg --no-unicode -c -f patterns: ", *rg);
  } else {
    std::cout << "rg: not installed (apt-get install ripgrep)\n";
  }
  const auto grep = run(
      {"/usr/bin/env", "LC_ALL=C", "grep", "-E", "-c", "-f", (dir / "patterns.ere").string(), log.string()},
      "/dev/null");
  report("grep -E -c -f patterns:   ", grep);
  const std::string input =
      std::to_string(static_cast<long>(mb)) +
      " MB of real-looking GitHub Actions lines (timestamp on every line, ANSI colour, " +
      "pip/ninja/pytest progress, the failure at the end), " + std::to_string(rules.size()) +
      " built-in patterns, one core";
  const auto ours_side =
      bench::side("relforge triage classify", ours.seconds, ours.cpu_seconds, ours.max_rss_mb);
  if (rg) {
    bench::record({{"name", "triage classify vs rg"},
                   {"input", input},
                   {"ours", ours_side},
                   {"peer", bench::side("rg --no-unicode -c -f patterns", rg->seconds, rg->cpu_seconds,
                                        rg->max_rss_mb)},
                   {"target", bench::target("speedup_cpu", ">=", 1.5, ">= 1.5x rg by CPU time")}});
  }
  bench::record(
      {{"name", "triage classify vs grep"},
       {"input", input},
       {"ours", ours_side},
       {"peer", bench::side("grep -E -c -f patterns", grep.seconds, grep.cpu_seconds, grep.max_rss_mb)},
       {"target", {{"op", "report"}, {"text", "reported"}}}});
  bench::record({{"name", "triage classify peak RSS"},
                 {"input", input},
                 {"ours", ours_side},
                 {"target", bench::target("ours_rss_mb", "<", 100, "< 100 MB")}});
  fs::remove_all(dir);
  return ours.status == 0 ? 0 : 1;
}
