// Zip entries inflated by raw_inflate: what comes out is what zlib deflated, in any read steps,
// and every way an entry's bytes can disagree with its headers is refused with its own message.
#include "packaging/raw_inflate.hpp"

#include <gtest/gtest.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>

#include "packaging/wheel_archive.hpp"

namespace relforge::packaging {
namespace {

namespace fs = std::filesystem;

std::string deflate_raw(const std::string& data, int level = 6) {
  z_stream z{};
  EXPECT_EQ(deflateInit2(&z, level, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY), Z_OK);
  std::string out(deflateBound(&z, data.size()), '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  z.avail_in = static_cast<uInt>(data.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&z, Z_FINISH), Z_STREAM_END);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

std::uint32_t crc_of(const std::string& data) {
  return static_cast<std::uint32_t>(crc32_z(0, reinterpret_cast<const Bytef*>(data.data()), data.size()));
}

// Text-like bytes with long repeats and random stretches: every kind of deflate block.
std::string sample(std::size_t size, unsigned seed = 7) {
  std::mt19937 random(seed);
  std::string out;
  while (out.size() < size) {
    if (random() % 3 == 0) {
      for (int i = 0; i < 200; ++i) out.push_back(static_cast<char>(random()));
    } else {
      out += "libtorch_cuda.so: undefined symbol " + std::to_string(random() % 1000) + "\n";
    }
  }
  out.resize(size);
  return out;
}

struct Outcome {
  Result<Inflated> result;
  std::string bytes;
};

// Inflates `compressed`, handing it over `step` bytes per read.
Outcome inflate(const std::string& compressed, std::size_t step, std::uint64_t limit = UINT64_MAX) {
  std::size_t at = 0;
  std::string bytes;
  auto read = [&](char* into, std::size_t size) -> Result<std::size_t> {
    const std::size_t n = std::min({size, step, compressed.size() - at});
    std::memcpy(into, compressed.data() + at, n);
    at += n;
    return n;
  };
  auto result = inflate_raw(read, limit, [&](std::string_view chunk) { bytes.append(chunk); });
  return {std::move(result), std::move(bytes)};
}

TEST(RawInflate, GivesBackWhatZlibDeflatedWithItsSizeAndCrcInAnyReadSteps) {
  for (const std::size_t size : {std::size_t{0}, std::size_t{1}, std::size_t{70000}, std::size_t{3} << 20}) {
    const std::string data = sample(size);
    for (const int level : {0, 1, 9}) {
      const std::string compressed = deflate_raw(data, level);
      for (const std::size_t step : {std::size_t{1} << 20, std::size_t{4099}, std::size_t{1}}) {
        if (step == 1 && size > 70000) continue;  // a byte per read over MiBs only slows the test
        auto out = inflate(compressed, step);
        ASSERT_TRUE(out.result) << out.result.error().message();
        EXPECT_EQ(out.bytes, data) << size << " bytes, level " << level << ", step " << step;
        EXPECT_EQ(out.result->size, data.size());
        EXPECT_EQ(out.result->crc32, crc_of(data));
      }
    }
  }
}

TEST(RawInflate, CorruptDataIsRefused) {
  const std::string compressed = deflate_raw(sample(200000));
  std::size_t refused = 0;
  for (std::size_t at = 0; at < compressed.size(); at += compressed.size() / 50) {
    std::string bad = compressed;
    bad[at] = static_cast<char>(bad[at] ^ 0x5a);
    auto out = inflate(bad, 65536);
    // A flip may still decode (to other bytes: the CRC check above this layer catches those).
    if (!out.result) {
      ++refused;
      const std::string& text = out.result.error().message();
      EXPECT_TRUE(text.starts_with("is corrupt: ") || text.starts_with("ends before") ||
                  text.starts_with("has bytes after"))
          << text;
    }
  }
  EXPECT_GT(refused, 0u);
  // Not deflate at all: a block type 3 does not exist.
  auto out = inflate(std::string("\xff\xff\xff\xff", 4), 16);
  ASSERT_FALSE(out.result);
  EXPECT_EQ(out.result.error().message().rfind("is corrupt: ", 0), 0u) << out.result.error().message();
}

TEST(RawInflate, AStreamThatEndsEarlyIsTruncated) {
  const std::string compressed = deflate_raw(sample(100000));
  for (const std::size_t cut :
       {std::size_t{0}, std::size_t{1}, compressed.size() / 2, compressed.size() - 1}) {
    auto out = inflate(compressed.substr(0, cut), 4096);
    ASSERT_FALSE(out.result) << "cut at " << cut;
    EXPECT_EQ(out.result.error().message(), "ends before its deflate stream does (truncated)");
  }
}

TEST(RawInflate, BytesAfterTheStreamAreRefusedInTheSameReadOrALaterOne) {
  const std::string compressed = deflate_raw(sample(5000));
  for (const std::size_t step : {std::size_t{1} << 20, compressed.size()}) {
    auto out = inflate(compressed + "PK\x03\x04 hidden", step);
    ASSERT_FALSE(out.result) << "step " << step;
    EXPECT_EQ(out.result.error().message(), "has bytes after the end of its deflate stream");
  }
}

TEST(RawInflate, AZipBombStopsJustPastTheLimit) {
  const std::string compressed = deflate_raw(std::string(std::size_t{256} << 20, '\0'), 9);  // ~256 KiB
  constexpr std::uint64_t k_limit = 1 << 20;
  auto out = inflate(compressed, 65536, k_limit);
  ASSERT_TRUE(out.result);
  EXPECT_GT(out.result->size, k_limit);
  EXPECT_LE(out.bytes.size(), k_limit + (256 << 10));  // one output step past it, no more
}

TEST(RawInflate, AReadErrorIsPassedOnAsItIs) {
  auto read = [](char*, std::size_t) -> Result<std::size_t> {
    return fail(ErrorCategory::io, "cannot be read: disk on fire");
  };
  auto result = inflate_raw(read, UINT64_MAX, [](std::string_view) {});
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().category(), ErrorCategory::io);
  EXPECT_EQ(result.error().message(), "cannot be read: disk on fire");
}

// One deflated entry whose headers say `crc` and `size` whatever its bytes are, as a zip file.
class LyingEntryTest : public ::testing::Test {
protected:
  void SetUp() override {
    m_path = fs::temp_directory_path() /
             ("relforge-lying-" + std::to_string(::getpid()) + "-" +
              ::testing::UnitTest::GetInstance()->current_test_info()->name() + ".zip");
  }
  void TearDown() override { fs::remove(m_path); }

  static void put16(std::string& out, std::uint32_t v) {
    out.push_back(static_cast<char>(v & 0xff));
    out.push_back(static_cast<char>((v >> 8) & 0xff));
  }
  static void put32(std::string& out, std::uint32_t v) {
    put16(out, v & 0xffff);
    put16(out, v >> 16);
  }

  Result<std::string> read_entry(const std::string& compressed, std::uint32_t crc, std::uint32_t size) {
    const std::string name = "demo/data.bin";
    std::string local;
    put32(local, 0x04034b50);
    for (const std::uint32_t v : {20u, 0u, 8u, 0u, 0x21u}) put16(local, v);
    put32(local, crc);
    put32(local, static_cast<std::uint32_t>(compressed.size()));
    put32(local, size);
    put16(local, static_cast<std::uint32_t>(name.size()));
    put16(local, 0);
    local += name + compressed;
    std::string central;
    put32(central, 0x02014b50);
    for (const std::uint32_t v : {20u, 20u, 0u, 8u, 0u, 0x21u}) put16(central, v);
    put32(central, crc);
    put32(central, static_cast<std::uint32_t>(compressed.size()));
    put32(central, size);
    for (const std::uint32_t v : {static_cast<std::uint32_t>(name.size()), 0u, 0u, 0u, 0u}) put16(central, v);
    put32(central, 0);
    put32(central, 0);  // the local header's offset
    central += name;
    std::string end;
    put32(end, 0x06054b50);
    for (const std::uint32_t v : {0u, 0u, 1u, 1u}) put16(end, v);
    put32(end, static_cast<std::uint32_t>(central.size()));
    put32(end, static_cast<std::uint32_t>(local.size()));
    put16(end, 0);
    std::ofstream(m_path, std::ios::binary) << local << central << end;
    auto reader = ZipReader::open(m_path);
    if (!reader) return tl::unexpected(reader.error());
    return reader->read(reader->entries().at(0));
  }

  fs::path m_path;
};

TEST_F(LyingEntryTest, AnHonestEntryReadsBack) {
  const std::string data = sample(30000);
  auto read = read_entry(deflate_raw(data), crc_of(data), static_cast<std::uint32_t>(data.size()));
  ASSERT_TRUE(read) << read.error().describe();
  EXPECT_EQ(*read, data);
}

TEST_F(LyingEntryTest, AWrongCrcIsRefused) {
  const std::string data = sample(30000);
  auto read = read_entry(deflate_raw(data), crc_of(data) ^ 1, static_cast<std::uint32_t>(data.size()));
  ASSERT_FALSE(read);
  EXPECT_NE(
      read.error().message().find("entry 'demo/data.bin' is corrupt: its CRC-32 does not match its bytes"),
      std::string::npos)
      << read.error().message();
}

// libzip reads both of these without a word; Python's zipfile reads the declared size only.
TEST_F(LyingEntryTest, ASizeOtherThanTheBytesInflateToIsRefusedEitherWay) {
  const std::string data = sample(30000);
  auto shorter = read_entry(deflate_raw(data), crc_of(data), 29995);
  ASSERT_FALSE(shorter);
  EXPECT_NE(shorter.error().message().find("inflates to more than the 29995 bytes it declares"),
            std::string::npos)
      << shorter.error().message();
  auto longer = read_entry(deflate_raw(data), crc_of(data), 30005);
  ASSERT_FALSE(longer);
  EXPECT_NE(longer.error().message().find("inflates to 30000 bytes, but declares 30005"), std::string::npos)
      << longer.error().message();
}

TEST_F(LyingEntryTest, BytesHiddenAfterTheDeflateStreamAreRefused) {
  const std::string data = sample(30000);
  auto read =
      read_entry(deflate_raw(data) + "second payload", crc_of(data), static_cast<std::uint32_t>(data.size()));
  ASSERT_FALSE(read);
  EXPECT_NE(
      read.error().message().find("entry 'demo/data.bin' has bytes after the end of its deflate stream"),
      std::string::npos)
      << read.error().message();
}

TEST_F(LyingEntryTest, ATruncatedStreamIsRefused) {
  const std::string data = sample(30000);
  const std::string compressed = deflate_raw(data);
  auto read = read_entry(compressed.substr(0, compressed.size() / 2), crc_of(data),
                         static_cast<std::uint32_t>(data.size()));
  ASSERT_FALSE(read);
  EXPECT_NE(read.error().message().find("entry 'demo/data.bin' ends before its deflate stream does"),
            std::string::npos)
      << read.error().message();
}

}  // namespace
}  // namespace relforge::packaging
