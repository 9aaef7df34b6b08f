#include "channels/listing_cache.hpp"

#include <sys/stat.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "channels/index.hpp"
#include "channels/publish.hpp"
#include "platform/fs.hpp"
#include "tests/channels/support.hpp"

namespace relforge::channels {
namespace {

namespace fs = std::filesystem;

FileInfo odd_info() {
  FileInfo info;
  info.filename = "mini-1.0+cpu-py3-none-any.whl";
  info.project = "mini";
  info.version = "1.0+cpu";
  info.sha256 = std::string(64, 'c');
  info.size = 18446744073709551615ull;
  info.requires_python = ">=3.10,\t!=3.11.*";
  info.upload_time = "2025-01-02T03:04:05Z";
  info.yanked = true;
  info.yanked_reason = "100% broken\nsee #12 \"here\" \\ ünïcode";
  info.provenance = true;
  return info;
}

std::string listing_of(const std::vector<std::pair<std::string, std::vector<IndexedFile>>>& variants) {
  std::vector<std::string> sections;
  for (const auto& [variant, files] : variants) sections.push_back(render_listing_section(variant, files));
  return render_listing(sections);
}

TEST(ListingCache, RoundTripsEveryFieldWhateverItHolds) {
  const std::vector<IndexedFile> files = {{odd_info(), "x"}, {FileInfo{}, "y"}};
  const auto parsed = parse_listing(listing_of({{"cu126", files}, {"odd\tvariant%", {}}}));
  ASSERT_TRUE(parsed);
  ASSERT_EQ(parsed->size(), 2u);
  EXPECT_TRUE(parsed->at("odd\tvariant%").empty());
  const auto& cu126 = parsed->at("cu126");
  ASSERT_EQ(cu126.size(), 2u);
  const auto& info = cu126[0];
  EXPECT_EQ(info.filename, files[0].info.filename);
  EXPECT_EQ(info.version, files[0].info.version);
  EXPECT_EQ(info.size, files[0].info.size);
  EXPECT_EQ(info.requires_python, files[0].info.requires_python);
  EXPECT_EQ(info.yanked_reason, files[0].info.yanked_reason);
  EXPECT_TRUE(info.yanked);
  EXPECT_TRUE(info.provenance);
  EXPECT_EQ(info_to_json(cu126[1]), info_to_json(FileInfo{}));
}

TEST(ListingCache, RejectsATruncatedOrForeignFile) {
  const std::string text = listing_of({{"cpu", {{odd_info(), "x"}, {odd_info(), "y"}}}});
  EXPECT_FALSE(parse_listing(text.substr(0, text.size() - 4)));  // lost its end marker
  EXPECT_FALSE(parse_listing(text.substr(0, text.find('\n', 40))));
  EXPECT_FALSE(parse_listing("relforge-listing 9\nend\n"));
  EXPECT_FALSE(parse_listing("relforge-listing 1\nend\n"));  // an older relforge's per-folder cache
  EXPECT_FALSE(parse_listing(""));
  std::string bad_size = text;
  bad_size.replace(bad_size.find("18446744073709551615"), 20, "12x");
  EXPECT_FALSE(parse_listing(bad_size));
  const std::string line = text.substr(text.find("variant cpu\n") + 12, text.find('\n', 40) + 1);
  EXPECT_FALSE(parse_listing("relforge-listing 2\n" + line + "end\n"));  // a file of no variant
  EXPECT_FALSE(parse_listing("relforge-listing 2\nvariant cpu\nvariant cpu\nend\n"));
  EXPECT_TRUE(parse_listing("relforge-listing 2\nend\n"));
}

class CachedFilesTest : public ::testing::Test {
protected:
  fs::path root() const { return m_dir.path() / "store"; }
  fs::path project_dir(const std::string& variant) const { return root() / "whl/nightly" / variant / "mini"; }
  fs::path cache() const { return root() / "whl/nightly/mini" / std::string(k_listing_cache); }
  void publish(const std::string& version) {
    PublishOptions options;
    options.root = root();
    options.files = {test::make_wheel(m_dir.path() / ("in-" + version), "mini", version)};
    options.upload_time = "2025-01-02T03:04:05Z";
    ASSERT_TRUE(run_publish(options));
  }
  std::string combined_json() {
    return platform::read_file(root() / "whl/nightly/mini/index.json").value_or("");
  }
  fs::path sidecar(const std::string& variant, const std::string& version) const {
    return project_dir(variant) / ("mini-" + version + "-py3-none-any.whl.info.json");
  }
  // A complete file (wheel and sidecar) the cache does not name, as a publish that crashed before
  // its pages leaves: mini 2.0+cpu, described by a copy of 1.0+cpu's sidecar. Returns the wheel.
  fs::path add_complete_file_behind_the_cache() {
    const auto extra = test::make_wheel(m_dir.path() / "in-extra", "mini", "2.0+cpu");
    const fs::path stored = project_dir("cpu") / extra.filename();
    fs::copy_file(extra, stored);
    auto info = info_from_json(platform::read_file(sidecar("cpu", "1.0+cpu")).value(), "t").value();
    info.filename = extra.filename().string();
    info.version = "2.0+cpu";
    EXPECT_TRUE(platform::write_file_atomic(stored.string() + ".info.json", info_to_json(info)));
    return stored;
  }
  // Rewrites a sidecar behind the cache's back; a page that still shows the old value read the cache.
  void set_requires_python(const fs::path& sidecar, const std::string& value) {
    auto info = info_from_json(platform::read_file(sidecar).value(), "test").value();
    info.requires_python = value;
    ASSERT_TRUE(platform::write_file_atomic(sidecar, info_to_json(info)));
  }
  test::ChannelTempDir m_dir;
};

TEST_F(CachedFilesTest, OneCachePerProjectHoldsEveryVariantAndARebuildRemovesTheOlderOnes) {
  publish("1.0+cpu");
  publish("1.0+cu126");
  ASSERT_TRUE(fs::exists(cache()));
  EXPECT_FALSE(fs::exists(project_dir("cpu") / std::string(k_listing_cache)));
  EXPECT_FALSE(fs::exists(project_dir("cu126") / std::string(k_listing_cache)));
  auto parsed = parse_listing(platform::read_file(cache()).value());
  ASSERT_TRUE(parsed);
  ASSERT_EQ(parsed->size(), 2u);
  EXPECT_EQ(parsed->at("cpu").at(0).filename, "mini-1.0+cpu-py3-none-any.whl");
  EXPECT_EQ(parsed->at("cu126").at(0).filename, "mini-1.0+cu126-py3-none-any.whl");
  // An older relforge's per-folder cache is removed by a rebuild, which rewrites the project's.
  const fs::path old = project_dir("cpu") / std::string(k_listing_cache);
  ASSERT_TRUE(platform::write_file_atomic(old, "relforge-listing 1\nend\n"));
  const std::string before = platform::read_file(cache()).value();
  fs::remove(cache());
  ASSERT_TRUE(rebuild_all(root()));
  EXPECT_FALSE(fs::exists(old));
  EXPECT_EQ(platform::read_file(cache()).value_or(""), before);
}

TEST_F(CachedFilesTest, ServesASectionOnlyWhileItNamesTheFolderExactly) {
  publish("1.0+cpu");
  publish("1.0+cu126");
  // A section that still names the folder's files is believed, even where a sidecar says otherwise.
  const std::string published =
      info_from_json(platform::read_file(sidecar("cpu", "1.0+cpu")).value(), "t").value().requires_python;
  set_requires_python(sidecar("cpu", "1.0+cpu"), ">=3.99");
  publish("1.1+cu126");
  EXPECT_EQ(combined_json().find(">=3.99"), std::string::npos);
  EXPECT_NE(combined_json().find(published), std::string::npos);
  // A file that appeared behind the cache's back (a publish that crashed before its pages) is seen,
  // and the folder's every file is read from its sidecars.
  const fs::path extra = add_complete_file_behind_the_cache();
  publish("1.2+cu126");
  EXPECT_NE(combined_json().find("../cpu/mini/mini-2.0%2Bcpu-py3-none-any.whl"), std::string::npos);
  EXPECT_NE(combined_json().find(">=3.99"), std::string::npos);
  // A removed file (a prune that crashed before its pages) is noticed too.
  fs::remove(extra);
  publish("1.3+cu126");
  EXPECT_EQ(combined_json().find("mini-2.0%2Bcpu"), std::string::npos);
  EXPECT_EQ(nlohmann::json::parse(combined_json())["files"].size(), 5u);
}

// A publish reads the folder it adds to from the cache too, plus what it added: a sidecar changed
// behind the cache's back shows only once the folder holds a file that neither names.
TEST_F(CachedFilesTest, APublishTakesItsOwnFolderFromTheCacheAndTheFilesItAdded) {
  publish("1.0+cpu");
  publish("1.1+cpu");
  const std::string published =
      info_from_json(platform::read_file(sidecar("cpu", "1.0+cpu")).value(), "t").value().requires_python;
  set_requires_python(sidecar("cpu", "1.0+cpu"), ">=3.99");
  publish("1.2+cpu");
  auto page = nlohmann::json::parse(combined_json());
  ASSERT_EQ(page["files"].size(), 3u);
  EXPECT_EQ(combined_json().find(">=3.99"), std::string::npos);
  EXPECT_NE(combined_json().find(published), std::string::npos);
  EXPECT_NE(combined_json().find("mini-1.2%2Bcpu-py3-none-any.whl"), std::string::npos);
  // The variant's own page and the cache agree with what a rebuild from the sidecars would give
  // for every file but the one changed behind their back.
  auto cached = parse_listing(platform::read_file(cache()).value());
  ASSERT_TRUE(cached);
  ASSERT_EQ(cached->at("cpu").size(), 3u);
  // A complete file the cache does not name (a publish that crashed before its pages): the whole
  // folder is read from its sidecars, the changed one included.
  add_complete_file_behind_the_cache();
  publish("1.3+cpu");
  page = nlohmann::json::parse(combined_json());
  EXPECT_EQ(page["files"].size(), 5u);
  EXPECT_NE(combined_json().find(">=3.99"), std::string::npos);
  EXPECT_NE(combined_json().find("mini-2.0%2Bcpu-py3-none-any.whl"), std::string::npos);
}

// Republishing a file already listed adds nothing: the cache still names the folder exactly.
TEST_F(CachedFilesTest, RepublishingTheSameFileKeepsThePagesAsTheyWere) {
  publish("1.0+cpu");
  const std::string before = combined_json();
  const std::string cached = platform::read_file(cache()).value();
  publish("1.0+cpu");
  EXPECT_EQ(combined_json(), before);
  EXPECT_EQ(platform::read_file(cache()).value(), cached);
}

TEST_F(CachedFilesTest, AnOlderStoresPerFolderCachesAreNeverRead) {
  publish("1.0+cpu");
  publish("1.0+cu126");
  // The store as an older relforge left it: per-folder caches (here a wrong one), none per project.
  fs::remove(cache());
  set_requires_python(sidecar("cpu", "1.0+cpu"), ">=3.99");
  std::vector<IndexedFile> stale = {
      {info_from_json(platform::read_file(sidecar("cpu", "1.0+cpu")).value(), "t").value(), ""}};
  stale[0].info.requires_python = ">=2.7";
  std::string old = render_listing({render_listing_section("cpu", stale)});
  old.replace(0, old.find("\nvariant cpu\n") + 13, "relforge-listing 1\n");
  ASSERT_TRUE(platform::write_file_atomic(project_dir("cpu") / std::string(k_listing_cache), old));
  publish("1.1+cu126");
  EXPECT_NE(combined_json().find(">=3.99"), std::string::npos);
  EXPECT_EQ(combined_json().find(">=2.7"), std::string::npos);
  EXPECT_TRUE(fs::exists(cache()));
}

ino_t inode(const fs::path& path) {
  struct stat info {};
  return ::stat(path.c_str(), &info) == 0 ? info.st_ino : 0;
}

TEST_F(CachedFilesTest, APublishRewritesOnlyThePagesWhoseContentChanged) {
  publish("1.0+cpu");
  const fs::path nightly = root() / "whl/nightly";
  const auto roots = {nightly / "index.html", nightly / "index.json", nightly / "cpu/index.html"};
  std::vector<ino_t> before;
  for (const auto& page : roots) before.push_back(inode(page));
  const ino_t project_page = inode(nightly / "cpu/mini/index.html");
  publish("1.1+cpu");  // the project is already listed: its root pages do not change
  std::size_t i = 0;
  for (const auto& page : roots) EXPECT_EQ(inode(page), before[i++]) << page;
  EXPECT_NE(inode(nightly / "cpu/mini/index.html"), project_page);
  ASSERT_TRUE(rebuild_all(root()));  // nothing changed: not a single page is replaced
  i = 0;
  for (const auto& page : roots) EXPECT_EQ(inode(page), before[i++]) << page;
}

TEST_F(CachedFilesTest, ACorruptCacheFallsBackToTheSidecars) {
  publish("1.0+cpu");
  ASSERT_TRUE(platform::write_file_atomic(cache(), "garbage"));
  publish("1.0+cu126");
  const auto page = nlohmann::json::parse(combined_json());
  EXPECT_EQ(page["files"].size(), 2u);
  EXPECT_EQ(parse_listing(platform::read_file(cache()).value()).value().size(), 2u);
}

TEST(FileInfoJson, SaysWhatIsWrongWithASidecar) {
  const auto good = info_to_json(odd_info());
  const auto parsed = info_from_json(good, "x.info.json");
  ASSERT_TRUE(parsed) << parsed.error().describe();
  EXPECT_EQ(info_to_json(*parsed), good);
  EXPECT_TRUE(info_from_json(R"({"filename":"a","project":"b","version":"1","sha256":"c","size":1,
                                 "extra":{"nested":[1,{"x":null}]}})",
                             "x"));
  const auto check = [](const std::string& text, const std::string& expected) {
    const auto result = info_from_json(text, "whl/cpu/mini/x.info.json");
    ASSERT_FALSE(result) << text;
    EXPECT_EQ(result.error().category(), ErrorCategory::integrity);
    EXPECT_NE(result.error().message().find("whl/cpu/mini/x.info.json"), std::string::npos);
    EXPECT_NE(result.error().message().find(expected), std::string::npos) << result.error().message();
  };
  check(R"({"filename":"a","project":"b","version":"1","sha256":"c"})", "required key");
  check(R"({"filename":"a","project":"b","version":"1","sha256":"c","size":"12"})", "'size' must be");
  check(R"({"filename":"a","project":"b","version":"1","sha256":"c","size":-1})", "'size' must be");
  check(R"({"filename":7,"project":"b","version":"1","sha256":"c","size":1})", "'filename' must be a string");
  check(R"({"filename":"a","project":"b","version":"1","sha256":"c","size":1,"yanked":"no"})", "'yanked'");
  check(R"([1,2])", "expected an object");
  check(R"("text")", "expected an object");
  check(R"({"filename":"a",)", "syntax error");
}

