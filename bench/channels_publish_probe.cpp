// Times channels::run_publish in-process, one wheel at a time, for bench/channels_index_bench.sh:
// the publish itself, without the start-up of a process that maps ~50 shared libraries.
// usage: channels_publish_probe ROOT WHEEL...   prints "<milliseconds> <wheel>" per wheel.
#include <chrono>
#include <cstdio>
#include <string>

#include "channels/publish.hpp"

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s ROOT WHEEL...\n", argv[0]);
    return 2;
  }
  for (int i = 2; i < argc; ++i) {
    relforge::channels::PublishOptions options;
    options.root = argv[1];
    options.channel = relforge::channels::Channel::nightly;
    options.files = {argv[i]};
    options.upload_time = "2026-01-02T03:04:05Z";
    const auto start = std::chrono::steady_clock::now();
    const auto published = relforge::channels::run_publish(options);
    const std::chrono::duration<double, std::milli> took = std::chrono::steady_clock::now() - start;
    if (!published) {
      std::fprintf(stderr, "publish %s: %s\n", argv[i], published.error().describe().c_str());
      return 1;
    }
    std::printf("%.2f %s\n", took.count(), argv[i]);
  }
  return 0;
}
