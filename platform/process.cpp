#include "platform/process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "core/text.hpp"
#include "platform/fs.hpp"
#include "platform/unique_fd.hpp"

extern char** environ;

namespace relforge::platform {
namespace {

using Clock = std::chrono::steady_clock;

std::string errno_text(int error) {
  return std::strerror(error);
}

// Closes on scope exit so that every early return releases the descriptors.
bool make_pipe(UniqueFd& read_end, UniqueFd& write_end) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return false;
  read_end.reset(fds[0]);
  write_end.reset(fds[1]);
  return true;
}

std::optional<std::filesystem::path> search_path(const std::string& program, const std::string& path_value) {
  for (const auto& dir : core::split(path_value, ':')) {
    const std::filesystem::path candidate = std::filesystem::path(dir.empty() ? "." : dir) / program;
    if (is_executable_file(candidate)) return candidate;
  }
  return std::nullopt;
}

std::vector<std::string> build_environment(const ProcessSpec& spec) {
  std::map<std::string, std::string> merged;
  if (spec.environment_mode == EnvironmentMode::inherit) {
    for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
      const std::string_view text(*entry);
      const auto eq = text.find('=');
      if (eq == std::string_view::npos) continue;
      merged[std::string(text.substr(0, eq))] = std::string(text.substr(eq + 1));
    }
  }
  for (const auto& [name, value] : spec.environment) merged[name] = value;
  std::vector<std::string> result;
  result.reserve(merged.size());
  for (const auto& [name, value] : merged) result.push_back(name + "=" + value);
  return result;
}

std::vector<char*> pointers(std::vector<std::string>& strings) {
  std::vector<char*> result;
  result.reserve(strings.size() + 1);
  for (auto& s : strings) result.push_back(s.data());
  result.push_back(nullptr);
  return result;
}

// Runs in the forked child: only async-signal-safe calls until execve.
[[noreturn]] void exec_child(const char* program, char* const* argv, char* const* envp,
                             const char* working_dir, int stdin_fd, int out_fd, int err_fd, int error_fd) {
  ::setpgid(0, 0);
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  ::signal(SIGPIPE, SIG_DFL);
  int stage = 0;
  if (::dup2(stdin_fd, 0) < 0 || ::dup2(out_fd, 1) < 0 || ::dup2(err_fd, 2) < 0) stage = 1;
  if (stage == 0 && working_dir[0] != '\0' && ::chdir(working_dir) != 0) stage = 2;
  if (stage == 0) {
    ::execve(program, argv, envp);
    stage = 3;
  }
  const int report[2] = {stage, errno};
  (void)!::write(error_fd, report, sizeof report);
  ::_exit(127);
}

struct Pump {
  UniqueFd* fd;
  std::string* sink;
};

// Writing stdin to a child that exited must not kill us with SIGPIPE: blocked in this thread for
// the child's life, and a pending one is dropped before the old mask comes back.
class SigpipeBlocked {
public:
  SigpipeBlocked() {
    sigemptyset(&m_pipe);
    sigaddset(&m_pipe, SIGPIPE);
    ::pthread_sigmask(SIG_BLOCK, &m_pipe, &m_old);
  }
  ~SigpipeBlocked() {
    sigset_t pending;
    sigpending(&pending);
    if (sigismember(&pending, SIGPIPE) && !sigismember(&m_old, SIGPIPE)) {
      const timespec zero{0, 0};
      ::sigtimedwait(&m_pipe, nullptr, &zero);
    }
    ::pthread_sigmask(SIG_SETMASK, &m_old, nullptr);
  }
  SigpipeBlocked(const SigpipeBlocked&) = delete;
  SigpipeBlocked& operator=(const SigpipeBlocked&) = delete;

private:
  sigset_t m_pipe, m_old;
};

// argv[0] as given when it has a '/', else looked up on the PATH the child gets (or ours).
Result<std::filesystem::path> resolve_program(const ProcessSpec& spec) {
  const std::string& name = spec.argv[0];
  std::optional<std::filesystem::path> program;
  if (name.find('/') != std::string::npos) {
    program = std::filesystem::path(name);
  } else if (auto path_value = spec.environment.find("PATH"); path_value != spec.environment.end()) {
    program = search_path(name, path_value->second);
  } else {
    program = find_program(name);
  }
  if (!program)
    return fail(ErrorCategory::io, "cannot run '" + name + "': no such program on PATH (is it installed?)");
  return *program;
}

// The child's ends and ours: stdin (a pipe for stdin_data, else /dev/null), stdout and stderr (pipes,
// or both appended to output_file), and the pipe exec_child reports a failed exec through.
struct ChildPipes {
  UniqueFd stdin_read, stdin_write, out_read, out_write, err_read, err_write, error_read, error_write;
};

