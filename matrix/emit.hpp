#pragma once
// Renders an expansion: an aligned table, JSON (every field plus id and build_id), ids one per
// line, or GitHub Actions matrices ({"include": [...]}, sharded to stay within 256 jobs). JSON keeps
// each value's type: a TOML `false` is the JSON `false`, which a GitHub Actions `if:` reads as false.
#include <cstddef>
#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"
#include "core/text.hpp"
#include "matrix/expand.hpp"

namespace relforge::matrix {

enum class Format { table, json, github, ids };

Result<Format> parse_format(std::string_view name);  // "table", "json", "github", "ids"

// GitHub Actions refuses a matrix of more than 256 configurations.
inline constexpr std::size_t k_github_max_jobs = 256;

// Header, one aligned row per cell and a last line "N cells (channel C)"; an empty value shows as
// "-". Columns: `fields` when given (checked by check_fields), else id, build_id (when it differs)
// and every axis and derived field; value attributes (`axis.attr`) are then left out and the last
// line says how many.
void emit_table(std::ostream& out, const Expansion& expansion, const std::vector<std::string>& fields = {});

// invalid_input naming the first of `fields` that is neither a field of the expansion nor
// id/build_id, with a suggestion.
Status check_fields(const Expansion& expansion, const std::vector<std::string>& fields);
// The same check against a list of known names (id and build_id included), e.g. two expansions'.
Status check_fields(const std::vector<std::string>& known, const std::vector<std::string>& fields);
// A JSON array of objects: id, build_id, then every field in order.
void emit_json(std::ostream& out, const Expansion& expansion);
void emit_ids(std::ostream& out, const Expansion& expansion);

// Compact {"include":[...]} documents of at most `shard_size` cells each, with the `fields`
// (empty: id and every field). One document when the cells fit in one shard.
std::vector<std::string> github_matrices(const Expansion& expansion, const std::vector<std::string>& fields,
                                         std::size_t shard_size);

// The same documents written to `out`, one per line, without holding them all in memory.
void emit_github(std::ostream& out, const Expansion& expansion, const std::vector<std::string>& fields,
                 std::size_t shard_size);

// How many documents github_matrices makes: ceil(cells / shard_size).
std::size_t github_shard_count(const Expansion& expansion, std::size_t shard_size);

// The lines appended to $GITHUB_OUTPUT: "matrix=<json>" for one shard; for several,
// "matrix-0=<json>", "matrix-1=<json>", ..., "shard-count=N" and "shards=[0,1,...]".
std::string github_output_lines(const std::vector<std::string>& matrices);

// Appends `text` to `out` as a JSON string literal (quoted, escaped): the one in core/text.
using core::append_json_string;
// Appends a cell value as JSON: a string literal, or `true`/`false`/a number for typed values.
void append_json_value(std::string& out, std::string_view text, ValueType type);

}  // namespace relforge::matrix
