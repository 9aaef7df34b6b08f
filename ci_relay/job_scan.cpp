#include "ci_relay/job_scan.hpp"

#include <array>
#include <vector>

#include <nlohmann/json.hpp>

namespace relforge::ci_relay {
namespace {

using nlohmann::json;

// The keys that matter, at depth 1 (the payload's) and depth 2 (inside workflow_job/repository).
enum class Key {
  other,
  workflow_job,
  repository,
  full_name,
  id,
  run_id,
  run_attempt,
  name,
  head_sha,
  workflow_name,
  status,
  created_at,
  started_at,
  completed_at,
  html_url,
  runner_name,
  conclusion
};

Key outer_key(const std::string& name) {
  if (name == "workflow_job") return Key::workflow_job;
  if (name == "repository") return Key::repository;
  return Key::other;
}

Key job_key(const std::string& name) {
  static const std::array<std::pair<std::string_view, Key>, 14> k_keys = {{
      {"id", Key::id},
      {"run_id", Key::run_id},
      {"run_attempt", Key::run_attempt},
      {"name", Key::name},
      {"head_sha", Key::head_sha},
      {"workflow_name", Key::workflow_name},
      {"status", Key::status},
      {"created_at", Key::created_at},
      {"started_at", Key::started_at},
      {"completed_at", Key::completed_at},
      {"html_url", Key::html_url},
      {"runner_name", Key::runner_name},
      {"conclusion", Key::conclusion},
      {"full_name", Key::full_name},
  }};
  for (const auto& [text, key] : k_keys) {
    if (text == name) return key;
  }
  return Key::other;
}

// Each SAX value lands on the field its two enclosing keys name; a value of the wrong type
// clears the field, as the DOM reading (text_field, int_field) would see it.
class JobScanner : public nlohmann::json_sax<json> {
public:
  bool null() override { return scalar(nullptr, nullptr); }
  bool boolean(bool) override { return scalar(nullptr, nullptr); }
  bool number_integer(number_integer_t value) override { return scalar(nullptr, &value); }
  bool number_unsigned(number_unsigned_t value) override {
    const auto as_signed = static_cast<std::int64_t>(value);
    return scalar(nullptr, &as_signed);
  }
  bool number_float(number_float_t, const string_t&) override { return scalar(nullptr, nullptr); }
  bool string(string_t& text) override { return scalar(&text, nullptr); }
  bool binary(binary_t&) override { return scalar(nullptr, nullptr); }
  bool start_object(std::size_t) override { return open(true); }
  bool start_array(std::size_t) override { return open(false); }
  bool end_object() override { return close(); }
  bool end_array() override { return close(); }
  bool key(string_t& name) override {
    if (m_deeper > 0) return true;
    const std::size_t depth = m_frames.size();
    if (depth == 1) m_frames[0].key = outer_key(name);
    if (depth == 2 && m_frames[1].is_object) m_frames[1].key = job_key(name);
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
    m_failed = true;
    return false;
  }

  bool ok() const { return !m_failed && m_top_is_object; }
  WorkflowJobFields& fields() { return m_fields; }

private:
  struct Frame {
    bool is_object = false;
    Key key = Key::other;
  };

  // Where a value at the current position goes: the outer key, then the inner one (or other).
  Key outer() const { return m_frames.size() >= 1 ? m_frames[0].key : Key::other; }
  Key inner() const { return m_frames.size() == 2 && m_frames[1].is_object ? m_frames[1].key : Key::other; }

  bool open(bool is_object) {
    if (m_frames.empty()) {
      m_top_is_object = is_object;
    } else if (m_frames.size() == 1) {
      // A new workflow_job/repository value replaces an earlier one entirely.
      if (outer() == Key::workflow_job) reset_job();
      if (outer() == Key::repository) m_fields.repo.clear();
      if (!is_object) m_frames[0].key = Key::other;  // an array there holds no fields
    } else {
      assign(nullptr, nullptr);  // a container where a field was expected: the field is absent
    }
    if (m_frames.size() < 2) {
      m_frames.push_back({is_object, Key::other});
    } else {
      ++m_deeper;
    }
    return true;
  }
  bool close() {
    if (m_deeper > 0) {
      --m_deeper;
    } else if (!m_frames.empty()) {
      m_frames.pop_back();
    }
    return true;
  }
  bool scalar(std::string* text, const std::int64_t* number) {
    if (m_deeper > 0) return true;
    if (m_frames.size() == 1) {
      // workflow_job or repository given as a scalar: none of their fields exist.
      if (outer() == Key::workflow_job) reset_job();
      if (outer() == Key::repository) m_fields.repo.clear();
      return true;
    }
    assign(text, number);
    return true;
  }
  void assign(std::string* text, const std::int64_t* number) {
    if (m_deeper > 0 || m_frames.size() != 2) return;
    const Key at = inner();
    if (outer() == Key::repository) {
      if (at == Key::full_name) m_fields.repo = text != nullptr ? std::move(*text) : std::string();
      return;
    }
    if (outer() != Key::workflow_job) return;
    auto set_text = [&](std::string& out) { out = text != nullptr ? std::move(*text) : std::string(); };
    auto set_int = [&](std::optional<std::int64_t>& out) {
      out = number != nullptr ? std::optional<std::int64_t>(*number) : std::nullopt;
    };
    switch (at) {
      case Key::id:
        set_int(m_fields.id);
        break;
      case Key::run_id:
        set_int(m_fields.run_id);
        break;
      case Key::run_attempt:
        set_int(m_fields.run_attempt);
        break;
      case Key::name:
        set_text(m_fields.name);
        break;
      case Key::head_sha:
        set_text(m_fields.head_sha);
        break;
      case Key::workflow_name:
        set_text(m_fields.workflow_name);
        break;
      case Key::status:
        set_text(m_fields.status);
        break;
      case Key::created_at:
        set_text(m_fields.created_at);
        break;
      case Key::started_at:
        set_text(m_fields.started_at);
        break;
      case Key::completed_at:
        set_text(m_fields.completed_at);
        break;
      case Key::html_url:
        set_text(m_fields.html_url);
        break;
      case Key::runner_name:
        set_text(m_fields.runner_name);
        break;
      case Key::conclusion:
        m_fields.conclusion = text != nullptr ? std::optional<std::string>(std::move(*text)) : std::nullopt;
        break;
      default:
        break;
    }
  }
  void reset_job() {
    std::string repo = std::move(m_fields.repo);
    m_fields = WorkflowJobFields{};
    m_fields.repo = std::move(repo);
  }

  std::vector<Frame> m_frames;  // the payload object and, inside it, one level
  int m_deeper = 0;             // containers open below those two levels
  bool m_top_is_object = false;
  bool m_failed = false;
  WorkflowJobFields m_fields;
};

}  // namespace

std::optional<WorkflowJobFields> scan_workflow_job(std::string_view body) {
  JobScanner scanner;
  const bool parsed = json::sax_parse(body.begin(), body.end(), &scanner, json::input_format_t::json, true);
  if (!parsed || !scanner.ok()) return std::nullopt;
  return std::move(scanner.fields());
}

}  // namespace relforge::ci_relay
