// No built-in Hyperscan databases: the generator's own table (it makes the real one), and the
// table of builds without Hyperscan.
#include "triage/hyperscan_set.hpp"

namespace relforge::triage {

std::span<const PrecompiledDatabase> precompiled_databases() {
  return {};
}

}  // namespace relforge::triage
