#include "ci_relay/intake_scan.hpp"

#include <nlohmann/json.hpp>

#include "ci_relay/json_fields.hpp"
#include "core/text.hpp"

namespace relforge::ci_relay {
namespace {

using nlohmann::json;

// SAX events keep only a depth counter and the two keys on the way to repository.full_name, so
// the scan allocates nothing per value (a DOM parse allocated every node of the payload).
// Of repeated keys the last one counts and a value that is not a string reads as "", as in the
// document the worker builds later, so both file a delivery under the same repository.
class Scanner : public nlohmann::json_sax<json> {
public:
  bool null() override { return not_text(); }
  bool boolean(bool) override { return not_text(); }
  bool number_integer(number_integer_t) override { return not_text(); }
  bool number_unsigned(number_unsigned_t) override { return not_text(); }
  bool number_float(number_float_t, const string_t&) override { return not_text(); }
  bool string(string_t& text) override {
    if (at_full_name()) m_scan.repo = std::move(text);
    return value();
  }
  bool binary(binary_t&) override { return not_text(); }
  bool start_object(std::size_t) override {
    if (at_full_name()) m_scan.repo.clear();
    if (m_depth == 0) m_top_is_object = true;
    m_in_repository = m_depth == 1 ? m_key_is_repository : m_in_repository;
    ++m_depth;
    return true;
  }
  bool key(string_t& name) override {
    if (m_depth == 1) {
      m_key_is_repository = name == "repository";
      if (m_key_is_repository) m_scan.repo.clear();  // a later repository replaces an earlier one
    }
    if (m_depth == 2) m_key_is_full_name = name == "full_name";
    return true;
  }
  bool end_object() override { return end(); }
  bool start_array(std::size_t) override {
    if (at_full_name()) m_scan.repo.clear();
    ++m_depth;
    m_key_is_repository = false;
    m_key_is_full_name = false;
    return true;
  }
  bool end_array() override { return end(); }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
    m_failed = true;
    return false;
  }

  bool ok() const { return !m_failed && m_top_is_object; }
  IntakeScan& scan() { return m_scan; }

private:
  bool at_full_name() const { return m_depth == 2 && m_in_repository && m_key_is_full_name; }
  bool not_text() {
    if (at_full_name()) m_scan.repo.clear();
    return value();
  }
  bool value() {
    if (m_depth == 1) m_key_is_repository = false;
    if (m_depth == 2) m_key_is_full_name = false;
    return true;
  }
  bool end() {
    --m_depth;
    if (m_depth == 1) {
      m_in_repository = false;
      m_key_is_repository = false;
    }
    if (m_depth == 2) m_key_is_full_name = false;
    return true;
  }
  int m_depth = 0;
  bool m_top_is_object = false;
  bool m_key_is_repository = false;  // the current top-level key is "repository"
  bool m_in_repository = false;      // inside the top-level repository object
  bool m_key_is_full_name = false;   // the current key at depth 2 is "full_name"
  bool m_failed = false;
  IntakeScan m_scan;
};

}  // namespace

std::optional<IntakeScan> scan_delivery(std::string_view event, std::string_view body) {
  if (event != "workflow_job") return scan_delivery(body);
  if (!core::json_nesting_within(body, k_max_json_nesting)) return std::nullopt;
  auto job = scan_workflow_job(body);
  if (!job) return std::nullopt;
  IntakeScan scan{job->repo, std::nullopt};
  scan.job = std::move(job);
  return scan;
}

std::optional<IntakeScan> scan_delivery(std::string_view body) {
  // Stored, a deeper body would crash whoever dumps it (a dispatch), on every restart too.
  if (!core::json_nesting_within(body, k_max_json_nesting)) return std::nullopt;
  Scanner scanner;
  const bool parsed = json::sax_parse(body.begin(), body.end(), &scanner, json::input_format_t::json, true);
  if (!parsed || !scanner.ok()) return std::nullopt;
  return std::move(scanner.scan());
}

}  // namespace relforge::ci_relay
