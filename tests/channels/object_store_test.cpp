// The store interface's folder listing: a directory answers it with one read, any other store
// derives it from its listing, and the two agree.
#include "channels/object_store.hpp"

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

}  // namespace
}  // namespace relforge::channels