Status open_pipes(const ProcessSpec& spec, ChildPipes& p) {
  const auto no_pipe = [] { return fail(ErrorCategory::io, "cannot create a pipe: " + errno_text(errno)); };
  if (!make_pipe(p.error_read, p.error_write)) return no_pipe();
  if (spec.stdin_data) {
    if (!make_pipe(p.stdin_read, p.stdin_write)) return no_pipe();
  } else {
    p.stdin_read.reset(::open("/dev/null", O_RDONLY | O_CLOEXEC));
    if (p.stdin_read.get() < 0) return fail(ErrorCategory::io, "cannot open /dev/null: " + errno_text(errno));
  }
  if (spec.output_file) {
    p.out_write.reset(::open(spec.output_file->c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644));
    if (p.out_write.get() < 0)
      return fail(ErrorCategory::io, "cannot open " + spec.output_file->string() + " for the output of '" +
                                         spec.argv[0] + "': " + errno_text(errno));
    p.err_write.reset(::fcntl(p.out_write.get(), F_DUPFD_CLOEXEC, 0));
  } else if (!make_pipe(p.out_read, p.out_write) || !make_pipe(p.err_read, p.err_write)) {
    return no_pipe();
  }
  return {};
}

// Forks and execs the child in its own process group; once this returns, only our ends are open.
// An exec or chdir that failed in the child is an io error here (the child already reaped).
Result<pid_t> spawn(const ProcessSpec& spec, const std::filesystem::path& program, ChildPipes& p) {
  std::vector<std::string> argv_strings = spec.argv;
  std::vector<std::string> env_strings = build_environment(spec);
  std::vector<char*> argv = pointers(argv_strings);
  std::vector<char*> envp = pointers(env_strings);
  const std::string program_text = program.string();
  const std::string working_dir = spec.working_dir.string();
  const pid_t pid = ::fork();
  if (pid < 0) {
    const int error = errno;
    return fail(ErrorCategory::io, "cannot fork to run '" + spec.argv[0] + "': " + errno_text(error));
  }
  if (pid == 0) {
    exec_child(program_text.c_str(), argv.data(), envp.data(), working_dir.c_str(), p.stdin_read.get(),
               p.out_write.get(), p.err_write.get(), p.error_write.get());
  }
  ::setpgid(pid, pid);  // also in the child: whichever runs first wins the race
  p.stdin_read.reset();
  p.out_write.reset();
  p.err_write.reset();
  p.error_write.reset();
  int report[2] = {0, 0};
  ssize_t got;
  do {
    got = ::read(p.error_read.get(), report, sizeof report);
  } while (got < 0 && errno == EINTR);
  if (got != static_cast<ssize_t>(sizeof report)) return pid;
  int status = 0;
  ::waitpid(pid, &status, 0);
  const char* what = report[0] == 2 ? "cannot change to the directory " : "cannot execute ";
  const std::string target = report[0] == 2 ? working_dir : program_text;
  return fail(ErrorCategory::io,
              std::string(what) + target + " to run '" + spec.argv[0] + "': " + errno_text(report[1]));
}

