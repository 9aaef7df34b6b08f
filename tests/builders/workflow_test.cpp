// The GitHub Actions workflow renderer: structure, sharding, YAML quoting, and every refusal.
#include "builders/workflow.hpp"
#include "builders/yaml.hpp"

#include <gtest/gtest.h>

#include <string>

#include <nlohmann/json.hpp>

#include "matrix/config.hpp"
#include "matrix/expand.hpp"
#include "tests/support/run.hpp"

namespace relforge::builders {
namespace {

// 3 Pythons x 2 accelerators, with runner, container_image and build_name fields like
// examples/minitensor; `extra` is appended to the config.
matrix::Expansion expansion(const std::string& extra = "",
                            const std::string& pythons = "\"3.11\", \"3.12\", \"3.13\"") {
  const std::string text =
      "[project]\nname = \"demo\"\n[matrix]\nid = \"{python}-{accel}\"\n"
      "[[matrix.axis]]\nname = \"python\"\nkind = \"version\"\nvalues = [" +
      pythons +
      "]\n"
      "[[matrix.axis]]\nname = \"accel\"\nvalues = [\n"
      "  { value = \"cpu\", type = \"cpu\", image = \"cpu\", runner = \"linux.2xlarge\" },\n"
      "  { value = \"cu130\", type = \"cuda\", image = \"cuda13.0\", runner = "
      "\"linux.g5.4xlarge.nvidia.gpu\" },\n"
      "]\n"
      "[[matrix.field]]\nname = \"build_name\"\ntemplate = \"py{python|underscore}-{accel}\"\n"
      "[[matrix.field]]\nname = \"container_image\"\ntemplate = \"ghcr.io/demo/builder:{accel.image}\"\n"
      "[[matrix.field]]\nname = \"runner\"\ntemplate = \"{accel.runner}\"\n" +
      extra;
  auto spec = matrix::parse_spec(text, "t.toml");
  EXPECT_TRUE(spec) << spec.error().describe();
  auto result = matrix::expand(*spec, "nightly");
  EXPECT_TRUE(result) << result.error().describe();
  return std::move(*result);
}

WorkflowOptions options() {
  WorkflowOptions o;
  o.config = "examples/demo/relforge.toml";
  o.schedules = {"23 3 * * *"};
  return o;
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

std::size_t count(const std::string& text, const std::string& part) {
  std::size_t n = 0;
  for (auto at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
  return n;
}

std::string render_error(const WorkflowOptions& o, const matrix::Expansion& e, ErrorCategory category) {
  const auto result = render_workflow(o, e);
  EXPECT_FALSE(result);
  if (result) return "";
  EXPECT_EQ(result.error().category(), category) << result.error().describe();
  return result.error().describe();
}

TEST(Workflow, OneShardHasPlanBuildAndPublish) {
  const auto result = render_workflow(options(), expansion());
  ASSERT_TRUE(result) << result.error().describe();
  const auto& yaml = result->yaml;
  EXPECT_EQ(result->jobs, (std::vector<std::string>{"plan", "build-linux", "publish"}));
  EXPECT_EQ(result->cells, 6u);
  EXPECT_EQ(result->shards, 1u);
  EXPECT_EQ(result->artifact_field, "build_name");
  EXPECT_TRUE(has(yaml, "\non:\n  workflow_dispatch:\n  schedule:\n    - cron: \"23 3 * * *\"\n")) << yaml;
  EXPECT_TRUE(has(yaml, "  RELFORGE_CI_CONFIG: examples/demo/relforge.toml\n"));
  EXPECT_TRUE(has(yaml, "  RELFORGE_CI_CHANNEL: nightly\n"));
  EXPECT_TRUE(has(yaml,
                  "relforge ci plan --config \"$RELFORGE_CI_CONFIG\" --channel \"$RELFORGE_CI_CHANNEL\" "
                  "--runner-field runner --artifact-field build_name --shard-size 256 --host-runner-prefix "
                  "windows --host-runner-prefix macos --expect-shards 1,0 --github-output\n"))
      << yaml;
  EXPECT_TRUE(has(yaml, "      linux: ${{ steps.plan.outputs.linux }}\n"));
  EXPECT_TRUE(has(yaml, "      matrix: ${{ fromJSON(needs.plan.outputs.linux) }}\n"));
  // Linux cells run on the host: relforge runs the recipe in the image itself ([build] container).
  EXPECT_TRUE(has(yaml, "    runs-on: ${{ matrix.runner }}\n    timeout-minutes: 240\n"));
  EXPECT_FALSE(has(yaml, "container:"));
  EXPECT_TRUE(has(yaml, "--cell \"$RELFORGE_CI_CELL\""));
  EXPECT_TRUE(
      has(yaml,
          "          name: wheel-${{ matrix.artifact }}\n          path: relforge-state/wheels/*.whl\n"
          "          if-no-files-found: error\n"));
  EXPECT_TRUE(has(yaml, "    needs:\n      - plan\n      - build-linux\n"));
  EXPECT_TRUE(has(yaml, "merge-multiple: true"));
  EXPECT_FALSE(has(yaml, "name: Publish\n"));  // no store, no publish command
  EXPECT_FALSE(has(yaml, "\n  push:"));
  EXPECT_FALSE(has(yaml, "pull_request:\n"));
  EXPECT_EQ(count(yaml, "uses: actions/upload-artifact@v4"), 2u);  // the wheel, and the log on failure
  // Every run step is bash; PRs cancel their older runs, other events queue.
  EXPECT_EQ(count(yaml, "        run: "), count(yaml, "        shell: bash\n")) << yaml;
  EXPECT_TRUE(has(yaml,
                  "concurrency:\n  group: ${{ github.workflow }}-${{ github.event.pull_request.number || "
                  "github.ref }}\n  cancel-in-progress: ${{ github.event_name == 'pull_request' }}\n"));
}

TEST(Workflow, CiConfigInstallsRelforgeGuardsForksAndPublishes) {
  auto o = options();
  o.ci.owner = "minitensor";
  o.ci.labels = {"ciflow/nightly", "ciflow/all"};
  o.ci.relforge_version = "0.4.0";
  o.ci.relforge_index = "https://download.example.org/relforge/simple";
  o.ci.store = "s3://minitensor-wheels/whl";
  o.ci.secrets = {"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"};
  o.ci.signing_key_secret = "RELFORGE_SIGNING_KEY";
  o.ci.public_key = "keys/relforge.pub";
  const auto result = render_workflow(o, expansion());
  ASSERT_TRUE(result) << result.error().describe();
  const auto& yaml = result->yaml;
  EXPECT_TRUE(has(yaml, "  pull_request:\n    types:\n      - labeled\n")) << yaml;
  EXPECT_TRUE(
      has(yaml,
          "    if: github.repository_owner == 'minitensor' && (github.event_name != 'pull_request' || "
          "contains(github.event.pull_request.labels.*.name, 'ciflow/nightly') || "
          "contains(github.event.pull_request.labels.*.name, 'ciflow/all'))\n"))
      << yaml;
  EXPECT_EQ(count(yaml,
                  "python -m pip install relforge==0.4.0 --index-url "
                  "https://download.example.org/relforge/simple\n"),
            3u);  // plan, build, publish
  EXPECT_FALSE(has(yaml, "cmake --preset"));
  EXPECT_EQ(count(yaml, "uses: actions/cache@v4"), 3u);
  EXPECT_TRUE(has(yaml, "          RELFORGE_SIGNING_KEY: ${{ secrets.RELFORGE_SIGNING_KEY }}\n"));
  EXPECT_TRUE(has(yaml,
                  "          AWS_ACCESS_KEY_ID: ${{ secrets.AWS_ACCESS_KEY_ID }}\n"
                  "          AWS_SECRET_ACCESS_KEY: ${{ secrets.AWS_SECRET_ACCESS_KEY }}\n"));
  EXPECT_TRUE(has(yaml,
                  "relforge publish dist/*.whl --channel nightly --store s3://minitensor-wheels/whl --key "
                  "keys/relforge.pub --require-signatures\n"));
  // Signing and publishing never run for a pull request.
  EXPECT_EQ(count(yaml, "        if: github.event_name != 'pull_request'\n"), 2u);
  const auto publish = yaml.substr(yaml.find("  publish:\n"));
  const auto checkout = publish.find("actions/checkout@v4");
  const auto download = publish.find("actions/download-artifact@v4");
  const auto verify = publish.find("relforge wheel verify");
  const auto sign = publish.find("relforge sign dist/*.whl");
  const auto store = publish.find("relforge publish dist/*.whl");
  EXPECT_LT(checkout, download);
  EXPECT_LT(download, verify);
  EXPECT_LT(verify, sign);
  EXPECT_LT(sign, store);
  EXPECT_NE(store, std::string::npos);
}

TEST(Workflow, SameInputSameText) {
  const auto a = render_workflow(options(), expansion());
  const auto b = render_workflow(options(), expansion());
  ASSERT_TRUE(a && b);
  EXPECT_EQ(a->yaml, b->yaml);
}

TEST(Workflow, ShardsGetOneBuildJobEach) {
  auto o = options();
  o.shard_size = 4;  // 6 cells -> 2 shards
  const auto result = render_workflow(o, expansion());
  ASSERT_TRUE(result) << result.error().describe();
  const auto& yaml = result->yaml;
  EXPECT_EQ(result->shards, 2u);
  EXPECT_EQ(result->jobs, (std::vector<std::string>{"plan", "build-linux-0", "build-linux-1", "publish"}));
  EXPECT_TRUE(has(yaml,
                  "      linux-0: ${{ steps.plan.outputs.linux-0 }}\n"
                  "      linux-1: ${{ steps.plan.outputs.linux-1 }}\n"));
  EXPECT_TRUE(has(yaml, "fromJSON(needs.plan.outputs.linux-0)"));
  EXPECT_TRUE(has(yaml, "fromJSON(needs.plan.outputs.linux-1)"));
  EXPECT_TRUE(has(yaml, "--shard-size 4 "));
  EXPECT_TRUE(has(yaml, "--expect-shards 2,0 "));
  EXPECT_TRUE(has(yaml, "    needs:\n      - plan\n      - build-linux-0\n      - build-linux-1\n"));
  const auto plan = plan_ci(o, expansion());
  ASSERT_TRUE(plan) << plan.error().describe();
  ASSERT_EQ(plan->linux_shards.size(), 2u);
  EXPECT_TRUE(plan->host_shards.empty());
  EXPECT_EQ(
      plan->linux_shards[1],
      "{\"include\":[{\"id\":\"3.13-cpu\",\"runner\":\"linux.2xlarge\",\"artifact\":\"py3_13-cpu\"},"
      "{\"id\":\"3.13-cu130\",\"runner\":\"linux.g5.4xlarge.nvidia.gpu\",\"artifact\":\"py3_13-cu130\"}]}");
}

TEST(Workflow, ExactlyFullShardsAndTheGitHubLimit) {
  auto o = options();
  o.shard_size = 3;
  auto result = render_workflow(o, expansion());
  ASSERT_TRUE(result);
  EXPECT_EQ(result->shards, 2u);
  o.shard_size = 6;
  result = render_workflow(o, expansion());
  ASSERT_TRUE(result);
  EXPECT_EQ(result->shards, 1u);
  o.shard_size = 257;
  EXPECT_TRUE(
      has(render_error(o, expansion(), ErrorCategory::invalid_input), "--shard-size 257 is outside 1..256"));
  o.shard_size = 0;
  EXPECT_TRUE(has(render_error(o, expansion(), ErrorCategory::invalid_input), "outside 1..256"));
}

TEST(Workflow, TriggersNameAndPublishCommand) {
  auto o = options();
  o.tags = {"v[0-9]+.[0-9]+.[0-9]+-rc[0-9]+"};
  o.branches = {"release/*"};
  o.name = "minitensor: test wheels";
  o.channel = "nightly";
  o.publish_command = "relforge publish --channel nightly dist/*.whl";
  const auto result = render_workflow(o, expansion());
  ASSERT_TRUE(result) << result.error().describe();
  const auto& yaml = result->yaml;
  EXPECT_TRUE(has(yaml, "\nname: \"minitensor: test wheels\"\n"));
  EXPECT_TRUE(has(yaml,
                  "  push:\n    branches:\n      - release/*\n    tags:\n"
                  "      - v[0-9]+.[0-9]+.[0-9]+-rc[0-9]+\n"));
  const auto publish = yaml.substr(yaml.find("  publish:\n"));
  EXPECT_TRUE(has(publish, "        run: relforge publish --channel nightly dist/*.whl\n")) << publish;
}

TEST(Workflow, MultiLineSetupIsALiteralBlock) {
  auto o = options();
  o.setup_command = "pip install relforge==0.3.0\necho \"ok: $(relforge --version)\" # check\n";
  const auto result = render_workflow(o, expansion());
  ASSERT_TRUE(result);
  EXPECT_EQ(count(result->yaml,
                  "        run: |\n          pip install relforge==0.3.0\n"
                  "          echo \"ok: $(relforge --version)\" # check\n"),
            3u)
      << result->yaml;  // plan, build and publish
}

TEST(Workflow, FieldsOptionsAndDottedNames) {
  auto o = options();
  o.runner_field = "accel.runner";
  o.artifact_field = "id";
  const auto result = render_workflow(o, expansion());
  ASSERT_TRUE(result) << result.error().describe();
  EXPECT_TRUE(has(result->yaml, "--runner-field accel.runner --artifact-field id "));
  const auto plan = plan_ci(o, expansion());
  ASSERT_TRUE(plan);
  EXPECT_TRUE(has(plan->linux_shards[0],
                  "{\"id\":\"3.11-cpu\",\"runner\":\"linux.2xlarge\",\"artifact\":\"3.11-cpu\"}"))
      << plan->linux_shards[0];
}

TEST(Workflow, WindowsAndMacosCellsRunTheirRecipeWithBash) {
  const auto windows = expansion(
      "[[matrix.field]]\nname = \"runner\"\ntemplate = \"windows.g4dn.xlarge\"\nwhen = { accel = \"cu130\" "
      "}\n"
      "[[matrix.field]]\nname = \"local_version\"\ntemplate = \"{accel}\"\n");
  auto o = options();
  o.recipe.command = {"bash", "build.sh", "--it's"};
  o.recipe.env = {{"CUDA_HOME", "C:/cuda/{accel}"}};
  o.version = "0.3.0";
  const auto result = render_workflow(o, windows);
  ASSERT_TRUE(result) << result.error().describe();
  const auto& yaml = result->yaml;
  EXPECT_EQ(result->jobs, (std::vector<std::string>{"plan", "build-linux", "build-host", "publish"}));
  const auto host =
      yaml.substr(yaml.find("  build-host:\n"), yaml.find("  publish:\n") - yaml.find("  build-host:\n"));
  EXPECT_FALSE(has(host, "relforge ")) << host;  // no relforge on Windows or macOS
  EXPECT_TRUE(has(host, "          python-version: ${{ matrix.python }}\n"));
  EXPECT_TRUE(has(host, "          cd examples/demo\n          bash build.sh '--it'\\''s'\n")) << host;
  EXPECT_TRUE(has(host, "          name: raw-${{ matrix.artifact }}\n          path: relforge-raw/\n"));
  EXPECT_EQ(count(host, "        run: "), count(host, "        shell: bash\n"));
  const auto plan = plan_ci(o, windows);
  ASSERT_TRUE(plan) << plan.error().describe();
  ASSERT_EQ(plan->host_shards.size(), 1u);
  EXPECT_TRUE(has(
      plan->host_shards[0],
      "{\"id\":\"3.11-cu130\",\"runner\":\"windows.g4dn.xlarge\",\"artifact\":\"py3_11-cu130\",\"python\":"
      "\"3.11\",\"env\":\"CUDA_HOME=C:/cuda/"
      "cu130\\nDESIRED_CUDA=\\nDESIRED_PYTHON=3.11\\nGPU_ARCH_TYPE=cuda\\n"
      "GPU_ARCH_VERSION=\\nRELFORGE_CELL=3.11-cu130\\nRELFORGE_LOCAL_VERSION=cu130\\nRELFORGE_VERSION=0.3."
      "0\\n"
      "TORCH_CUDA_ARCH_LIST=\\n\"}"))
      << plan->host_shards[0];
  // A value $GITHUB_ENV cannot carry is refused, not truncated.
  o.recipe.env = {{"BAD", "a\nb"}};
  const auto bad = plan_ci(o, windows);
  ASSERT_FALSE(bad);
  EXPECT_TRUE(has(bad.error().message(), "the value of BAD has a line break")) << bad.error().message();
  // Without a recipe the Windows cells cannot be built.
  o.recipe.command.clear();
  EXPECT_TRUE(has(render_error(o, windows, ErrorCategory::invalid_input), "has no [recipe] command"));
}

TEST(Workflow, ArtifactFieldDefaultsToIdWithoutBuildName) {
  const std::string text =
      "[project]\nname = \"demo\"\n[matrix]\n[[matrix.axis]]\nname = \"python\"\nvalues = [\"3.12\"]\n"
      "[[matrix.field]]\nname = \"runner\"\ntemplate = \"linux.2xlarge\"\n";
  auto spec = matrix::parse_spec(text, "t.toml");
  ASSERT_TRUE(spec);
  auto plain = matrix::expand(*spec, "nightly");
  ASSERT_TRUE(plain);
  const auto result = render_workflow(options(), *plain);
  ASSERT_TRUE(result) << result.error().describe();
  EXPECT_EQ(result->artifact_field, "id");
}

TEST(Workflow, UnknownFieldSuggestsTheClosest) {
  auto o = options();
  o.runner_field = "runer";
  const auto message = render_error(o, expansion(), ErrorCategory::invalid_input);
  EXPECT_TRUE(has(message, "--runner-field 'runer' is not a field of the cells; did you mean 'runner'?"))
      << message;
  o = options();
  o.artifact_field = "build_nam";
  EXPECT_TRUE(has(render_error(o, expansion(), ErrorCategory::invalid_input), "did you mean 'build_name'?"));
}

TEST(Workflow, CellsThatCannotRunOrUpload) {
  // Two cells with the same artifact name would make the second upload fail.
  auto o = options();
  o.artifact_field = "accel";
  auto message = render_error(o, expansion(), ErrorCategory::invalid_input);
  EXPECT_TRUE(has(message, "cells 3.11-cpu and 3.12-cpu would upload the same artifact 'cpu'")) << message;
  // A cell without a runner label.
  auto empty_runner =
      expansion("[[matrix.field]]\nname = \"runner\"\ntemplate = \"\"\nwhen = { accel = \"cu130\" }\n");
  message = render_error(options(), empty_runner, ErrorCategory::invalid_input);
  EXPECT_TRUE(has(message, "cell 3.11-cu130 has no runner label (field 'runner' is empty)")) << message;
  // An artifact name GitHub refuses.
  auto slash = expansion(
      "[[matrix.field]]\nname = \"build_name\"\ntemplate = \"py/{python}-{accel}\"\n"
      "when = { accel = \"cpu\" }\n");
  message = render_error(options(), slash, ErrorCategory::invalid_input);
  EXPECT_TRUE(has(message, "cell 3.11-cpu: 'py/3.11-cpu' (field 'build_name') cannot name an artifact"))
      << message;
}

TEST(Workflow, RefusesPathsOutsideTheCheckout) {
  auto o = options();
  o.config = "/work/main/relforge.toml";
  EXPECT_TRUE(has(render_error(o, expansion(), ErrorCategory::invalid_input), "is absolute"));
  o.config = "../other/relforge.toml";
  EXPECT_TRUE(has(render_error(o, expansion(), ErrorCategory::invalid_input), "leaves the repository"));
  o = options();
  o.state_dir = ".relforge";
  EXPECT_TRUE(
      has(render_error(o, expansion(), ErrorCategory::invalid_input), "upload-artifact skips hidden paths"));
  o = options();
  o.config = "relforge-${{ github.ref }}.toml";
  EXPECT_TRUE(has(render_error(o, expansion(), ErrorCategory::invalid_input), "GitHub would evaluate"));
  o.config = "a\nb.toml";
  EXPECT_TRUE(has(render_error(o, expansion(), ErrorCategory::invalid_input), "control character"));
}

TEST(Workflow, RefusesBadSchedulesAndLimits) {
  auto o = options();
  o.schedules = {"0 3 * *"};
  EXPECT_TRUE(has(render_error(o, expansion(), ErrorCategory::invalid_input), "has 4 fields"));
  o.schedules = {"0 3 * * * ;"};
  EXPECT_TRUE(has(render_error(o, expansion(), ErrorCategory::invalid_input), "';' is not a cron field"));
  o = options();
  o.timeout_minutes = 0;
  EXPECT_TRUE(has(render_error(o, expansion(), ErrorCategory::invalid_input), "--timeout-minutes 0"));
  o = options();
  o.setup_command = "  ";
  EXPECT_TRUE(has(render_error(o, expansion(), ErrorCategory::invalid_input), "--setup-command is empty"));
}

TEST(Workflow, SecretNamesCannotCarryExpressions) {
  auto o = options();
  o.ci.signing_key_secret = "KEY }} ${{ github.token";
  EXPECT_TRUE(has(render_error(o, expansion(), ErrorCategory::invalid_input),
                  "[ci] secret name 'KEY }} ${{ github.token' is not a secret name"));
  o = options();
  o.ci.secrets = {"1AWS"};
  EXPECT_TRUE(has(render_error(o, expansion(), ErrorCategory::invalid_input), "'1AWS' is not a secret name"));
  o = options();
  o.ci.owner = "it's";
  o.ci.labels = {"ciflow/it's"};
  const auto result = render_workflow(o, expansion());
  ASSERT_TRUE(result) << result.error().describe();
  EXPECT_TRUE(has(result->yaml, "github.repository_owner == 'it''s'")) << result->yaml;
  EXPECT_TRUE(has(result->yaml, "contains(github.event.pull_request.labels.*.name, 'ciflow/it''s')"));
}

TEST(Workflow, SelectAndSkipReachThePlanJobQuoted) {
  auto o = options();
  o.select = {"cp312-*"};
  o.skip = {"*t-*", "it's"};
  const auto result = render_workflow(o, expansion());
  ASSERT_TRUE(result);
  EXPECT_EQ(count(result->yaml, " --select 'cp312-*' --skip '*t-*' --skip 'it'\\''s'"), 1u)
      << result->yaml;  // plan
}

TEST(YamlScalar, PlainWhenItReadsBackAsTheSameString) {
  for (const char* text :
       {"ubuntu-latest", "${{ matrix.runner }}", "actions/checkout@v4", "relforge-state/wheels/*.whl",
        "v[0-9]+.[0-9]+-rc[0-9]+", "build ${{ matrix.id }}", "a#b", "a:b", "x y"}) {
    EXPECT_EQ(yaml_scalar(text), text);
  }
}

TEST(YamlScalar, QuotesWhatAParserWouldReadDifferently) {
  EXPECT_EQ(yaml_scalar(""), "\"\"");
  EXPECT_EQ(yaml_scalar("23 3 * * *"), "\"23 3 * * *\"");  // a number would start it
  EXPECT_EQ(yaml_scalar("3.12"), "\"3.12\"");
  EXPECT_EQ(yaml_scalar("-1"), "\"-1\"");
  EXPECT_EQ(yaml_scalar(".5"), "\".5\"");
  EXPECT_EQ(yaml_scalar(".inf"), "\".inf\"");
  for (const char* word : {"on", "Off", "yes", "NO", "true", "False", "null", "~", "y", "n"})
    EXPECT_EQ(yaml_scalar(word), "\"" + std::string(word) + "\"");
  for (const char* text :
       {"a: b", "a #b", "-x",  "*ref", "&anchor", "!tag", "|",  ">",     "'q",     "\"q",  "%x",
        "@x",   "`x",   "{a}", "[a]",  ",a",      "?x",   "#c", " lead", "trail ", "end:", "<<"}) {
    EXPECT_EQ(yaml_scalar(text).front(), '"') << text;
  }
}

TEST(YamlScalar, EscapesInDoubleQuotes) {
  EXPECT_EQ(yaml_scalar("say \"hi\"\\now: x"), "\"say \\\"hi\\\"\\\\now: x\"");
  EXPECT_EQ(yaml_scalar("a\nb\tc\rd"), "\"a\\nb\\tc\\rd\"");
  EXPECT_EQ(yaml_scalar(std::string("a\x01") + "\x7f"), "\"a\\x01\\x7f\"");
  EXPECT_EQ(yaml_scalar("naïve: ü"), "\"naïve: ü\"");  // UTF-8 stays as it is
}

// PyYAML is a YAML 1.1 parser: it reads NEL, U+2028 and U+2029 as line breaks and refuses C1
// controls. Every value must read back as itself there, in a plain, literal or quoted scalar.
TEST(YamlScalar, EveryValueReadsBackUnchangedInAYaml11Parser) {
  const std::vector<std::string> values = {"linux.2xlarge",
                                           "a\xc2\x85"
                                           "b",
                                           "x\xe2\x80\xa8"
                                           "y",
                                           "p\xe2\x80\xa9"
                                           "q",
                                           "\xef\xbb\xbf"
                                           "bom",
                                           "c1\xc2\x9b"
                                           "x",
                                           "two\nlines\xe2\x80\xa8"
                                           "here\n",
                                           "on",
                                           "a: b",
                                           "naïve ü",
                                           "tab\there"};
  Yaml root = Yaml::map();
  Yaml list = Yaml::seq();
  for (const auto& value : values) list.push(Yaml::str(value));
  root.add("values", std::move(list));
  const std::string document = yaml_document(root);
  const auto parsed = ::relforge::test::run_shell(
      "/usr/bin/python3 -c 'import json, sys, yaml; "
      "print(json.dumps(yaml.safe_load(sys.stdin.buffer.read().decode()), ensure_ascii=True))'",
      document);
  ASSERT_EQ(parsed.exit_code, 0) << parsed.err << document;
  nlohmann::json expected = {{"values", values}};
  EXPECT_EQ(nlohmann::json::parse(parsed.out), expected) << document;
}

}  // namespace
}  // namespace relforge::builders
