// libFuzzer's standalone-driver idea: the fuzz target's LLVMFuzzerTestOneInput runs once per file
// named on the command line (directories: every file in them, sorted; dot files are skipped), so
// ctest replays the seed corpus and every saved crash without clang or libFuzzer.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {

namespace fs = std::filesystem;

bool replay(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "replay: cannot read %s\n", file.c_str());
    return false;
  }
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // A copy of exactly the input's size, so ASan sees a read past the end as it would in libFuzzer.
  std::vector<std::uint8_t> data(bytes.begin(), bytes.end());
  std::fprintf(stderr, "replay: %s (%zu bytes)\n", file.c_str(), data.size());
  static std::uint8_t none = 0;  // libFuzzer never passes a null pointer, even for no bytes
  LLVMFuzzerTestOneInput(data.empty() ? &none : data.data(), data.size());
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t count = 0;
  for (int i = 1; i < argc; ++i) {
    const fs::path arg = argv[i];
    std::error_code ec;
    if (fs::is_directory(arg, ec)) {
      std::vector<fs::path> files;
      for (const auto& entry : fs::directory_iterator(arg)) {
        if (entry.is_regular_file() && entry.path().filename().string().front() != '.') {
          files.push_back(entry.path());
        }
      }
      std::sort(files.begin(), files.end());
      for (const auto& file : files) {
        if (!replay(file)) return 1;
        ++count;
      }
    } else if (fs::exists(arg, ec)) {
      if (!replay(arg)) return 1;
      ++count;
    } else {
      std::fprintf(stderr, "replay: %s does not exist\n", arg.c_str());
      return 1;
    }
  }
  // Replaying nothing would pass without testing anything: a missing corpus is a failure.
  if (count == 0) {
    std::fprintf(stderr, "replay: no inputs given\n");
    return 1;
  }
  std::printf("replay: %zu inputs, no crash\n", count);
  return 0;
}
