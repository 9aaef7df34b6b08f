// `relforge matrix expand|diff|names`: load relforge.toml, expand one channel, select, render.
// `diff --exit-code` exits 1 when the two sides differ (docs/exit-codes.md).
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "matrix/config.hpp"
#include "matrix/diff.hpp"
#include "matrix/emit.hpp"
#include "matrix/expand.hpp"
#include "matrix/names.hpp"
#include "matrix/select.hpp"
#include "platform/allocator.hpp"
#include "platform/fs.hpp"
#include "runner_images/assign.hpp"

namespace relforge::cli {
namespace {

struct MatrixSource {
  std::string config = "relforge.toml";
  std::string channel = "nightly";
  matrix::Selection selection;
};

Result<matrix::Expansion> load_and_expand(const MatrixSource& source,
                                          matrix::MatrixSpec* spec_out = nullptr) {
  auto spec = matrix::load_spec(source.config);
  if (!spec) return tl::unexpected(spec.error());
  auto expansion = matrix::expand(*spec, source.channel);
  if (!expansion) return expansion;
  if (auto ok = matrix::apply_selection(*expansion, source.selection); !ok) return tl::unexpected(ok.error());
  if (spec_out != nullptr) *spec_out = std::move(*spec);
  return expansion;
}

// ---- expand ----

struct MatrixExpandOptions {
  MatrixSource source;
  std::string format = "table";
  std::optional<std::size_t> shard_size;     // default: GitHub's 256-job limit
  std::optional<std::string> github_output;  // the $GITHUB_OUTPUT file to append to
  std::vector<std::string> fields;           // --fields: table and github columns
};

struct MatrixExpandOutput {
  matrix::Expansion expansion;
  matrix::Format format = matrix::Format::table;
  std::vector<std::string> emit_fields;   // [matrix.emit] fields, or --fields
  std::vector<std::string> table_fields;  // --fields; empty: the table's default columns
  std::size_t shard_size = matrix::k_github_max_jobs;
  std::vector<std::string> notes;  // for stderr
};

Result<MatrixExpandOutput> run_matrix_expand(const MatrixExpandOptions& options) {
  MatrixExpandOutput output;
  auto format = matrix::parse_format(options.format);
  if (!format) return tl::unexpected(format.error());
  output.format = *format;
  output.shard_size = options.shard_size.value_or(matrix::k_github_max_jobs);
  if (output.shard_size == 0 || output.shard_size > matrix::k_github_max_jobs) {
    return fail(ErrorCategory::invalid_input, "--shard-size must be between 1 and " +
                                                  std::to_string(matrix::k_github_max_jobs) +
                                                  " (GitHub Actions runs at most 256 jobs per matrix)");
  }
  matrix::MatrixSpec spec;
  auto expansion = load_and_expand(options.source, &spec);
  if (!expansion) return tl::unexpected(expansion.error());
  output.expansion = std::move(*expansion);
  // With [fleet] images, each cell's container_image is its image's content-addressed tag.
  if (auto ok = runner_images::set_container_images(options.source.config, spec, output.expansion); !ok)
    return tl::unexpected(ok.error());
  output.emit_fields = std::move(spec.emit_fields);
  if (!options.fields.empty()) {
    if (auto ok = matrix::check_fields(output.expansion, options.fields); !ok)
      return tl::unexpected(ok.error());
    output.emit_fields = options.fields;
    output.table_fields = options.fields;
  }
  const std::size_t shards = matrix::github_shard_count(output.expansion, output.shard_size);
  if ((output.format == matrix::Format::github || options.github_output) && shards > 1) {
    output.notes.push_back(
        std::to_string(output.expansion.cells.size()) + " cells exceed the shard size " +
        std::to_string(output.shard_size) + ": split into " + std::to_string(shards) +
        " GitHub matrices (one {\"include\":[...]} per line; $GITHUB_OUTPUT gets matrix-0.." +
        std::to_string(shards - 1) + ", shard-count and shards)");
  }
  if (options.github_output) {
    const auto documents = matrix::github_matrices(output.expansion, output.emit_fields, output.shard_size);
    if (auto ok = platform::append_file(*options.github_output, matrix::github_output_lines(documents));
        !ok) {
      return tl::unexpected(Error(ok.error()).with_context("writing $GITHUB_OUTPUT"));
    }
  }
  return output;
}

void print_expand(Runtime& runtime, const MatrixExpandOutput& output) {
  for (const auto& note : output.notes) runtime.err << "relforge: note: " << note << '\n';
  switch (output.format) {
    case matrix::Format::table:
      matrix::emit_table(runtime.out, output.expansion, output.table_fields);
      break;
    case matrix::Format::json:
      matrix::emit_json(runtime.out, output.expansion);
      break;
    case matrix::Format::ids:
      matrix::emit_ids(runtime.out, output.expansion);
      break;
    case matrix::Format::github:
      matrix::emit_github(runtime.out, output.expansion, output.emit_fields, output.shard_size);
      break;
  }
}

// ---- diff ----

struct MatrixDiffOptions {
  std::string config = "relforge.toml";
  std::optional<std::string> against;  // the old config; default: --config
  std::string channel = "nightly";
  std::optional<std::string> against_channel;  // the old side's channel; default: --channel
  std::vector<std::string> fields;
  std::vector<std::string> select;
  bool exit_code = false;
};

Result<matrix::MatrixDiff> run_matrix_diff(const MatrixDiffOptions& options) {
  if (!options.against && !options.against_channel) {
    return fail(ErrorCategory::invalid_input,
                "matrix diff needs something to compare with: --against OLD.toml (another config) and/or "
                "--against-channel NAME (another channel of this config)");
  }
  matrix::Selection selection;
  selection.select = options.select;
  MatrixSource after{options.config, options.channel, selection};
  MatrixSource before{options.against.value_or(options.config),
                      options.against_channel.value_or(options.channel), selection};
  auto new_cells = load_and_expand(after);
  if (!new_cells) return tl::unexpected(new_cells.error());
  auto old_cells = load_and_expand(before);
  if (!old_cells) return tl::unexpected(old_cells.error());
  if (auto ok = matrix::check_diff_fields(*old_cells, *new_cells, options.fields); !ok)
    return tl::unexpected(ok.error());
  return matrix::diff(*old_cells, *new_cells, matrix::DiffOptions{options.fields});
}

// ---- names ----

struct MatrixNamesOptions {
  MatrixSource source;
  std::string version;
};

Result<std::vector<matrix::WheelFile>> run_matrix_names(const MatrixNamesOptions& options) {
  matrix::MatrixSpec spec;
  auto expansion = load_and_expand(options.source, &spec);
  if (!expansion) return tl::unexpected(expansion.error());
  return matrix::wheel_names(*expansion, spec.project, options.version);
}

void add_source_options(CLI::App& command, MatrixSource& source, bool with_selection) {
  command.add_option("--config", source.config, "The relforge.toml to read")->capture_default_str();
  command
      .add_option("--channel", source.channel,
                  "The channel to expand (nightly, test, stable; release is an alias of stable)")
      ->capture_default_str();
  if (!with_selection) return;
  command.add_option("--os", source.selection.os, "Keep only cells whose os field matches this glob");
  command.add_option("--select", source.selection.select,
                     "Keep cells whose build_id matches this glob (repeatable; braces allowed)");
  command.add_option("--skip", source.selection.skip,
                     "Drop cells whose build_id matches this glob (repeatable)");
}

}  // namespace

void register_matrix(CLI::App& group, Runtime& runtime) {
  {
    auto options = std::make_shared<MatrixExpandOptions>();
    auto github_output = std::make_shared<bool>(false);
    auto shard_size = std::make_shared<std::size_t>(0);
    CLI::App* command = group.add_subcommand("expand", "Expand the matrix of one channel into cells");
    add_source_options(*command, options->source, true);
    auto* format =
        command->add_option("--format", options->format, "table, json, github or ids")->capture_default_str();
    auto* shard =
        command->add_option("--shard-size", *shard_size,
                            "Cells per GitHub matrix before splitting (default 256, the GitHub limit)");
    command
        ->add_option("--fields", options->fields,
                     "Columns for table and github output, in order (comma-separated or repeated)")
        ->delimiter(',');
    command->add_flag("--github-output", *github_output,
                      "Append matrix=<json> (or matrix-N=, shard-count=, shards=) to $GITHUB_OUTPUT");
    add_json_flag(*command, runtime);
    command->callback([&runtime, options, github_output, shard_size, format, shard] {
      platform::tune_heap_for_batch_command();
      MatrixExpandOptions resolved = *options;
      if (runtime.json) {
        if (format->count() > 0 && resolved.format != "json") {
          report_error(runtime, Error(ErrorCategory::invalid_input,
                                      "--json conflicts with --format " + resolved.format + "; use one"));
          return;
        }
        resolved.format = "json";
      }
      if (shard->count() > 0) resolved.shard_size = *shard_size;
      if (*github_output) {
        resolved.github_output = runtime.getenv("GITHUB_OUTPUT");
        if (!resolved.github_output || resolved.github_output->empty()) {
          report_error(runtime,
                       Error(ErrorCategory::invalid_input,
                             "--github-output needs $GITHUB_OUTPUT, the file GitHub Actions provides; "
                             "it is not set"));
          return;
        }
      }
      auto output = run_matrix_expand(resolved);
      if (!output) {
        report_error(runtime, output.error());
        return;
      }
      print_expand(runtime, *output);
      finish(runtime, {});
    });
  }
  {
    auto options = std::make_shared<MatrixDiffOptions>();
    CLI::App* command = group.add_subcommand(
        "diff", "Summarize the cells added, removed and changed between two configs or two channels");
    command->add_option("--config", options->config, "The new relforge.toml")->capture_default_str();
    command->add_option("--against", options->against, "The old relforge.toml (default: --config)");
    command->add_option("--channel", options->channel, "The channel of the new side")->capture_default_str();
    command->add_option("--against-channel", options->against_channel,
                        "The channel of the old side (default: --channel)");
    command
        ->add_option("--fields", options->fields,
                     "Compare only these fields (comma-separated or repeated; id and build_id allowed)")
        ->delimiter(',');
    command->add_option("--select", options->select,
                        "Compare only cells whose build_id matches this glob, on both sides (repeatable)");
    command->add_flag("--exit-code", options->exit_code,
                      "Exit 1 when the matrices differ (as git diff --exit-code)");
    add_json_flag(*command, runtime);
    command->callback([&runtime, options] {
      auto result = run_matrix_diff(*options);
      if (!result) {
        report_error(runtime, result.error());
        return;
      }
      runtime.out << (runtime.json ? matrix::render_diff_json(*result) : matrix::render_diff_text(*result));
      finish(runtime, {});
      if (options->exit_code && !result->empty()) runtime.exit_code = k_exit_false;
    });
  }
  {
    auto options = std::make_shared<MatrixNamesOptions>();
    CLI::App* command = group.add_subcommand("names", "Print the wheel file name each cell builds");
    command->add_option("--version", options->version, "The release version (PEP 440), e.g. 2.14.0")
        ->required();
    add_source_options(*command, options->source, true);
    add_json_flag(*command, runtime);
    command->callback([&runtime, options] {
      auto result = run_matrix_names(*options);
      if (!result) {
        report_error(runtime, result.error());
        return;
      }
      if (runtime.json) {
        nlohmann::ordered_json body = nlohmann::ordered_json::array();
        for (const auto& file : *result) {
          body.push_back({{"id", file.id}, {"build_id", file.build_id}, {"filename", file.file_name}});
        }
        runtime.out << json_text(body) << '\n';
      } else {
        for (const auto& file : *result) runtime.out << file.file_name << '\n';
      }
      finish(runtime, {});
    });
  }
}

}  // namespace relforge::cli
