// Mutex, MutexLock and CondVar: exclusion between threads, and waits that end on a notify or a
// deadline that has passed.
#include "platform/sync.hpp"

#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace relforge::platform {
namespace {

struct Counter {
  Mutex mutex;
  long value GUARDED_BY(mutex) = 0;
};

TEST(Sync, MutexLockExcludesOtherThreads) {
  Counter counter;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&] {
      for (int i = 0; i < 10000; ++i) {
        MutexLock lock(counter.mutex);
        ++counter.value;
      }
    });
  for (auto& thread : threads) thread.join();
  MutexLock lock(counter.mutex);
  EXPECT_EQ(counter.value, 40000);
}

struct Flag {
  Mutex mutex;
  CondVar cv;
  bool ready GUARDED_BY(mutex) = false;
};

TEST(Sync, AWaitEndsOnNotifyWithTheConditionSeenUnderTheLock) {
  Flag flag;
  std::thread producer([&] {
    MutexLock lock(flag.mutex);
    flag.ready = true;
    flag.cv.notify_all();
  });
  {
    MutexLock lock(flag.mutex);
    while (!flag.ready) flag.cv.wait(flag.mutex);
    EXPECT_TRUE(flag.ready);
  }
  producer.join();
}

TEST(Sync, AWaitUntilAPassedDeadlineReturnsFalseAtOnce) {
  Mutex mutex;
  CondVar cv;
  MutexLock lock(mutex);
  EXPECT_FALSE(cv.wait_until(mutex, std::chrono::steady_clock::time_point{}));
}

}  // namespace
}  // namespace relforge::platform
