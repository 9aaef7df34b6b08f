// 100,000-cell matrix: a synthetic relforge.toml (10 x 10 x 10 x 100 axes with attributes,
// excludes and includes that keep the count at exactly 100,000, six derived fields with filters
// and `when` overrides), expanded by the real `relforge matrix expand` as a whole process, timed
// and measured for peak RSS (wait4). Then an in-process Google Benchmark of parse + expand().
// Usage: matrix_bench [path/to/relforge] [--benchmark_* flags]; matrix_bench --write-config FILE
// only writes the synthetic config. Targets: < 0.5 s and < 200 MB per run.
#include <benchmark/benchmark.h>

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "bench/report.hpp"
#include "matrix/config.hpp"
#include "matrix/expand.hpp"

namespace bench = relforge::bench;

namespace {

namespace fs = std::filesystem;

constexpr std::size_t k_expected_cells = 100'000;
constexpr double k_target_seconds = 0.5;
constexpr double k_target_megabytes = 200.0;

std::string values(const std::string& prefix, int count, const std::string& attributes) {
  std::string out = "values = [\n";
  for (int i = 0; i < count; ++i) {
    const std::string n = (count > 10 && i < 10 ? "0" : "") + std::to_string(i);
    out += "  { value = \"" + prefix + n + "\"" + attributes + ", index = " + std::to_string(i) + " },\n";
  }
  return out + "]\n";
}

// Each exclude removes exactly 10 cells and each new-combination include adds one back (10 in
// all), so the total stays 100,000 while every rule kind runs over every cell.
std::string synthetic_config() {
  std::ostringstream toml;
  toml << "[project]\nname = \"bench-runtime\"\n\n[matrix]\n"
       << "id = \"{os}-{python}-{accel}-{shard}\"\n"
       << "build_id = \"cp{python|nodot}-{platform_tag}-{accel}-{shard}\"\n\n"
       << "[matrix.vars]\nstable_version = \"2.13.0\"\nindex = \"https://download.example.org/whl\"\n\n"
       << "[[matrix.axis]]\nname = \"os\"\n"
       << values("os", 10, ", family = \"linux\", arch = \"x86_64\"")
       << "\n[[matrix.axis]]\nname = \"python\"\nkind = \"version\"\n"
       << "values = [\"3.10\", \"3.11\", \"3.12\", \"3.13\", \"3.14\", \"3.14t\", \"3.15\", \"3.15t\", "
          "\"3.16\", "
          "\"3.16t\"]\n"
       << "\n[[matrix.axis]]\nname = \"accel\"\n"
       << values("cu1", 10,
                 ", type = \"cuda\", version = \"12.6\", arch_list = \"7.5;8.0;8.6;9.0;10.0;12.0\"")
       << "\n[[matrix.axis]]\nname = \"shard\"\n"
       << values("s", 100, "") << R"(
[[matrix.exclude]]
os = "os0"
python = "3.10"
accel = "cu10"
shard = "s0?"

[[matrix.include]]
os = "os{1,3,5}"
"accel.type" = "cuda-aarch64"
runner = "linux.arm64.2xlarge"

[[matrix.include]]
python = ">=3.14"
accel = ["cu11", "cu12"]
runner = "linux.g5.4xlarge.nvidia.gpu"
)";
  for (int i = 0; i < 10; ++i) {
    toml << "\n[[matrix.include]]\nos = \"os-extra\"\npython = \"3.12\"\naccel = \"cu10\"\nshard = \"x" << i
         << "\"\nrunner = \"linux.2xlarge\"\n";
  }
  toml << R"(
[[matrix.field]]
name = "platform_tag"
template = "manylinux_2_28_{os.arch}"

[[matrix.field]]
name = "build_name"
template = "manywheel-py{python|underscore}-{accel.type}{accel.version|underscore}-{shard|upper}"

[[matrix.field]]
name = "container_image"
template = "pytorch/manylinux2_28-builder:{accel.type|lower}{accel.version}"

[[matrix.field]]
name = "installation"
template = "pip3 install --pre torch --index-url {index}/nightly/{accel}"

[[matrix.field]]
name = "installation"
template = "pip3 install torch=={stable_version} --index-url {index}/{accel}"
when = { channel = "release" }

[[matrix.field]]
name = "python_tag"
template = "cp{python|nodot}"

[[matrix.field]]
name = "artifact"
template = "{build_name|dash}-{os|upper}.{python_tag}"
when = { python = ">=3.11", "accel.type" = "cuda*" }

[matrix.emit]
fields = ["id", "python", "accel", "build_name", "container_image", "installation", "runner"]
)";
  return toml.str();
}

struct RunStats {
  double seconds = 0;
  double max_rss_mb = 0;
  int status = -1;
};

