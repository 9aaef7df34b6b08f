// The floor under `relforge index rebuild`: opening and reading every FILE.info.json of a store on
// every core with the fewest system calls (one directory handle per folder; openat, read, close per
// file), parsing nothing and writing nothing. bench/channels_index_bench.sh reports it beside the
// rebuild, so the rebuild's figure can be read against what the kernel alone costs.
// usage: sidecar_floor_probe ROOT   prints "<folders> <files> <bytes>".
#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

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
    std::vector<char> buffer(1 << 16);
    for (std::size_t i; (i = next++) < folders.size();) {
      const int dir = ::open(folders[i].c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      if (dir < 0) continue;
      DIR* handle = ::fdopendir(::dup(dir));
      std::vector<std::string> names;
      while (const dirent* entry = handle ? ::readdir(handle) : nullptr) {
        if (std::string_view(entry->d_name).ends_with(".whl.info.json")) names.emplace_back(entry->d_name);
      }
      if (handle) ::closedir(handle);
      for (const auto& name : names) {
        const int fd = ::openat(dir, name.c_str(), O_RDONLY | O_CLOEXEC);
        if (fd < 0) continue;
        for (ssize_t n; (n = ::read(fd, buffer.data(), buffer.size())) > 0;)
          bytes += static_cast<std::size_t>(n);
        ::close(fd);
        ++files;
      }
      ::close(dir);
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < std::max(1u, std::thread::hardware_concurrency()); ++t) pool.emplace_back(work);
  work();
  for (auto& thread : pool) thread.join();
  std::printf("%zu %zu %zu\n", folders.size(), files.load(), bytes.load());
  return 0;
}
