// The store interface's folder listing and bulk reads and writes: a directory answers it with one read, any
// other store derives it from its listing, and the two agree.
#include "channels/object_store.hpp"

#include <algorithm>
#include <filesystem>
#include <optional>

#include <gtest/gtest.h>

#include "platform/fs.hpp"
#include "tests/channels/support.hpp"

namespace relforge::channels {
namespace {

TEST(ObjectStoreChildren, AFolderAndTheDerivedListingAgree) {
  test::ChannelTempDir dir;
  FilesystemObjectStore store(dir.path());
  for (const char* key :
       {"whl/nightly/cpu/.relforge-variant", "whl/nightly/cpu/mini/a.whl",
        "whl/nightly/cpu/mini/a.whl.info.json", "whl/nightly/cu126/mini/b.whl", "whl/nightly/index.html"}) {
    ASSERT_TRUE(store.put(key, "x", ""));
  }
  ASSERT_TRUE(platform::write_file_atomic(dir.path() / "whl/nightly/cpu/.x.whl.partial", "x"));
  const std::vector<std::string> top = {"cpu/", "cu126/", "index.html"};
  EXPECT_EQ(store.children("whl/nightly/").value(), top);
  EXPECT_EQ(store.ObjectStore::children("whl/nightly/").value(), top);
  const std::vector<std::string> cpu = {".relforge-variant", "mini/"};  // the temp file is not listed
  EXPECT_EQ(store.children("whl/nightly/cpu/").value(), cpu);
  EXPECT_EQ(store.ObjectStore::children("whl/nightly/cpu/").value(), cpu);
  EXPECT_TRUE(store.children("whl/test/").value().empty());
  EXPECT_FALSE(store.children("../"));
}

// A publish lists its project folders by name only: a folder store reads the directory and stats only
// links, and must still agree with the derived listing: no deeper folder, no temp file, no dangling
// link (it is no object), a link to a file counted.
TEST(ObjectStoreFileKeys, AFolderAndTheDerivedListingAgree) {
  test::ChannelTempDir dir;
  FilesystemObjectStore store(dir.path());
  for (const char* key : {"whl/cpu/mini/a.whl", "whl/cpu/mini/a.whl.info.json", "whl/cpu/mini/deeper/c.whl",
                          "whl/cpu/other/d.whl"}) {
    ASSERT_TRUE(store.put(key, "x", ""));
  }
  ASSERT_TRUE(platform::write_file_atomic(dir.path() / "whl/cpu/mini/.b.whl.partial", "x"));
  std::filesystem::create_symlink(dir.path() / "whl/cpu/mini/gone.whl", dir.path() / "whl/cpu/mini/b.whl");
  std::filesystem::create_symlink(dir.path() / "whl/cpu/other/d.whl", dir.path() / "whl/cpu/mini/d.whl");
  std::filesystem::create_directory_symlink(dir.path() / "whl/cpu/other", dir.path() / "whl/cpu/mini/link");
  const std::vector<std::string> mini = {"whl/cpu/mini/a.whl", "whl/cpu/mini/a.whl.info.json",
                                         "whl/cpu/mini/d.whl"};
  EXPECT_EQ(store.file_keys("whl/cpu/mini/").value(), mini);
  EXPECT_EQ(store.ObjectStore::file_keys("whl/cpu/mini/").value(), mini);
  EXPECT_TRUE(store.file_keys("whl/cpu/none/").value().empty());
  EXPECT_FALSE(store.file_keys("../"));
}

// A rebuild reads every sidecar through get_many: the folder store's parallel reading must hand over
// exactly what get() does, for every key, and stop at the first error.
TEST(ObjectStoreGetMany, AFolderReadsWhatGetReadsInParallel) {
  test::ChannelTempDir dir;
  FilesystemObjectStore store(dir.path());
  std::vector<std::string> keys;
  for (int folder = 0; folder < 40; ++folder) {
    for (int file = 0; file < 5; ++file) {
      keys.push_back("whl/nightly/cpu/p" + std::to_string(folder) + "/f" + std::to_string(file) +
                     ".info.json");
      if (file != 3) {
        ASSERT_TRUE(store.put(keys.back(), "bytes of " + keys.back(), ""));
      }
    }
  }
  keys.push_back("whl/nightly/cpu/no-such-folder/f.info.json");
  keys.push_back("top-level.json");
  ASSERT_TRUE(store.put("top-level.json", "top", ""));
  std::vector<std::optional<std::string>> parallel(keys.size(), std::string("unset"));
  ASSERT_TRUE(store.get_many(keys, [&](std::size_t i, std::optional<std::string> bytes) -> Status {
    parallel[i] = std::move(bytes);
    return {};
  }));
  std::vector<std::optional<std::string>> serial(keys.size(), std::string("unset"));
  ASSERT_TRUE(
      store.ObjectStore::get_many(keys, [&](std::size_t i, std::optional<std::string> bytes) -> Status {
        serial[i] = std::move(bytes);
        return {};
      }));
  EXPECT_EQ(parallel, serial);
  for (std::size_t i = 0; i < keys.size(); ++i) EXPECT_EQ(parallel[i], store.get(keys[i]).value()) << keys[i];
  // File f3 of every folder and the missing folder's file are absent; the rest were read.
  EXPECT_EQ(std::count(parallel.begin(), parallel.end(), std::nullopt), 41);
  EXPECT_EQ(parallel[0], "bytes of " + keys[0]);
}

TEST(ObjectStoreGetMany, StopsAtTheFirstErrorAndRefusesKeysOutsideTheStore) {
  test::ChannelTempDir dir;
  FilesystemObjectStore store(dir.path());
  ASSERT_TRUE(store.put("a/x.json", "x", ""));
  auto refused = store.get_many({"a/x.json", "a/../../etc/passwd"},
                                [](std::size_t, std::optional<std::string>) -> Status { return {}; });
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().category(), ErrorCategory::invalid_input);
  for (const std::string key :
       {"/etc/passwd", "a/../../x", "", "..", "../", "a/..", "a//..//b", "//etc/passwd"}) {
    auto outside = store.get(key);
    ASSERT_FALSE(outside) << key;
    EXPECT_EQ(outside.error().category(), ErrorCategory::invalid_input) << key;
    EXPECT_FALSE(store.put(key, "x", "")) << key;
  }
  auto failed = store.get_many({"a/x.json"}, [](std::size_t, std::optional<std::string>) -> Status {
    return fail(ErrorCategory::integrity, "bad sidecar");
  });
  ASSERT_FALSE(failed);
  EXPECT_EQ(failed.error().message(), "bad sidecar");
}

TEST(ObjectStorePutMany, AFolderWritesEveryObjectAndLeavesUnchangedOnesAlone) {
  test::ChannelTempDir dir;
  FilesystemObjectStore store(dir.path());
  std::vector<std::string> bodies;
  for (int i = 0; i < 60; ++i) bodies.push_back("page " + std::to_string(i));
  std::vector<ObjectPut> puts;
  for (int i = 0; i < 60; ++i)
    puts.push_back({"whl/p" + std::to_string(i % 7) + "/index" + std::to_string(i), bodies[i], ""});
  ASSERT_TRUE(store.put_many(puts));
  for (const auto& put : puts) EXPECT_EQ(store.get(put.key).value(), std::string(put.bytes));
  const auto before = std::filesystem::last_write_time(dir.path() / "whl/p0/index0");
  ASSERT_TRUE(store.put_many(puts));
  EXPECT_EQ(std::filesystem::last_write_time(dir.path() / "whl/p0/index0"), before);
  auto refused = store.put_many({{"ok/index.html", "x", ""}, {"../escape", "x", ""}});
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().category(), ErrorCategory::invalid_input);
}

}  // namespace
}  // namespace relforge::channels
