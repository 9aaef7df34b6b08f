// PEP 440 version parsing: any bytes either fail cleanly or give a version whose normal form
// parses back to the same fields and prints the same (a fixed point), and comparison is a total
// order: antisymmetric between the two halves of the input and consistent with same_base.
#include <compare>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "packaging/version.hpp"
#include "tests/fuzz/fuzz_check.hpp"

namespace {

using relforge::packaging::Version;

bool same_fields(const Version& a, const Version& b) {
  return a.epoch == b.epoch && a.release == b.release && a.pre == b.pre && a.post == b.post &&
         a.dev == b.dev && a.local == b.local;
}

void check_one(const Version& v) {
  const std::string normal = v.to_string();
  auto again = relforge::packaging::parse_version(normal);
  FUZZ_CHECK(again.has_value(), "the normal form parses");
  FUZZ_CHECK(same_fields(*again, v), "parse(normal form) has the same fields");
  FUZZ_CHECK(again->to_string() == normal, "the normal form is a fixed point");
  FUZZ_CHECK((v <=> *again) == 0, "a version equals its reparsed normal form");
  FUZZ_CHECK(!v.release.empty(), "a version has a release");
  FUZZ_CHECK(v.has_local() == !v.local_string().empty(), "local label and local_string agree");
  FUZZ_CHECK(normal == (v.has_local() ? v.public_string() + "+" + v.local_string() : v.public_string()),
             "normal form = public + local");
  FUZZ_CHECK(normal.rfind(v.base_string(), 0) == 0 || v.epoch != 0, "normal form starts with the base");
  FUZZ_CHECK(relforge::packaging::same_base(v, v), "same_base is reflexive");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  (void)relforge::packaging::strip_python_space(text);
  auto whole = relforge::packaging::parse_version(text);
  if (whole) check_one(*whole);

  // Two versions from the input's halves, split at its first '\n', to check the order.
  const std::size_t cut = text.find('\n');
  if (cut == std::string_view::npos) return 0;
  auto a = relforge::packaging::parse_version(text.substr(0, cut));
  auto b = relforge::packaging::parse_version(text.substr(cut + 1));
  if (!a || !b) return 0;
  check_one(*a);
  check_one(*b);
  const auto ab = *a <=> *b;
  const auto ba = *b <=> *a;
  FUZZ_CHECK((ab < 0) == (ba > 0) && (ab == 0) == (ba == 0), "comparison is antisymmetric");
  FUZZ_CHECK((ab == 0) == (*a == *b), "== agrees with <=>");
  FUZZ_CHECK(ab != 0 || relforge::packaging::same_base(*a, *b), "equal versions have the same base");
  FUZZ_CHECK(relforge::packaging::same_base(*a, *b) == relforge::packaging::same_base(*b, *a),
             "same_base is symmetric");
  return 0;
}