// Feeds stdin, drains stdout and stderr, and ends the group on timeout or cancel (SIGTERM, then
// SIGKILL after kill_grace, then stops waiting for descendants that left the group) until the
// child is reaped and every pipe closed. An io error only when poll itself fails (the group killed).
Status supervise(const ProcessSpec& spec, pid_t pid, std::chrono::steady_clock::time_point started,
                 ChildPipes& p, ProcessResult& result, int& wait_status) {
  std::string_view pending_stdin = spec.stdin_data ? std::string_view(*spec.stdin_data) : "";
  if (p.stdin_write.get() >= 0) {
    if (pending_stdin.empty()) {
      p.stdin_write.reset();
    } else {
      ::fcntl(p.stdin_write.get(), F_SETFL, ::fcntl(p.stdin_write.get(), F_GETFL) | O_NONBLOCK);
    }
  }
  const std::optional<Clock::time_point> deadline =
      spec.timeout ? std::optional(started + *spec.timeout) : std::nullopt;
  std::optional<Clock::time_point> kill_at;
  std::optional<Clock::time_point> abandon_at;
  bool reaped = false;
  Pump pumps[] = {{&p.out_read, &result.out}, {&p.err_read, &result.err}};
  char buffer[1 << 16];

  while (true) {
    if (!reaped) {
      const pid_t done = ::waitpid(pid, &wait_status, WNOHANG);
      if (done == pid) reaped = true;
    }
    const bool pipes_open = p.out_read.get() >= 0 || p.err_read.get() >= 0 || p.stdin_write.get() >= 0;
    if (reaped && !pipes_open) return {};

    const auto now = Clock::now();
    if (deadline && !result.timed_out && now >= *deadline) {
      result.timed_out = true;
      ::kill(-pid, SIGTERM);
      kill_at = now + spec.kill_grace;
    }
    if (spec.cancel != nullptr && !result.cancelled && !result.timed_out && spec.cancel->load()) {
      result.cancelled = true;
      ::kill(-pid, SIGTERM);
      kill_at = now + spec.kill_grace;
    }
    if (kill_at && now >= *kill_at) {
      ::kill(-pid, SIGKILL);
      kill_at.reset();
      abandon_at = now + spec.kill_grace;
    }
    if (abandon_at && now >= *abandon_at) {
      // Only a descendant that left the process group can still hold the pipes: stop reading.
      for (auto& pump : pumps) pump.fd->reset();
      p.stdin_write.reset();
      if (!reaped && ::waitpid(pid, &wait_status, 0) == pid) reaped = true;
      continue;
    }

    // Without a descriptor to wait on, the child's exit is noticed by polling every few ms.
    int wait_ms = pipes_open && reaped ? 50 : (pipes_open ? 250 : 5);
    if (spec.cancel != nullptr && !result.cancelled) wait_ms = std::min(wait_ms, 50);
    const std::optional<Clock::time_point> pending_deadline = result.timed_out ? std::nullopt : deadline;
    for (const auto& limit : {pending_deadline, kill_at, abandon_at}) {
      if (!limit) continue;
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(*limit - now).count();
      wait_ms = std::min(wait_ms, static_cast<int>(std::max<long long>(left, 0) + 1));
    }

    pollfd fds[3];
    nfds_t count = 0;
    for (auto& pump : pumps) {
      if (pump.fd->get() >= 0) fds[count++] = {pump.fd->get(), POLLIN, 0};
    }
    if (p.stdin_write.get() >= 0) fds[count++] = {p.stdin_write.get(), POLLOUT, 0};
    if (::poll(fds, count, wait_ms) < 0) {
      if (errno == EINTR) continue;
      const int error = errno;
      ::kill(-pid, SIGKILL);
      if (!reaped) ::waitpid(pid, &wait_status, 0);
      return fail(ErrorCategory::io,
                  "cannot poll the output of '" + spec.argv[0] + "': " + errno_text(error));
    }
    for (nfds_t i = 0; i < count; ++i) {
      if (fds[i].revents == 0) continue;
      if (fds[i].fd == p.stdin_write.get()) {
        const ssize_t n = ::write(p.stdin_write.get(), pending_stdin.data(), pending_stdin.size());
        if (n > 0) pending_stdin.remove_prefix(static_cast<std::size_t>(n));
        if ((n < 0 && errno != EAGAIN && errno != EINTR) || pending_stdin.empty()) p.stdin_write.reset();
        continue;
      }
      for (auto& pump : pumps) {
        if (pump.fd->get() != fds[i].fd) continue;
        const ssize_t n = ::read(pump.fd->get(), buffer, sizeof buffer);
        if (n > 0) {
          pump.sink->append(buffer, static_cast<std::size_t>(n));
        } else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
          pump.fd->reset();
        }
      }
    }
  }
}

}  // namespace

std::optional<std::filesystem::path> find_program(const std::string& program) {
  if (program.find('/') != std::string::npos) {
    if (::access(program.c_str(), X_OK) == 0) return std::filesystem::path(program);
    return std::nullopt;
  }
  const char* path_value = std::getenv("PATH");
  return search_path(program, path_value != nullptr ? path_value : "/usr/local/bin:/usr/bin:/bin");
}

Result<ProcessResult> run_process(const ProcessSpec& spec) {
  if (spec.argv.empty() || spec.argv[0].empty())
    return fail(ErrorCategory::internal, "run_process: empty argv");
  const auto program = resolve_program(spec);
  if (!program) return tl::unexpected(program.error());
  ChildPipes pipes;
  if (auto opened = open_pipes(spec, pipes); !opened) return tl::unexpected(opened.error());
  const SigpipeBlocked blocked;
  const auto started = Clock::now();
  const auto pid = spawn(spec, *program, pipes);
  if (!pid) return tl::unexpected(pid.error());
  ProcessResult result;
  int wait_status = 0;
  if (auto ok = supervise(spec, *pid, started, pipes, result, wait_status); !ok)
    return tl::unexpected(ok.error());
  // After a timeout or cancel, members of the group that outlived its leader get SIGKILL too.
  if (result.timed_out || result.cancelled) ::kill(-*pid, SIGKILL);
  result.duration = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - started);
  if (WIFEXITED(wait_status)) {
    result.exit_code = WEXITSTATUS(wait_status);
  } else if (WIFSIGNALED(wait_status)) {
    result.signal = WTERMSIG(wait_status);
  }
  return result;
}

}  // namespace relforge::platform
