// ZIP64: a wheel whose big entry is over 4 GiB uncompressed (zeros, deflated to a few MB by
// Python's zipfile) is repaired by relforge, then opened by Python's zipfile and read whole through
// the wheel package's WheelFile, which checks every entry's CRC and RECORD hash as `wheel unpack`
// does, without writing the 4 GiB to disk.
#include <gtest/gtest.h>

#include <filesystem>

#include "packaging/wheel_archive.hpp"
#include "packaging/wheel_repair.hpp"
#include "tests/support/run.hpp"

namespace relforge::packaging {
namespace {

namespace fs = std::filesystem;

constexpr std::uint64_t k_big = (std::uint64_t{4} << 30) + (std::uint64_t{1} << 20);  // 4 GiB + 1 MiB

// Writes demo-1.0-cp311-cp311-linux_x86_64.whl with demo/big.bin = k_big zero bytes, streamed.
constexpr const char* k_make_wheel = R"(
import base64, hashlib, sys, zipfile
path, size = sys.argv[1], int(sys.argv[2])
chunk = bytes(64 << 20)
h = hashlib.sha256()
files = {"demo/__init__.py": b"X = 1\n",
         "demo-1.0.dist-info/METADATA": b"Metadata-Version: 2.1\nName: demo\nVersion: 1.0\n",
         "demo-1.0.dist-info/WHEEL": b"Wheel-Version: 1.0\nGenerator: t\nRoot-Is-Purelib: false\nTag: cp311-cp311-linux_x86_64\n"}
def rec(p, d, n): return p + ",sha256=" + base64.urlsafe_b64encode(d).rstrip(b"=").decode() + "," + str(n)
with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as z:
    for p, d in files.items(): z.writestr(p, d)
    with z.open("demo/big.bin", "w", force_zip64=True) as f:
        left = size
        while left:
            part = chunk[:min(left, len(chunk))]
            f.write(part); h.update(part); left -= len(part)
    lines = [rec(p, hashlib.sha256(d).digest(), len(d)) for p, d in files.items()]
    lines.append(rec("demo/big.bin", h.digest(), size))
    z.writestr("demo-1.0.dist-info/RECORD", "\n".join(lines + ["demo-1.0.dist-info/RECORD,,"]) + "\n")
)";

// Reads the repaired wheel's directory the way Python's zipfile does (sizes from the ZIP64 fields),
// then every entry through wheel.wheelfile.WheelFile, the reader behind `wheel unpack`: a CRC or
// RECORD hash that does not match raises at the entry's end.
constexpr const char* k_check_wheel = R"(
import sys, zipfile
from wheel.wheelfile import WheelFile
with zipfile.ZipFile(sys.argv[1]) as z:
    big = z.getinfo("demo/big.bin")
    print(big.file_size, big.compress_type, len(z.namelist()))
read = {}
with WheelFile(sys.argv[1]) as wheel:
    for info in wheel.infolist():
        with wheel.open(info) as entry:
            read[info.filename] = 0
            while chunk := entry.read(1 << 16):  # 1 MiB reads cost 3x the CPU
                read[info.filename] += len(chunk)
print(len(read), read["demo/big.bin"])
)";

TEST(WheelZip64, RepairsAWheelOver4GiBThatZipfileAndWheelFileReadWholeSlow) {
  const auto dir = fs::temp_directory_path() / ("relforge-zip64-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "out");
  const auto input = dir / "demo-1.0-cp311-cp311-linux_x86_64.whl";
  const auto made = test::run_shell("/usr/bin/python3 -c " + test::shell_quote(k_make_wheel) + " " +
                                    test::shell_quote(input.string()) + " " + std::to_string(k_big));
  ASSERT_EQ(made.exit_code, 0) << made.err;
  ASSERT_LT(fs::file_size(input), std::uint64_t{64} << 20);  // zeros deflate to a few MB

  const auto repaired = repair_wheel({input, dir / "out", "manylinux_2_28_x86_64", "cpu", std::nullopt});
  ASSERT_TRUE(repaired) << repaired.error().describe();
  EXPECT_EQ(repaired->output.filename(), "demo-1.0+cpu-cp311-cp311-manylinux_2_28_x86_64.whl");
  EXPECT_EQ(repaired->copied, 2u);  // __init__.py and big.bin: copied still compressed

  // relforge reads its own output back: the big entry's size survives the round trip.
  const auto reader = ZipReader::open(repaired->output);
  ASSERT_TRUE(reader) << reader.error().describe();
  bool found = false;
  for (const auto& entry : reader->entries())
    if (entry.name == "demo/big.bin") {
      found = true;
      EXPECT_EQ(entry.size, k_big);
    }
  EXPECT_TRUE(found);

  const auto checked = test::run_shell("/usr/bin/python3 -c " + test::shell_quote(k_check_wheel) + " " +
                                       test::shell_quote(repaired->output.string()));
  ASSERT_EQ(checked.exit_code, 0) << checked.err;
  // Every entry read to its end: any CRC or RECORD hash that did not match would have raised.
  EXPECT_EQ(checked.out, std::to_string(k_big) + " 8 5\n5 " + std::to_string(k_big) + "\n");
  fs::remove_all(dir);
}

}  // namespace
}  // namespace relforge::packaging
