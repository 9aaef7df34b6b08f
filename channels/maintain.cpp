#include "channels/maintain.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <system_error>

#include "channels/catalog.hpp"
#include "channels/identity.hpp"
#include "channels/index.hpp"
#include "channels/listing_cache.hpp"
#include "channels/tombstones.hpp"
#include "core/text.hpp"
#include "packaging/version.hpp"
#include "platform/digest.hpp"
#include "platform/private_dir.hpp"
#include "signing/bundle.hpp"

namespace relforge::channels {
namespace fs = std::filesystem;
namespace {

std::string folder_of(const std::string& wheel_key) {
  return wheel_key.substr(0, wheel_key.rfind('/'));
}

// Re-renders the pages of `touched` from the store, with `gone` (wheel keys) left out of the listing.
Status refresh_pages(ObjectStore& store, Channel channel, const std::set<ProjectRef>& touched,
                     const std::set<std::string>& gone, const StageHook& on_stage) {
  auto scan = scan_channel(store, channel);
  if (!scan) return tl::unexpected(scan.error());
  std::set<std::string> projects;
  for (const auto& ref : touched) projects.insert(ref.second);
  auto listing = read_listing(store, *scan, &projects, &touched);
  if (!listing) return tl::unexpected(listing.error());
  for (const auto& ref : touched) {
    auto& files = (*listing)[ref.first][ref.second];
    std::erase_if(files, [&](const FileInfo& info) {
      return gone.count(scan->folder_key(ref) + "/" + info.filename) != 0;
    });
  }
  auto pages = write_pages(store, *scan, std::move(*listing), &touched, on_stage);
  if (!pages) return tl::unexpected(pages.error());
  return {};
}

// Removes one stored file: the info first, so a crash leaves an unlisted wheel, never a listed
// missing one; the tombstone written before makes a rerun finish the job.
Status remove_file(ObjectStore& store, const std::string& key) {
  if (auto status = store.remove(key + ".info.json"); !status) return status;
  if (auto status = store.remove(key); !status) return status;
  for (const auto& suffix : sidecar_suffixes()) {
    if (auto status = store.remove(key + suffix); !status) return status;
  }
  return {};
}

}  // namespace

Result<std::vector<YankedFile>> run_yank(const YankOptions& options, ObjectStore& store) {
  // pip shows the reason to whoever installs: one line of text, never bytes a terminal acts on.
  if (!valid_yank_reason(options.reason))
    return fail(ErrorCategory::invalid_input,
                "--reason must be one line of UTF-8 text without control characters (pip shows it to "
                "whoever installs the file); nothing was yanked");
  const std::string filename = fs::path(options.filename).filename().string();
  const auto wanted = identity_of(filename);
  auto lock = store.lock();
  if (!lock) return tl::unexpected(lock.error());
  auto files = list_channel(store, options.channel);
  if (!files) return tl::unexpected(files.error());
  std::vector<YankedFile> yanked;
  std::set<ProjectRef> touched;
  for (auto& file : *files) {
    const auto identity = identity_of(file.info.filename);
    const bool match = wanted && identity ? *identity == *wanted : file.info.filename == filename;
    if (!match) continue;
    file.info.yanked = options.action == YankAction::yank;
    file.info.yanked_reason = file.info.yanked ? options.reason : "";
    // The file names stay, so the cached listing would not notice a crash before the pages.
    const std::string folder = folder_of(file.key);
    const std::string project = folder.substr(folder.rfind('/') + 1);
    if (auto status = store.remove(listing_cache_key(channel_key(options.channel), project)); !status)
      return tl::unexpected(status.error());
    if (auto status = store.put(file.key + ".info.json", info_to_json(file.info), k_json_content_type);
        !status)
      return tl::unexpected(status.error());
    touched.insert({file.variant, file.info.project});
    yanked.push_back({file.variant, file.info.filename});
  }
  if (yanked.empty()) {
    return fail(ErrorCategory::not_found, filename + " is not published in the " +
                                              std::string(channel_name(options.channel)) + " channel of " +
                                              store.describe(channel_key(options.channel)));
  }
  if (options.on_stage) options.on_stage("info-written");
  if (auto status = refresh_pages(store, options.channel, touched, {}, options.on_stage); !status)
    return tl::unexpected(status.error());
  return yanked;
}

Result<std::vector<YankedFile>> run_yank(const YankOptions& options) {
  FilesystemObjectStore store(options.root);
  return run_yank(options, store);
}

Result<PruneResult> run_prune(const PruneOptions& options, ObjectStore& store) {
  if (options.channel == Channel::stable) {
    return fail(ErrorCategory::invalid_input,
                "the stable channel is never pruned: stable releases stay installable for good; to stop "
                "pip choosing a bad file, yank it (relforge yank FILE --channel stable --reason ...)");
  }
  if (options.channel == Channel::test && options.test == TestPruning::refuse) {
    return fail(ErrorCategory::invalid_input,
                "pruning the test channel deletes release candidates for good (their names can never be "
                "published again); pass --allow-test to prune it");
  }
  std::unique_ptr<StoreLock> lock;
  if (options.dry_run == DryRun::no) {
    auto acquired = store.lock();
    if (!acquired) return tl::unexpected(acquired.error());
    lock = std::move(*acquired);
  }
  auto scan = scan_channel(store, options.channel);
  if (!scan) return tl::unexpected(scan.error());
  // Tombstones of earlier prunes: their files go whatever the selection (a prune interrupted after
  // its tombstones is finished by the next one).
  std::map<ProjectRef, std::vector<Tombstone>> stones;
  std::set<std::string> dead;
  for (const auto& [ref, wheels] : scan->folders) {
    const std::string relative = ref.first + "/" + ref.second + "/" + std::string(k_tombstones_file);
    if (!scan->has(relative)) continue;
    auto read = read_tombstones(store, scan->key(relative));
    if (!read) return tl::unexpected(read.error());
    for (const auto& stone : *read) dead.insert(stone.identity.key());
    stones[ref] = std::move(*read);
  }
  auto files = list_channel(store, options.channel);
  if (!files) return tl::unexpected(files.error());
  // Versions compare as PEP 440 says, never as spelt: a pin `2` keeps 2.0, and the variants of a
  // kept version stay however each spells it (1.0+cpu beside 1.0.0+cu126).
  std::vector<packaging::Version> pins;
  for (const auto& pin : options.pins) {
    auto parsed = packaging::parse_version(pin);
    if (!parsed) {
      return fail(ErrorCategory::invalid_input, "--pin '" + pin + "' is not a PEP 440 version (" +
                                                    parsed.error().message() + "); nothing was pruned");
    }
    pins.push_back(*packaging::parse_version(parsed->public_string()));
  }
  // Each file's public version, in list order; and per project the versions, newest first.
  std::vector<packaging::Version> file_versions;
  std::map<std::string, std::vector<packaging::Version>> versions;
  for (const auto& file : *files) {
    auto parsed = packaging::parse_version(file.info.version);
    if (!parsed) return tl::unexpected(parsed.error());
    file_versions.push_back(*packaging::parse_version(parsed->public_string()));
    auto& list = versions[file.info.project];
    if (std::find(list.begin(), list.end(), file_versions.back()) == list.end())
      list.push_back(file_versions.back());
  }
  for (auto& [project, list] : versions) {
    std::sort(list.begin(), list.end(), [](const auto& a, const auto& b) { return b < a; });
    list.resize(std::min(list.size(), options.keep));
  }
  const auto among = [](const std::vector<packaging::Version>& list, const packaging::Version& version) {
    return std::find(list.begin(), list.end(), version) != list.end();
  };
  PruneResult result;
  std::set<ProjectRef> touched;
  for (std::size_t i = 0; i < files->size(); ++i) {
    const auto& file = (*files)[i];
    const auto identity = identity_of(file.info.filename);
    const bool tombstoned = identity && dead.count(identity->key()) != 0;
    if (!tombstoned &&
        (among(versions[file.info.project], file_versions[i]) || among(pins, file_versions[i]))) {
      ++result.kept_files;
      continue;
    }
    result.removed.push_back(file);
    touched.insert({file.variant, file.info.project});
  }
  if (options.dry_run == DryRun::yes) return result;

  // 1. Tombstones, so that no name freed below can take other bytes, even after a crash.
  std::map<ProjectRef, std::vector<Tombstone>> added;
  for (const auto& file : result.removed) {
    auto identity = identity_of(file.info.filename);
    if (!identity) return tl::unexpected(identity.error());
    added[{file.variant, file.info.project}].push_back(
        {file.info.filename, std::move(*identity), file.info.sha256, options.deleted_at,
         "pruned (keep " + std::to_string(options.keep) + ")"});
  }
  for (const auto& [ref, list] : added) {
    if (auto status =
            add_tombstones(store, scan->folder_key(ref) + "/" + std::string(k_tombstones_file), list);
        !status) {
      return tl::unexpected(status.error());
    }
    auto& all = stones[ref];
    all.insert(all.end(), list.begin(), list.end());
  }
  if (options.on_stage) options.on_stage("tombstoned");
  // 2. Pages without the files, so no page ever names a removed file.
  std::set<std::string> gone;
  for (const auto& file : result.removed) gone.insert(file.key);
  if (auto status = refresh_pages(store, options.channel, touched, gone, options.on_stage); !status)
    return tl::unexpected(status.error());
  // 3. The files.
  for (const auto& file : result.removed) {
    if (auto status = remove_file(store, file.key); !status) return tl::unexpected(status.error());
    if (options.on_stage) options.on_stage("file-removed");
  }
  // What interrupted prunes left: objects of tombstoned files that were not complete files.
  for (const auto& [ref, list] : stones) {
    for (const auto& stone : list) {
      const std::string relative = ref.first + "/" + ref.second + "/" + stone.filename;
      if (gone.count(scan->key(relative))) continue;
      bool any = scan->has(relative);
      for (const auto& suffix : sidecar_suffixes()) any = any || scan->has(relative + suffix);
      if (!any) continue;
      if (auto status = remove_file(store, scan->key(relative)); !status)
        return tl::unexpected(status.error());
      ++result.leftovers;
    }
  }
  return result;
}

Result<PruneResult> run_prune(const PruneOptions& options) {
  FilesystemObjectStore store(options.root);
  return run_prune(options, store);
}

namespace {

// Every expected file of the wanted version is in the plan and signed, and the plan holds nothing
// else; otherwise one error naming each blocker. Returns how many cells were checked.
Result<std::size_t> check_complete(const PromoteOptions& options, const packaging::Version& wanted,
                                   const std::vector<StoredFile>& plan) {
  std::map<std::string, const StoredFile*> by_identity;
  for (const auto& file : plan) {
    if (auto id = identity_of(file.info.filename)) by_identity.emplace(id->key(), &file);
  }
  std::vector<std::string> blockers;
  std::set<std::string> claimed;
  std::size_t cells = 0, ready = 0;
  for (const auto& expected : options.expected_files) {
    auto id = identity_of(expected.filename);
    if (!id)
      return tl::unexpected(id.error().with_context("the release matrix's file for cell " + expected.cell));
    auto version = packaging::parse_version(id->version);
    if (!version) return tl::unexpected(version.error());
    const bool wanted_version = wanted.has_local()
                                    ? *version == wanted
                                    : packaging::parse_version(version->public_string()).value() == wanted;
    if (!wanted_version) continue;
    ++cells;
    const auto found = by_identity.find(id->key());
    if (found == by_identity.end()) {
      blockers.push_back("cell " + expected.cell + ": " + expected.filename + " is not in the " +
                         std::string(channel_name(options.from)) + " channel (build and publish it)");
      continue;
    }
    claimed.insert(id->key());
    if (!found->second->info.provenance) {
      blockers.push_back("cell " + expected.cell + ": " + found->second->variant + "/" +
                         found->second->info.filename + " is not signed (relforge sign, then publish again)");
    } else {
      ++ready;
    }
  }
  for (const auto& [key, file] : by_identity) {
    if (!claimed.contains(key)) {
      blockers.push_back(file->variant + "/" + file->info.filename +
                         " is no cell of the release matrix (remove it from the channel, or add its cell)");
    }
  }
  if (cells == 0) {
    return fail(ErrorCategory::invalid_input, "the release matrix has no cell of version " + options.version +
                                                  "; check --version and the matrix channel");
  }
  if (!blockers.empty()) {
    return fail(ErrorCategory::invalid_input, "release " + options.version + " is incomplete in the " +
                                                  std::string(channel_name(options.from)) + " channel (" +
                                                  std::to_string(ready) + " of " + std::to_string(cells) +
                                                  " cells ready); nothing was promoted:\n  " +
                                                  core::join(blockers, "\n  "));
  }
  return cells;
}

// A yanked file was withdrawn from where it was tested: promoting it would publish it unyanked.
Status refuse_yanked(const PromoteOptions& options, const std::vector<StoredFile>& plan) {
  std::vector<std::string> yanked;
  for (const auto& file : plan) {
    if (!file.info.yanked) continue;
    yanked.push_back(file.variant + "/" + file.info.filename +
                     (file.info.yanked_reason.empty() ? "" : " (yanked: " + file.info.yanked_reason + ")"));
  }
  if (yanked.empty()) return {};
  return fail(ErrorCategory::conflict,
              "version " + options.version + " has files yanked in the " +
                  std::string(channel_name(options.from)) +
                  " channel, and a yanked file is never promoted: " + core::join(yanked, ", ") +
                  "; publish a fixed build and promote that, or un-yank the file "
                  "('relforge yank --undo') if it was yanked by mistake; nothing "
                  "was promoted");
}

// The plan's records as they are now: read again under the store's lock, so that a yank or prune
// that landed since the plan was made is seen before anything is copied.
Result<std::vector<StoredFile>> reread_plan(ObjectStore& store, const std::vector<StoredFile>& plan) {
  std::vector<StoredFile> now = plan;
  for (auto& file : now) {
    const std::string key = file.key + ".info.json";
    auto text = store.get(key);
    if (!text) return tl::unexpected(text.error());
    if (!text->has_value()) {
      return fail(
          ErrorCategory::conflict,
          store.describe(file.key) + " was removed while it was being promoted; nothing was promoted");
    }
    auto info = info_from_json(**text, store.describe(key));
    if (!info) return tl::unexpected(info.error());
    if (info->sha256 != file.info.sha256) {
      return fail(ErrorCategory::conflict,
                  store.describe(file.key) + " changed while it was being promoted; nothing was promoted");
    }
    file.info = std::move(*info);
  }
  return now;
}

// The publish to the target, with the yank check made again under the same hold of the store's
// lock: yank, prune and publish all take it, so what is checked here is what gets copied.
Result<std::vector<PublishedFile>> publish_under_lock(const PromoteOptions& options,
                                                      const PublishOptions& publish,
                                                      const std::vector<StoredFile>& plan,
                                                      ObjectStore& store) {
  auto checked = prepare_publish(publish);
  if (!checked) return tl::unexpected(checked.error());
  if (publish.on_stage) publish.on_stage("checked");
  auto lock = store.lock();
  if (!lock) return tl::unexpected(lock.error());
  auto now = reread_plan(store, plan);
  if (!now) return tl::unexpected(now.error());
  if (auto status = refuse_yanked(options, *now); !status) return tl::unexpected(status.error());
  return publish_prepared(publish, std::move(*checked), store, **lock);
}

}  // namespace

Result<PromoteResult> run_promote(const PromoteOptions& options, ObjectStore& store) {
  if (options.from == options.to)
    return fail(ErrorCategory::invalid_input, "--from and --to name the same channel");
  auto wanted = packaging::parse_version(options.version);
  if (!wanted) return tl::unexpected(wanted.error());
  auto files = list_channel(store, options.from);
  if (!files) return tl::unexpected(files.error());
  PromoteResult result;
  std::set<std::string> variants;
  for (auto& file : *files) {
    auto version = packaging::parse_version(file.info.version);
    if (!version) continue;
    const bool match = wanted->has_local()
                           ? *version == *wanted
                           : packaging::parse_version(version->public_string()).value() == *wanted;
    if (!match) continue;
    variants.insert(file.variant);
    result.plan.push_back(std::move(file));
  }
  if (result.plan.empty()) {
    return fail(ErrorCategory::nothing_selected, "no files of version " + options.version + " in the " +
                                                     std::string(channel_name(options.from)) +
                                                     " channel; nothing to promote");
  }
  std::vector<std::string> missing;
  for (const auto& variant : options.expect_variants) {
    if (!variants.contains(variant)) missing.push_back(variant);
  }
  if (!missing.empty()) {
    return fail(ErrorCategory::invalid_input, "version " + options.version + " is incomplete in the " +
                                                  std::string(channel_name(options.from)) +
                                                  " channel: no files for " + core::join(missing, ", ") +
                                                  "; nothing was promoted");
  }
  if (auto status = refuse_yanked(options, result.plan); !status) return tl::unexpected(status.error());
  if (!options.expected_files.empty()) {
    auto complete = check_complete(options, *wanted, result.plan);
    if (!complete) return tl::unexpected(complete.error());
    result.cells_checked = *complete;
  }
  // Publish and staging read local files: a folder's own, or downloads (with their bundles) from
  // a bucket.
  const bool downloads = std::any_of(result.plan.begin(), result.plan.end(),
                                     [&](const StoredFile& file) { return !store.local_path(file.key); });
  std::optional<platform::PrivateDir> work;  // the downloads, removed on every way out
  if (downloads) {
    auto parent = scratch_folder(options.work_dir);
    if (!parent) return tl::unexpected(parent.error());
    std::error_code error;
    fs::create_directories(*parent, error);
    if (error) return fail(ErrorCategory::io, "cannot create " + parent->string() + ": " + error.message());
    auto made = platform::PrivateDir::create("relforge-promote-", "for the files to promote", *parent);
    if (!made) return tl::unexpected(made.error());
    work = std::move(*made);
  }
  std::vector<StoredFile> local = result.plan;
  for (auto& file : local) {
    if (auto path = store.local_path(file.key)) {
      file.path = *path;
      continue;
    }
    const fs::path target = work->path() / file.variant / file.info.filename;
    std::error_code error;
    fs::create_directories(target.parent_path(), error);
    if (error)
      return fail(ErrorCategory::io,
                  "cannot create " + target.parent_path().string() + ": " + error.message());
    // No more than the record says: the sha256 check below then refuses anything else.
    if (auto status = store.download(file.key, target, file.info.size); !status)
      return tl::unexpected(status.error());
    if (file.info.provenance) {
      if (auto status = store.download(file.key + ".sigstore.json", target.string() + ".sigstore.json",
                                       signing::k_max_bundle_bytes);
          !status)
        return tl::unexpected(status.error());
    }
    file.path = target;
  }
  for (const auto& file : local) {
    auto digest = platform::sha256_file(file.path);
    if (!digest) return tl::unexpected(digest.error());
    if (platform::to_hex(*digest) != file.info.sha256) {
      return fail(ErrorCategory::integrity, store.describe(file.key) + " has sha256 " +
                                                platform::to_hex(*digest) + " but the index says " +
                                                file.info.sha256 +
                                                "; the store is corrupt, nothing was promoted");
    }
  }
  if (options.pypi_staging) {
    auto staged = plan_pypi_staging(local, options.pypi_variants, *options.pypi_staging);
    if (!staged) return tl::unexpected(staged.error().with_context("--pypi-staging"));
    result.staged = std::move(*staged);
  }
  // One publish for all files: it checks every input (signatures included) before it writes any.
  PublishOptions publish;
  publish.root = options.root;
  publish.channel = options.to;
  publish.signatures = options.signatures;
  publish.public_key = options.public_key;
  publish.upload_time = options.upload_time;
  publish.on_stage = options.on_stage;
  for (const auto& file : local) {
    publish.files.push_back(file.path);
    publish.file_variants.push_back(file.variant);
  }
  // A dry run answers what the promote would: the target channel's signature policy included.
  if (options.dry_run == DryRun::yes) {
    if (auto checked = prepare_publish(publish); !checked) return tl::unexpected(checked.error());
    return result;
  }
  // The PyPI copies are built (and checked against what the folder holds) before anything is
  // promoted, and renamed in only after the promote succeeded.
  if (options.pypi_staging) {
    if (auto built = build_pypi_copies(result.staged, *options.pypi_staging); !built) {
      return tl::unexpected(built.error());
    }
  }
  auto published = publish_under_lock(options, publish, result.plan, store);
  if (!published) {
    if (options.pypi_staging) discard_pypi_copies(*options.pypi_staging);
    return tl::unexpected(published.error());
  }
  result.published = std::move(*published);
  if (options.pypi_staging) {
    if (auto committed = commit_pypi_copies(result.staged, *options.pypi_staging); !committed) {
      return tl::unexpected(committed.error());
    }
  }
  return result;
}

Result<PromoteResult> run_promote(const PromoteOptions& options) {
  FilesystemObjectStore store(options.root);
  return run_promote(options, store);
}

}  // namespace relforge::channels
