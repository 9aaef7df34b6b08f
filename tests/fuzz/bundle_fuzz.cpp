// The bundle reader as `relforge verify` runs it, on any text, against a fixed public key and a
// fixed file: it never crashes, and what it accepts binds that file's sha256 to that key. Along the
// way, the strict JSON reader and the DSSE envelope round-trip: what they accept reads back the same.
#include <unistd.h>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

#include "platform/digest.hpp"
#include "signing/bundle.hpp"
#include "signing/dsse.hpp"
#include "signing/strict_json.hpp"
#include "tests/fuzz/fuzz_check.hpp"

namespace {

namespace sg = relforge::signing;

constexpr std::string_view k_public_key = R"(-----BEGIN PUBLIC KEY-----
MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEVhVXcY/vuFwMQg2g9lbyDb4cBZxj
2azO1KspS1RQWxjGyHcqGdvikJv/e6HYqz71MvFapIfXbTiQMY6S5bK8Iw==
-----END PUBLIC KEY-----
)";
constexpr std::string_view k_wheel_bytes = "fuzz wheel bytes";

struct Fixture {
  sg::PublicKey key = sg::PublicKey::from_pem(k_public_key).value();
  std::filesystem::path wheel;
  Fixture() {
    const auto dir =
        std::filesystem::temp_directory_path() / ("relforge-bundle-fuzz-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    wheel = dir / "fuzz-1.0-py3-none-any.whl";
    std::ofstream(wheel, std::ios::binary) << k_wheel_bytes;
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const Fixture fixture;
  const std::string_view text(reinterpret_cast<const char*>(data), size);

  if (const auto parsed = sg::parse_strict_json(text, "input", sg::k_max_bundle_bytes)) {
    const auto again = sg::parse_strict_json(parsed->dump(), "dumped", sg::k_max_bundle_bytes * 8);
    FUZZ_CHECK(again && *again == *parsed, "strict JSON reads its own output back the same");
    if (const auto envelope =
            sg::envelope_from_json(parsed->contains("dsseEnvelope") ? (*parsed)["dsseEnvelope"] : *parsed)) {
      const auto back = sg::envelope_from_json(nlohmann::json::parse(sg::envelope_to_json(*envelope).dump()));
      FUZZ_CHECK(back && back->payload == envelope->payload && back->payload_type == envelope->payload_type &&
                     back->signatures.size() == envelope->signatures.size(),
                 "an envelope round-trips through its JSON");
    }
  }
  if (const auto decoded = sg::base64_decode(text)) {
    FUZZ_CHECK(sg::base64_decode(sg::base64_encode(*decoded)).value() == *decoded, "base64 round-trips");
  }

  const auto verified = sg::verify_bundle(fixture.wheel, text, fixture.key);
  if (!verified) {
    FUZZ_CHECK(!verified.error().message().empty(), "a refusal says why");
    return 0;
  }
  const std::string sha256 = relforge::platform::to_hex(relforge::platform::sha256(k_wheel_bytes));
  FUZZ_CHECK(verified->subject.sha256 == sha256, "an accepted bundle names the file's sha256");
  FUZZ_CHECK(verified->subject.name == fixture.wheel.filename().string(),
             "an accepted bundle names the file");
  FUZZ_CHECK(verified->key_id == fixture.key.key_id(), "an accepted bundle names the key");
  const auto envelope = sg::envelope_from_json(verified->envelope);
  FUZZ_CHECK(envelope && envelope->signatures.size() == 1 &&
                 fixture.key.verify(sg::pae(envelope->payload_type, envelope->payload),
                                    envelope->signatures[0].signature),
             "an accepted bundle's signature verifies over its PAE");
  return 0;
}
