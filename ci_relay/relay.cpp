#include "ci_relay/relay.hpp"

namespace relforge::ci_relay {

Result<Relay> Relay::open(RelayConfig config, const std::filesystem::path& db_path, platform::OpenMode mode) {
  auto rules = config.rules_file.empty() ? triage::default_rules() : [&]() {
    auto spec = triage::load_rule_spec(config.rules_file);
    if (!spec) return Result<std::shared_ptr<const triage::CompiledRules>>(tl::unexpected(spec.error()));
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
