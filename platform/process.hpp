#pragma once
// Child processes: spawn with an explicit argv, environment and working directory, in a process
// group of their own (so a timeout or Ctrl-C kills the whole tree), output captured or to files.
#include <atomic>
#include <chrono>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/error.hpp"

namespace relforge::platform {

enum class EnvironmentMode { inherit, clean };  // clean: only `environment` (plus nothing else)

struct ProcessSpec {
  std::vector<std::string> argv{};                   // argv[0] is looked up on PATH when it has no '/'
  std::filesystem::path working_dir{};               // empty: the current directory
  std::map<std::string, std::string> environment{};  // added to (inherit) or the whole (clean) env
  EnvironmentMode environment_mode = EnvironmentMode::inherit;
  std::optional<std::string> stdin_data{};             // empty stdin (/dev/null) when not set
  std::optional<std::filesystem::path> output_file{};  // stdout+stderr appended here, else captured
  std::optional<std::chrono::milliseconds> timeout{};  // the process group is killed after this
  // After a timeout: SIGTERM to the group, then SIGKILL when it is still alive after this grace.
  std::chrono::milliseconds kill_grace = std::chrono::seconds(2);
  // When set and it becomes true (Ctrl-C), the process group is ended like after a timeout.
  const std::atomic<bool>* cancel = nullptr;
};

struct ProcessResult {
  int exit_code = -1;  // -1 when killed by a signal
  int signal = 0;      // the terminating signal, 0 if it exited
  bool timed_out = false;
  bool cancelled = false;  // ended because `cancel` became true
  std::string out{};       // captured stdout (empty when output_file is set)
  std::string err{};       // captured stderr (empty when output_file is set)
  std::chrono::milliseconds duration{0};
};

// Runs to completion. Failing to start (no such program) is an io error; a non-zero exit is not
// an error, it is in the result.
Result<ProcessResult> run_process(const ProcessSpec& spec);

// Looks `program` up on PATH; nullopt when absent.
std::optional<std::filesystem::path> find_program(const std::string& program);

}  // namespace relforge::platform
