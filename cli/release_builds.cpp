#include "cli/release_builds.hpp"

#include <map>

#include "channels/catalog.hpp"
#include "channels/object_store.hpp"
#include "cli/release_matrix.hpp"

namespace relforge::cli {

ReleaseBuilds join_release_builds(const std::vector<channels::ExpectedFile>& expected,
                                  const std::vector<channels::StoredFile>& test,
                                  const std::set<std::string>& test_keys,
                                  const std::vector<channels::StoredFile>& stable) {
  std::map<std::string, const channels::StoredFile*> in_test;
  for (const auto& file : test) in_test[file.info.filename] = &file;
  std::set<std::string> in_stable;
  for (const auto& file : stable) in_stable.insert(file.info.filename);
  ReleaseBuilds builds;
  for (const auto& want : expected) {
    CellBuild cell{want.cell, want.filename};
    const auto found = in_test.find(want.filename);
    cell.published = found != in_test.end() && !found->second->info.yanked;
    if (found != in_test.end()) {
      cell.signed_ = test_keys.count(found->second->key + ".provenance") != 0 &&
                     test_keys.count(found->second->key + ".sigstore.json") != 0;
    }
    cell.promoted = in_stable.count(want.filename) != 0;
    const std::string who = want.cell + ": " + want.filename;
    if (found == in_test.end() && !cell.promoted)
      builds.blockers.push_back(who + " is not published to the test channel");
    else if (found != in_test.end() && found->second->info.yanked)
      builds.blockers.push_back(who + " is yanked in the test channel");
    else if (found != in_test.end() && !cell.signed_)
      builds.blockers.push_back(who + " is not signed (no .provenance and .sigstore.json beside it)");
    if (!cell.promoted) builds.blockers.push_back(who + " is not promoted to stable");
    builds.cells.push_back(std::move(cell));
  }
  return builds;
}

Result<ReleaseBuilds> read_release_builds(const std::filesystem::path& root,
                                          const std::filesystem::path& config, const std::string& version,
                                          const std::string& rc) {
  if (!std::filesystem::is_directory(root))
    return fail(ErrorCategory::not_found, "no channel store at " + root.string() + " (--store)");
  auto expected = release_matrix_files(config, "release", version);
  if (!expected) return tl::unexpected(expected.error());
  channels::FilesystemObjectStore store(root);
  auto test = channels::list_channel(store, channels::Channel::test);
  if (!test) return tl::unexpected(test.error());
  auto stable = channels::list_channel(store, channels::Channel::stable);
  if (!stable) return tl::unexpected(stable.error());
  auto keys = store.list(channels::channel_key(channels::Channel::test) + "/");
  if (!keys) return tl::unexpected(keys.error());
  std::set<std::string> test_keys;
  for (const auto& object : *keys) test_keys.insert(object.key);
  ReleaseBuilds builds = join_release_builds(*expected, *test, test_keys, *stable);
  builds.version = version;
  builds.rc = rc;
  if (rc.empty())
    builds.blockers.insert(builds.blockers.begin(), "no RC is tagged yet: run 'relforge release rc'");
  return builds;
}

}  // namespace relforge::cli
