// Runs one command and prints "WALL_S CPU_S RSS_MB": the wall clock (monotonic, from fork to the
// reaped exit), the CPU of the process and the children it waited for (wait4's rusage, to the
// microsecond: GNU time prints centiseconds, an eighth of an 80 ms run) and its peak RSS. A small
// process of its own forks it, so the child starts with next to no memory to inherit (a Python
// parent added ~2 ms and its own 10 MB to every figure).
// usage: measure OUT_FILE ERR_FILE COMMAND...   stdout to OUT_FILE, stderr to ERR_FILE, stdin from
// $BENCH_IN when set (else /dev/null); the exit status is the command's.
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>

namespace {

double seconds(const timespec& t) {
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) / 1e9;
}
double seconds(const timeval& t) {
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6;
}

int open_or_die(const char* path, int flags) {
  const int fd = ::open(path, flags | O_CLOEXEC, 0644);
  if (fd < 0) {
    std::fprintf(stderr, "measure: cannot open %s: %s\n", path, std::strerror(errno));
    std::exit(126);
  }
  return fd;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: measure OUT_FILE ERR_FILE COMMAND...\n");
    return 2;
  }
  const char* in_path = std::getenv("BENCH_IN");
  const int in = open_or_die(in_path != nullptr && *in_path != '\0' ? in_path : "/dev/null", O_RDONLY);
  const int out = open_or_die(argv[1], O_WRONLY | O_CREAT | O_TRUNC);
  const int err = open_or_die(argv[2], O_WRONLY | O_CREAT | O_TRUNC);
  timespec start{}, end{};
  ::clock_gettime(CLOCK_MONOTONIC, &start);
  const pid_t pid = ::fork();
  if (pid < 0) {
    std::fprintf(stderr, "measure: fork: %s\n", std::strerror(errno));
    return 126;
  }
  if (pid == 0) {
    ::dup2(in, 0);
    ::dup2(out, 1);
    ::dup2(err, 2);
    ::execvp(argv[3], argv + 3);
    std::fprintf(stderr, "measure: cannot run %s: %s\n", argv[3], std::strerror(errno));
    ::_exit(127);
  }
  int status = 0;
  rusage usage{};
  while (::wait4(pid, &status, 0, &usage) < 0) {
    if (errno != EINTR) {
      std::fprintf(stderr, "measure: wait4: %s\n", std::strerror(errno));
      return 126;
    }
  }
  ::clock_gettime(CLOCK_MONOTONIC, &end);
  std::printf("%.6f %.6f %.1f\n", seconds(end) - seconds(start),
              seconds(usage.ru_utime) + seconds(usage.ru_stime),
              static_cast<double>(usage.ru_maxrss) / 1024.0);
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return 128 + WTERMSIG(status);
}
