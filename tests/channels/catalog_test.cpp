// How a channel is scanned from a store: stable's folder holds the other channels' folders, which
// are not part of it.
#include "channels/catalog.hpp"

#include <gtest/gtest.h>

#include "tests/channels/support.hpp"

namespace relforge::channels {
namespace {

TEST(ScanChannel, StableLeavesTheOtherChannelsFoldersOut) {
  test::ChannelTempDir dir;
  FilesystemObjectStore store(dir.path());
  for (const char* key :
       {"whl/cpu/.relforge-variant", "whl/cpu/mini/mini-1.0-py3-none-any.whl",
        "whl/cpu/mini/mini-1.0-py3-none-any.whl.info.json", "whl/mini/index.html", "whl/index.html",
        "whl/nightly/cpu/.relforge-variant", "whl/nightly/cpu/mini/mini-2.0-py3-none-any.whl",
        "whl/nightly/cpu/mini/mini-2.0-py3-none-any.whl.info.json", "whl/test/cpu/.relforge-variant"}) {
    ASSERT_TRUE(store.put(key, "x", ""));
  }
  auto stable = scan_channel(store, Channel::stable);
  ASSERT_TRUE(stable) << stable.error().describe();
  const std::set<std::string> stable_keys = {"cpu/.relforge-variant", "cpu/mini/mini-1.0-py3-none-any.whl",
                                             "cpu/mini/mini-1.0-py3-none-any.whl.info.json", "index.html",
                                             "mini/index.html"};
  EXPECT_EQ(stable->keys, stable_keys);
  EXPECT_EQ(stable->folders.at({"cpu", "mini"}), std::vector<std::string>{"mini-1.0-py3-none-any.whl"});
  // `index check` asks for temp files too and still walks the whole folder.
  auto checked = scan_channel(store, Channel::stable, Temporaries::show);
  ASSERT_TRUE(checked);
  EXPECT_TRUE(checked->has("nightly/cpu/.relforge-variant"));
  auto nightly = scan_channel(store, Channel::nightly);
  ASSERT_TRUE(nightly);
  EXPECT_EQ(nightly->folders.at({"cpu", "mini"}), std::vector<std::string>{"mini-2.0-py3-none-any.whl"});
  EXPECT_EQ(nightly->keys.size(), 3U);
}

}  // namespace
}  // namespace relforge::channels
