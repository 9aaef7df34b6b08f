// FileChunks: a file read front to back through one reused buffer.
#include "platform/file_chunks.hpp"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "tests/support/e2e.hpp"

namespace relforge::platform {
namespace {

class FileChunksTest : public ::testing::Test {
protected:
  std::filesystem::path write(const std::string& name, const std::string& bytes) {
    const auto path = m_dir.path / name;
    std::ofstream(path, std::ios::binary) << bytes;
    return path;
  }

  // Every chunk of `path` read `chunk` bytes at a time, joined; the chunk sizes in `sizes`.
  static std::string read_all(const std::filesystem::path& path, std::size_t chunk,
                              std::vector<std::size_t>& sizes) {
    auto chunks = FileChunks::open(path, chunk);
    EXPECT_TRUE(chunks) << chunks.error().describe();
    std::string joined;
    while (true) {
      auto piece = chunks->next();
      EXPECT_TRUE(piece) << piece.error().describe();
      if (!piece || piece->empty()) break;
      sizes.push_back(piece->size());
      joined.append(*piece);
    }
    return joined;
  }

  test::TempDir m_dir;
};

TEST_F(FileChunksTest, TheChunksJoinToTheFileAndEachButTheLastIsFull) {
  std::string bytes;
  for (int i = 0; i < 10'000; ++i) bytes += "2026-12-02T07:30:00.0000000Z line " + std::to_string(i) + '\n';
  bytes += std::string(3, '\0') + "no newline at the end";
  const auto path = write("log.txt", bytes);
  for (std::size_t chunk : {1UL, 7UL, 4096UL, 65'537UL, bytes.size(), bytes.size() + 1, 1UL << 20}) {
    std::vector<std::size_t> sizes;
    EXPECT_EQ(read_all(path, chunk, sizes), bytes) << "chunk " << chunk;
    ASSERT_FALSE(sizes.empty());
    for (std::size_t i = 0; i + 1 < sizes.size(); ++i) EXPECT_EQ(sizes[i], chunk) << "chunk " << chunk;
    EXPECT_LE(sizes.back(), chunk);
  }
}

TEST_F(FileChunksTest, AnEmptyFileEndsAtOnce) {
  std::vector<std::size_t> sizes;
  EXPECT_EQ(read_all(write("empty.log", ""), 1 << 20, sizes), "");
  EXPECT_TRUE(sizes.empty());
}

// A live log: what was appended after the first chunk is read too.
TEST_F(FileChunksTest, WhatIsAppendedWhileReadingIsRead) {
  const auto path = write("live.log", std::string(10, 'a'));
  auto chunks = FileChunks::open(path, 8);
  ASSERT_TRUE(chunks);
  auto first = chunks->next();
  ASSERT_TRUE(first);
  EXPECT_EQ(*first, std::string(8, 'a'));
  std::ofstream(path, std::ios::app) << "bcdefgh";
  std::string rest;
  for (auto piece = chunks->next(); piece && !piece->empty(); piece = chunks->next()) rest.append(*piece);
  EXPECT_EQ(rest, "aabcdefgh");
}

TEST_F(FileChunksTest, AMissingFileIsNotFoundAndAFolderIsNoFile) {
  auto missing = FileChunks::open(m_dir.path / "absent.log");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().category(), ErrorCategory::not_found);
  EXPECT_NE(missing.error().describe().find("absent.log"), std::string::npos) << missing.error().describe();
  auto folder = FileChunks::open(m_dir.path);
  ASSERT_FALSE(folder);
  EXPECT_EQ(folder.error().category(), ErrorCategory::invalid_input);
  EXPECT_NE(folder.error().describe().find("not a regular file"), std::string::npos);
}

TEST_F(FileChunksTest, AFifoIsRefusedWithoutWaitingForAWriter) {
  const auto fifo = m_dir.path / "swapped.whl";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const auto started = std::chrono::steady_clock::now();
  auto chunks = FileChunks::open(fifo);  // no writer ever opens it: a blocking open waits for ever
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(2));
  ASSERT_FALSE(chunks);
  EXPECT_EQ(chunks.error().category(), ErrorCategory::invalid_input);
  EXPECT_NE(chunks.error().describe().find("not a regular file"), std::string::npos);
}

}  // namespace
}  // namespace relforge::platform