// Runs the binary with stdout sent to `out_path`, measuring wall time and the child's peak RSS.
RunStats run_process(const std::vector<std::string>& args, const std::string& out_path) {
  std::vector<char*> argv;
  for (const auto& arg : args) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  RunStats stats;
  const auto start = std::chrono::steady_clock::now();
  const pid_t pid = ::fork();
  if (pid == 0) {
    const int fd = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) ::dup2(fd, STDOUT_FILENO);
    const int null_fd = ::open("/dev/null", O_WRONLY);  // the github format's shard note
    if (null_fd >= 0) ::dup2(null_fd, STDERR_FILENO);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  int status = 0;
  struct rusage usage {};
  ::wait4(pid, &status, 0, &usage);
  stats.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  stats.max_rss_mb = static_cast<double>(usage.ru_maxrss) / 1024.0;  // Linux: kilobytes
  stats.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return stats;
}

std::size_t count_lines(const std::string& path) {
  std::ifstream in(path);
  return static_cast<std::size_t>(std::count(std::istreambuf_iterator<char>(in), {}, '\n'));
}

fs::path find_relforge(int argc, char** argv) {
  if (argc > 1 && argv[1][0] != '-') return argv[1];
  // build/<dir>/bench/matrix_bench -> build/<dir>/relforge
  return fs::read_symlink("/proc/self/exe").parent_path().parent_path() / "relforge";
}

// Whole-process runs of the real CLI; returns false when the output is wrong.
bool measure_cli(const fs::path& relforge, const fs::path& config) {
  const fs::path out =
      fs::temp_directory_path() / ("relforge-matrix-bench-" + std::to_string(::getpid()) + ".out");
  bool ok = true;
  for (const char* format : {"ids", "json", "github"}) {
    const std::vector<std::string> args = {relforge.string(), "matrix",   "expand", "--config",
                                           config.string(),   "--format", format};
    std::vector<RunStats> runs;
    for (int i = 0; i < 5; ++i) runs.push_back(run_process(args, i == 0 ? out.string() : "/dev/null"));
    if (runs[0].status != 0) {
      std::cerr << "relforge matrix expand --format " << format << " failed with exit " << runs[0].status
                << "\n";
      return false;
    }
    if (std::string(format) == "ids") {
      const std::size_t lines = count_lines(out);
      if (lines != k_expected_cells) {
        std::cerr << "expected " << k_expected_cells << " cells, got " << lines << "\n";
        ok = false;
      }
    }
    std::vector<double> times;
    double rss = 0;
    for (const auto& run : runs) {
      times.push_back(run.seconds);
      rss = std::max(rss, run.max_rss_mb);
    }
    std::sort(times.begin(), times.end());
    const double median = times[times.size() / 2];
    const std::string name = std::string("matrix expand --format ") + format + ", 100,000 cells";
    const std::string input =
        "a synthetic relforge.toml expanding to 100,000 cells, whole process, median of 5";
    bench::record({{"name", name},
                   {"input", input},
                   {"ours", bench::side("relforge matrix expand", median, -1, rss)},
                   {"target", bench::target("ours_wall_ms", "<", k_target_seconds * 1000, "< 0.5 s")}});
    bench::record({{"name", name + " peak RSS"},
                   {"input", input},
                   {"ours", bench::side("relforge matrix expand", median, -1, rss)},
                   {"target", bench::target("ours_rss_mb", "<", k_target_megabytes, "< 200 MB")}});
  }
  fs::remove(out);
  return ok;
}

std::string g_config_text;

void BM_ParseAndExpand(benchmark::State& state) {
  for (auto _ : state) {
    auto spec = relforge::matrix::parse_spec(g_config_text, "bench.toml");
    auto expansion = relforge::matrix::expand(*spec, "nightly");
    benchmark::DoNotOptimize(expansion->cells.data());
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * k_expected_cells));
}
BENCHMARK(BM_ParseAndExpand)->Unit(benchmark::kMillisecond);

}  // namespace

int main(int argc, char** argv) {
  g_config_text = synthetic_config();
  if (argc == 3 && std::string(argv[1]) == "--write-config") {
    std::ofstream(argv[2]) << g_config_text;
    return 0;
  }
  const fs::path relforge = find_relforge(argc, argv);
  const fs::path config =
      fs::temp_directory_path() / ("relforge-matrix-bench-" + std::to_string(::getpid()) + ".toml");
  std::ofstream(config) << g_config_text;
  bool ok = true;
  if (fs::exists(relforge)) {
    ok = measure_cli(relforge, config);
  } else {
    std::cerr << "relforge binary not found at " << relforge << " (pass its path as the first argument)\n";
    ok = false;
  }
  fs::remove(config);
  if (argc > 1 && argv[1][0] != '-') {
    --argc;
    ++argv;
    argv[0] = argv[-1];
  }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  return ok ? 0 : 1;
}
