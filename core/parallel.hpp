#pragma once
// Runs independent tasks 0..count-1 on up to one thread per core. Stops handing out tasks after the
// first failure and returns it (the lowest-numbered failure among those that ran); Ok otherwise.
#include <cstddef>
#include <functional>

#include "core/error.hpp"

namespace relforge::core {

Status parallel_for(std::size_t count, const std::function<Status(std::size_t)>& task);

}  // namespace relforge::core
