#pragma once
// What libzip reads of a zip's headers but does not show, read by hand: which entries carry
// Info-ZIP's Unicode Path extra field (0x7075) in their central record or local header.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/error.hpp"

namespace relforge::packaging {

// Up to `length` bytes of the archive at `offset`; fewer only at its end.
using ReadAt = std::function<Result<std::string>(std::uint64_t offset, std::size_t length)>;

// One flag per central directory record, in their order; integrity error when the end records,
// the central directory or a local header are not where and what the zip format says.
Result<std::vector<bool>> unicode_path_fields(const ReadAt& read_at, std::uint64_t file_size,
                                              std::size_t comment_length);

}  // namespace relforge::packaging