TEST(IndexJson, IsByteIdenticalToTheJsonLibrarysOutput) {
  auto info = odd_info();
  info.filename = "mini-1.0+cpu-py3-none-any.whl";
  info.requires_python = "ctl\x01\x1f\x7f\b\f\r\t end";
  FileInfo plain;
  plain.filename = "mini-0.9-py3-none-any.whl";
  plain.version = "0.9";
  plain.sha256 = std::string(64, 'd');
  const std::vector<IndexedFile> files = {{plain, "mini-0.9-py3-none-any.whl"},
                                          {info, "../cpu/mini/mini-1.0%2Bcpu-py3-none-any.whl"}};
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const auto& [i, url] : files) {
    list.push_back(
        {{"filename", i.filename},
         {"url", url},
         {"hashes", {{"sha256", i.sha256}}},
         {"requires-python", i.requires_python.empty() ? nlohmann::ordered_json(nullptr)
                                                       : nlohmann::ordered_json(i.requires_python)},
         {"core-metadata", i.metadata_sha256.empty()
                               ? nlohmann::ordered_json(false)
                               : nlohmann::ordered_json({{"sha256", i.metadata_sha256}})},
         {"yanked", i.yanked ? nlohmann::ordered_json(i.yanked_reason) : nlohmann::ordered_json(false)},
         {"size", i.size},
         {"upload-time",
          i.upload_time.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(i.upload_time)},
         {"provenance",
          i.provenance ? nlohmann::ordered_json(url + ".provenance") : nlohmann::ordered_json(nullptr)}});
  }
  const nlohmann::ordered_json page = {{"meta", {{"api-version", "1.3"}}},
                                       {"name", "mi\"ni"},
                                       {"versions", {"0.9", "1.0+cpu"}},
                                       {"files", list}};
  EXPECT_EQ(render_project_json("mi\"ni", files), page.dump() + "\n");
  const nlohmann::ordered_json root = {{"meta", {{"api-version", "1.3"}}},
                                       {"projects", {{{"name", "a"}}, {{"name", "b\\c"}}}}};
  EXPECT_EQ(render_root_json({"a", "b\\c"}), root.dump() + "\n");
}

}  // namespace
}  // namespace relforge::channels
