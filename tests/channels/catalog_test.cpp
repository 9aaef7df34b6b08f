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

// A publish indexes only the folders its new keys fall in; the scan must still equal a fresh one:
// a new file in a known folder, a folder new to a known variant, a new variant, an unfinished
// write (a wheel without its info), and untouched folders.
TEST(AddKeys, GivesTheScanAFreshScanOfTheStoreGives) {
  test::ChannelTempDir dir;
  FilesystemObjectStore store(dir.path());
  const std::vector<std::string> before = {"cpu/.relforge-variant", "cpu/mini/mini-1.0-py3-none-any.whl",
                                           "cpu/mini/mini-1.0-py3-none-any.whl.info.json",
                                           "cpu/other/other-1.0-py3-none-any.whl",
                                           "cpu/other/other-1.0-py3-none-any.whl.info.json"};
  for (const auto& key : before) ASSERT_TRUE(store.put("whl/nightly/" + key, "x", ""));
  auto scan = scan_projects(store, Channel::nightly, {"mini", "other"});
  ASSERT_TRUE(scan) << scan.error().describe();
  EXPECT_EQ(scan->variants, std::set<std::string>{"cpu"});

  const std::vector<std::string> added = {"cpu/mini/mini-2.0-py3-none-any.whl",
                                          "cpu/mini/mini-2.0-py3-none-any.whl.info.json",
                                          "cpu/fresh/fresh-1.0-py3-none-any.whl",
                                          "cpu/fresh/fresh-1.0-py3-none-any.whl.info.json",
                                          "cpu/mini/mini-3.0-py3-none-any.whl",  // unfinished: no info
                                          "cu126/.relforge-variant",
                                          "cu126/mini/mini-2.0-py3-none-any.whl",
                                          "cu126/mini/mini-2.0-py3-none-any.whl.info.json"};
  for (const auto& key : added) ASSERT_TRUE(store.put("whl/nightly/" + key, "x", ""));
  add_keys(*scan, added);

  auto fresh = scan_projects(store, Channel::nightly, {"mini", "other", "fresh"});
  ASSERT_TRUE(fresh) << fresh.error().describe();
  EXPECT_EQ(scan->keys, fresh->keys);
  EXPECT_EQ(scan->variants, fresh->variants);
  EXPECT_EQ(scan->folders, fresh->folders);
  EXPECT_EQ(scan->folders.at({"cpu", "mini"}),
            (std::vector<std::string>{"mini-1.0-py3-none-any.whl", "mini-2.0-py3-none-any.whl"}));
  EXPECT_EQ(scan->folders.at({"cu126", "mini"}), std::vector<std::string>{"mini-2.0-py3-none-any.whl"});
  EXPECT_EQ(scan->folders.at({"cpu", "other"}), std::vector<std::string>{"other-1.0-py3-none-any.whl"});
}

}  // namespace
}  // namespace relforge::channels
