#include "platform/interrupt_cleanup.hpp"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>
#include <climits>

#include <atomic>
#include <cerrno>
#include <cstring>

namespace relforge::platform {
namespace {

// A slot moves free -> filling -> armed -> free; the handler takes an armed one to removing and
// never gives it back (the process is about to die), so it never reads a path being rewritten.
enum SlotState : int { k_free = 0, k_filling = 1, k_armed = 2, k_removing = 3 };

struct Slot {
  std::atomic<int> state{k_free};
  int dir = AT_FDCWD;
  char path[PATH_MAX] = {};
};
static_assert(std::atomic<int>::is_always_lock_free);

constexpr int k_slots = 64;
// Allocated on the first registration, so a command that writes nothing maps none of it.
std::atomic<Slot*> g_slots{nullptr};
// A child forked to run a program keeps the handler until its exec: it must not remove our files.
std::atomic<pid_t> g_owner{0};

Slot* slots() {
  static Slot* const table = [] {
    auto* made = new Slot[k_slots];
    g_slots.store(made, std::memory_order_release);
    return made;
  }();
  return table;
}

extern "C" void remove_registered_files(int signal_number) {
  const int saved_errno = errno;
  Slot* table = g_slots.load(std::memory_order_acquire);
  if (table != nullptr && ::getpid() == g_owner.load()) {
    for (int i = 0; i < k_slots; ++i) {
      int expected = k_armed;
      if (table[i].state.compare_exchange_strong(expected, k_removing))
        ::unlinkat(table[i].dir, table[i].path, 0);
    }
  }
  errno = saved_errno;
  // SA_RESETHAND put the default action back: the process now ends by the signal, as without us.
  ::raise(signal_number);
}

int register_file(int dir, const char* path) {
  if (std::strlen(path) >= PATH_MAX) return -1;
  Slot* table = slots();
  for (int i = 0; i < k_slots; ++i) {
    int expected = k_free;
    if (!table[i].state.compare_exchange_strong(expected, k_filling)) continue;
    table[i].dir = dir;
    std::strcpy(table[i].path, path);
    table[i].state.store(k_armed, std::memory_order_release);
    return i;
  }
  return -1;
}

}  // namespace

void install_interrupt_cleanup() {
  g_owner.store(::getpid());
  for (const int signal_number : {SIGINT, SIGTERM, SIGHUP}) {
    struct sigaction current {};
    if (::sigaction(signal_number, nullptr, &current) != 0 || current.sa_handler == SIG_IGN) continue;
    struct sigaction action {};
    action.sa_handler = remove_registered_files;
    action.sa_flags = SA_RESETHAND;
    sigfillset(&action.sa_mask);
    ::sigaction(signal_number, &action, nullptr);
  }
}

RemovedOnInterrupt::RemovedOnInterrupt(const std::filesystem::path& path) {
  // Absolute, so a later chdir of the process cannot point the removal at another file.
  std::error_code error;
  const auto absolute = std::filesystem::absolute(path, error);
  m_slot = register_file(AT_FDCWD, (error ? path : absolute).c_str());
}

RemovedOnInterrupt::RemovedOnInterrupt(int dir, const std::string& name)
    : m_slot(register_file(dir, name.c_str())) {}

RemovedOnInterrupt::~RemovedOnInterrupt() {
  if (m_slot < 0) return;
  int expected = k_armed;
  // When this fails the handler is removing the file and the process is ending: leave the slot.
  g_slots.load(std::memory_order_relaxed)[m_slot].state.compare_exchange_strong(expected, k_free);
}

}  // namespace relforge::platform
