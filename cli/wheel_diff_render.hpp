#pragma once
// Rendering a packaging::WheelDiff for `wheel diff` and `verify --rebuild`: text lines a person
// reads, or one JSON object.
#include <ostream>

#include <nlohmann/json.hpp>

#include "packaging/wheel_diff.hpp"

namespace relforge::cli {

nlohmann::ordered_json wheel_diff_json(const packaging::WheelDiff& diff);

// "identical" or one block per entry: "~ name", "+ name", "- name" and its indented details.
void print_wheel_diff(std::ostream& out, const packaging::WheelDiff& diff);

}  // namespace relforge::cli
