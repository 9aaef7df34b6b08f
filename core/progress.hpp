#pragma once
// Progress of long work, reported as events to a sink the caller supplies; cli/ draws them
// (a bar on a TTY, plain lines otherwise). Modules never print.
#include <cstdint>
#include <string>

namespace relforge::core {

struct ProgressEvent {
  std::string phase;  // "expand", "build", "publish"
  std::string item;   // what is being worked on now, may be empty
  std::uint64_t done = 0;
  std::uint64_t total = 0;  // 0 when unknown
};

class ProgressSink {
public:
  virtual ~ProgressSink() = default;
  virtual void on_progress(const ProgressEvent& event) = 0;
};

// A sink that drops every event, for callers that do not want progress.
class NullProgress final : public ProgressSink {
public:
  void on_progress(const ProgressEvent&) override {}
};

}  // namespace relforge::core
