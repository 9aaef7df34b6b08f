#pragma once
// FUZZ_CHECK(condition, what): an invariant of a fuzz target; when it does not hold, prints what
// was expected and aborts, which libFuzzer saves as a crash and the replay test reports as a failure.
#include <cstdio>
#include <cstdlib>

#define FUZZ_CHECK(condition, what)                                                                     \
  do {                                                                                                  \
    if (!(condition)) {                                                                                 \
      std::fprintf(stderr, "%s:%d: invariant failed: %s (%s)\n", __FILE__, __LINE__, what, #condition); \
      std::abort();                                                                                     \
    }                                                                                                   \
  } while (false)
