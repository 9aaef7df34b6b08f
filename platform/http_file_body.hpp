#pragma once
// Internal to platform/: a file response's body, sent after its head straight from the file
// (sendfile) on a non-blocking socket, a part at a time, so a slow reader can be left to the gate.
#include <cstddef>
#include <cstdint>
#include <memory>

#include "platform/open_beneath.hpp"

namespace relforge::platform::detail {

// What becomes of a connection once its requests are answered.
enum class AfterAnswers {
  close,  // done (the client asked, or a limit): close it
  wait,   // kept alive: back to the gate for the next request
  drain,  // its input was not all read: drop what is in flight for a moment, then close
  send,   // a file body is still being sent (FileBody::then says what follows it)
};

struct FileBody {
  std::shared_ptr<const OpenEntry> file;
  std::uint64_t offset = 0;  // the next byte of the file to send
  std::uint64_t left = 0;    // bytes still to send
  AfterAnswers then = AfterAnswers::wait;
};

enum class SendStep {
  done,     // every byte is sent
  blocked,  // the socket is full, or `budget` is spent: go on once it is writable
  failed,   // the client is gone, or the file ended early (it shrank): close the connection
};

// Sends at most `budget` bytes of `body` without blocking; `sent` counts what went out.
SendStep send_file_part(int socket, FileBody& body, std::size_t budget, std::size_t& sent);

}  // namespace relforge::platform::detail
