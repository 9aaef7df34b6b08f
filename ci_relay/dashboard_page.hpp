#pragma once
// The dashboard as HTML: one page whose sections are fragments that /api/dashboard also carries,
// so the page's inline script swaps them in place (fetch + DOM update, no reload, no external
// assets). Every text and attribute goes through core::html_escape; job links must be http(s).
#include <string>

#include <nlohmann/json.hpp>

#include "ci_relay/dashboard_query.hpp"

namespace relforge::ci_relay {

struct DashboardFragments {
  std::string breakages, grid, pager, health;
};
DashboardFragments render_fragments(const DashboardView& view, const RelayConfig& config);

// live: the page refreshes itself from /api/dashboard; snapshot: a static file (`relay dashboard`).
enum class DashboardMode { live, snapshot };
std::string render_dashboard(const DashboardView& view, const RelayConfig& config, DashboardMode mode);

// The view's JSON (to_json) plus `html` (the fragments) and `version` (their digest: the page
// swaps fragments only when it changes).
nlohmann::json dashboard_document(const DashboardView& view, const RelayConfig& config);

// Content-Security-Policy for the page: nothing but its own inline script and style (by hash)
// and fetches to its own origin.
std::string dashboard_csp();

}  // namespace relforge::ci_relay
