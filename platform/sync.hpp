#pragma once
// A mutex, its scoped lock and a condition variable annotated for clang's thread-safety analysis
// (-Wthread-safety): members marked GUARDED_BY(m) may only be touched with m held, functions marked
// REQUIRES(m) only be called with it. The macros expand to nothing on other compilers.
#include <chrono>
#include <condition_variable>
#include <mutex>

#if defined(__clang__)
#define RELFORGE_TSA(x) __attribute__((x))
#else
#define RELFORGE_TSA(x)
#endif

#define CAPABILITY(x) RELFORGE_TSA(capability(x))
#define SCOPED_CAPABILITY RELFORGE_TSA(scoped_lockable)
#define GUARDED_BY(x) RELFORGE_TSA(guarded_by(x))
#define PT_GUARDED_BY(x) RELFORGE_TSA(pt_guarded_by(x))
#define REQUIRES(...) RELFORGE_TSA(requires_capability(__VA_ARGS__))
#define EXCLUDES(...) RELFORGE_TSA(locks_excluded(__VA_ARGS__))
#define ACQUIRE(...) RELFORGE_TSA(acquire_capability(__VA_ARGS__))
#define RELEASE(...) RELFORGE_TSA(release_capability(__VA_ARGS__))
#define NO_THREAD_SAFETY_ANALYSIS RELFORGE_TSA(no_thread_safety_analysis)

namespace relforge::platform {

class CAPABILITY("mutex") Mutex {
public:
  void lock() ACQUIRE() { m_mutex.lock(); }
  void unlock() RELEASE() { m_mutex.unlock(); }

private:
  std::mutex m_mutex;
};

// Holds `mutex` for its scope (std::lock_guard for Mutex).
class SCOPED_CAPABILITY MutexLock {
public:
  explicit MutexLock(Mutex& mutex) ACQUIRE(mutex) : m_mutex(mutex) { m_mutex.lock(); }
  ~MutexLock() RELEASE() { m_mutex.unlock(); }
  MutexLock(const MutexLock&) = delete;
  MutexLock& operator=(const MutexLock&) = delete;

private:
  Mutex& m_mutex;
};

// std::condition_variable_any over Mutex. Callers loop on their condition in the function that
// holds the lock (`while (!ready) cv.wait(m);`), so the analysis checks the guarded reads; a
// predicate lambda would be analysed as a function that holds nothing.
class CondVar {
public:
  void wait(Mutex& mutex) REQUIRES(mutex) { m_cv.wait(mutex); }
  // false when `deadline` passed.
  template <class Clock, class Duration>
  bool wait_until(Mutex& mutex, const std::chrono::time_point<Clock, Duration>& deadline) REQUIRES(mutex) {
    return m_cv.wait_until(mutex, deadline) == std::cv_status::no_timeout;
  }
  void notify_one() { m_cv.notify_one(); }
  void notify_all() { m_cv.notify_all(); }

private:
  std::condition_variable_any m_cv;
};

}  // namespace relforge::platform
