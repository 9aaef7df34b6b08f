// The floor under `relforge index rebuild`: opening and reading every FILE.info.json of a store on
// every core the way the rebuild does (one directory handle per folder, Directory::read_each: an
// io_uring chain of open, read and close per file where the kernel allows it), parsing nothing and
// writing nothing. bench/channels_index_bench.sh reports it beside the
// rebuild, so the rebuild's figure can be read against what the kernel alone costs.
// usage: sidecar_floor_probe ROOT   prints "<folders> <files> <bytes>".
#include <dirent.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "platform/fs.hpp"

namespace {

// Every folder below `dir` (depth first), `dir` included.
void folders_below(const std::string& dir, std::vector<std::string>& out) {
  out.push_back(dir);
  DIR* handle = ::opendir(dir.c_str());
  if (handle == nullptr) return;
  while (const dirent* entry = ::readdir(handle)) {
    if (entry->d_type != DT_DIR || entry->d_name[0] == '.') continue;
    folders_below(dir + "/" + entry->d_name, out);
  }
  ::closedir(handle);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s ROOT\n", argv[0]);
    return 2;
  }
  std::vector<std::string> folders;
  folders_below(argv[1], folders);
  std::atomic<std::size_t> next{0}, files{0}, bytes{0};
  auto work = [&] {
    for (std::size_t i; (i = next++) < folders.size();) {
      auto dir = relforge::platform::Directory::open(folders[i]);
      if (!dir) continue;
      auto listed = dir->names();
      if (!listed) continue;
      std::vector<std::string> names;
      for (auto& name : *listed) {
        if (std::string_view(name).ends_with(".whl.info.json")) names.push_back(std::move(name));
      }
      (void)dir->read_each(names, [&](std::size_t, relforge::Result<std::string> text) -> relforge::Status {
        if (!text) return {};
        bytes += text->size();
        ++files;
        return {};
      });
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < std::max(1u, std::thread::hardware_concurrency()); ++t) pool.emplace_back(work);
  work();
  for (auto& thread : pool) thread.join();
  std::printf("%zu %zu %zu\n", folders.size(), files.load(), bytes.load());
  return 0;
}
