// Log classification throughput: a synthetic GitHub Actions log (timestamps, ANSI colours, xtrace,
// build and test chatter, a few real failures) classified by the real `relforge triage classify`
// with the built-in rules, against ripgrep (`rg -c -f patterns`) and GNU `grep -E -c -f patterns`
// over the same file and the same patterns, each pinned to one core, in the same run.
// Usage: triage_classify_bench [path/to/relforge] [--mb N] (default 1024 MB) [--write-log FILE]. Reports
// MB/s, the ratios to rg and grep, and relforge's peak RSS (target: at least rg's speed, under 100 MB).
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
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

void write_log(const fs::path& path, std::size_t megabytes) {
  std::ofstream out(path, std::ios::binary);
  std::string block;
  std::size_t written = 0, line = 0;
  const std::size_t target = megabytes << 20;
  while (written < target) {
    block.clear();
    while (block.size() < (1 << 20)) {
      const std::string stamp = "2024-05-14T09:" + std::to_string(10 + line % 50) + ":" +
                                std::to_string(10 + line % 49) + ".1234567Z ";
      switch (line % 8) {
        case 0:
          block += stamp + "+ python -m pytest test/test_ops.py -k case_" + std::to_string(line) + "\n";
          break;
        case 1:
          block += stamp + "[" + std::to_string(line % 1890) +
                   "/1890] Building CXX object aten/src/ATen/CMakeFiles/"
                   "aten_cpu.dir/native/BinaryOps.cpp.o\n";
          break;
        case 2:
          block += stamp + "test/test_ops.py::TestCommonCPU::test_add_" + std::to_string(line) +
                   " \x1b[32mPASSED\x1b[0m [ 42%]\n";
          break;
        case 3:
          block += stamp +
                   "/opt/work/aten/src/ATen/native/Loss.cpp:321:17: warning: unused variable 'x' "
                   "[-Wunused-variable]\n";
          break;
        case 4:
          block +=
              stamp +
              "Downloading https://files.pythonhosted.org/packages/numpy-1.26.4-cp311-cp311-manylinux.whl "
              "(18.2 MB)\n";
          break;
        case 5:
          block += stamp + "  Running command git checkout -q 3f2a9c1d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a39\n";
          break;
        case 6:
          block += stamp + "E0514 09:20:11.123000 140 torch/distributed/run.py:833] worker " +
                   std::to_string(line % 8) + " ok\n";
          break;
        default:
          block += stamp + "\n";
          break;
      }
      if (line % 250000 == 17)
        block += stamp + "FAILED test/test_ops.py::TestCommonCPU::test_mm_" + std::to_string(line) +
                 " - AssertionError: x\n";
      ++line;
    }
    out.write(block.data(), static_cast<std::streamsize>(block.size()));
    written += block.size();
  }
  out << "2024-05-14T09:59:59.0000000Z ##[error]Process completed with exit code 1.\n";
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
    rg = run({"/usr/bin/rg", "-c", "-f", (dir / "patterns.rg").string(), log.string()}, "/dev/null");
    report("rg -c -f patterns:        ", *rg);
  } else {
    std::cout << "rg: not installed (apt-get install ripgrep)\n";
  }
  const auto grep = run(
      {"/usr/bin/env", "LC_ALL=C", "grep", "-E", "-c", "-f", (dir / "patterns.ere").string(), log.string()},
      "/dev/null");
  report("grep -E -c -f patterns:   ", grep);
  const std::string input = std::to_string(static_cast<long>(mb)) +
                            " MB GitHub Actions log (timestamps, ANSI, " +
                            "pytest/ninja/pip chatter, failures near the end), " +
                            std::to_string(rules.size()) + " built-in patterns, one core";
  const auto ours_side =
      bench::side("relforge triage classify", ours.seconds, ours.cpu_seconds, ours.max_rss_mb);
  if (rg) {
    bench::record({{"name", "triage classify vs rg"},
                   {"input", input},
                   {"ours", ours_side},
                   {"peer", bench::side("rg -c -f patterns", rg->seconds, rg->cpu_seconds, rg->max_rss_mb)},
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
