#include "ci_relay/relay.hpp"

#include "platform/bounded_file.hpp"
#include "platform/toml.hpp"

namespace relforge::ci_relay {

Result<Relay> Relay::open(RelayConfig config, const std::filesystem::path& db_path, platform::OpenMode mode) {
  auto rules = config.rules_file.empty() ? triage::default_rules() : [&]() {
    // Read here rather than by triage::load_rule_spec: only a regular file, and no more of it than
    // TOML is allowed to be (a FIFO or /dev/zero named as `rules` would hang or fill memory).
    using Compiled = Result<std::shared_ptr<const triage::CompiledRules>>;
    auto text = platform::read_regular_file(config.rules_file, platform::TomlLimits{}.max_bytes);
    if (!text) return Compiled(tl::unexpected(Error(text.error()).with_context("loading rules")));
    auto spec = with_context(triage::parse_rule_spec(*text, config.rules_file.string()),
                             "loading rules " + config.rules_file.string());
    if (!spec) return Compiled(tl::unexpected(spec.error()));
    return triage::compile_rules(*spec);
  }();
  if (!rules) return tl::unexpected(Error(rules.error()).with_context("loading the relay's triage rules"));
  auto store = RelayStore::open(std::move(config), db_path, mode);
  if (!store) return tl::unexpected(store.error());
  return Relay(std::move(*store), std::move(*rules));
}

std::vector<Intake> Relay::intake_batch(const std::vector<Delivery>& deliveries) {
  std::vector<std::optional<IntakeScan>> scans;
  scans.reserve(deliveries.size());
  for (const auto& delivery : deliveries) scans.push_back(scan_delivery(delivery.event, delivery.body));
  return intake_batch(deliveries, std::move(scans));
}

}  // namespace relforge::ci_relay
