// Runs the Linux jobs of a workflow `relforge ci workflow` wrote, here, in order, for
// tests/e2e/ci_run_test.cpp: each `run:` step with bash as GitHub runs it (`bash --noprofile --norc
// -eo pipefail`), its `env:` and the workflow's, `${{ }}` expressions of the kinds relforge writes
// substituted (matrix.*, needs.plan.outputs.*, steps.*.outputs.*, secrets.*, runner.*), and
// $GITHUB_OUTPUT, $GITHUB_ENV and $GITHUB_PATH honoured. `uses:` steps are emulated minimally:
// checkout copies the repository into a fresh workspace, upload/download-artifact copy to and from
// a folder per artifact, setup-python and cache do nothing, and the "Install relforge" step puts the
// relforge under test on PATH instead of asking an index. Jobs whose runner is a host prefix
// (build-host*) are skipped: only Linux runs here. A step whose `if:` asks for failure() is skipped.
//
//   node run_workflow.cjs <relforge source dir> WORKFLOW REPO WORK RELFORGE_BIN_DIR SECRETS_JSON
//
// Prints each step as it runs; exits 1 at the first failing step.
"use strict";
const path = require("node:path");
const fs = require("node:fs");
const { spawnSync } = require("node:child_process");

const [source, workflowFile, repoArg, workArg, relforgeArg, secretsJson] = process.argv.slice(2);
const [repo, work, relforgeDir] = [repoArg, workArg, relforgeArg].map((p) => path.resolve(p));
const YAML = require(path.join(source, "node_modules", "yaml"));
const workflow = YAML.parse(fs.readFileSync(workflowFile, "utf8"));
const secrets = JSON.parse(secretsJson || "{}");
const artifacts = path.join(work, "artifacts");
fs.mkdirSync(artifacts, { recursive: true });
const jobOutputs = {};

function expression(text, context) {
  const value = (inner) => {
    inner = inner.trim();
    let match;
    if ((match = /^fromJSON\((.*)\)$/.exec(inner))) return JSON.parse(value(match[1]));
    if ((match = /^matrix\.([A-Za-z0-9_-]+)$/.exec(inner))) return context.matrix[match[1]];
    if ((match = /^needs\.([A-Za-z0-9_-]+)\.outputs\.([A-Za-z0-9_-]+)$/.exec(inner)))
      return (jobOutputs[match[1]] || {})[match[2]] ?? "";
    if ((match = /^steps\.([A-Za-z0-9_-]+)\.outputs\.([A-Za-z0-9_-]+)$/.exec(inner)))
      return (context.steps[match[1]] || {})[match[2]] ?? "";
    if ((match = /^secrets\.([A-Za-z0-9_]+)$/.exec(inner))) return secrets[match[1]] ?? "";
    if (inner === "runner.os") return "Linux";
    if (inner === "runner.arch") return "X64";
    throw new Error(`expression not emulated: ${inner}`);
  };
  if (typeof text !== "string") return text;
  const whole = /^\$\{\{(.*)\}\}$/s.exec(text);
  if (whole && !whole[1].includes("}}")) return value(whole[1]);
  return text.replace(/\$\{\{(.*?)\}\}/g, (_, inner) => String(value(inner)));
}

function copyTree(from, to) {
  fs.mkdirSync(to, { recursive: true });
  fs.cpSync(from, to, { recursive: true });
}

function upload(workspace, withs) {
  const dir = path.join(artifacts, withs.name);
  fs.mkdirSync(dir, { recursive: true });
  const pattern = withs.path;
  let files = [];
  if (pattern.endsWith("/")) {
    const root = path.join(workspace, pattern);
    if (fs.existsSync(root)) copyTree(root, dir);
    files = fs.existsSync(root) ? fs.readdirSync(root) : [];
  } else {
    const folder = path.join(workspace, path.dirname(pattern));
    const re = new RegExp("^" + path.basename(pattern).replace(/\./g, "\\.").replace(/\*/g, ".*") + "$");
    files = fs.existsSync(folder) ? fs.readdirSync(folder).filter((f) => re.test(f)) : [];
    for (const f of files) fs.copyFileSync(path.join(folder, f), path.join(dir, f));
  }
  if (files.length === 0 && withs["if-no-files-found"] === "error") throw new Error(`upload ${withs.name}: no files`);
  console.log(`  uploaded ${withs.name}: ${files.join(", ")}`);
}

function download(workspace, withs) {
  const re = new RegExp("^" + String(withs.pattern || "*").replace(/\*/g, ".*") + "$");
  const to = path.join(workspace, withs.path || ".");
  fs.mkdirSync(to, { recursive: true });
  for (const name of fs.readdirSync(artifacts).filter((n) => re.test(n)))
    copyTree(path.join(artifacts, name), withs["merge-multiple"] ? to : path.join(to, name));
}

function runJob(id, job, matrix) {
  const workspace = path.join(work, "ws-" + id + (matrix.id ? "-" + matrix.id : ""));
  const temp = workspace + ".tmp";
  fs.rmSync(workspace, { recursive: true, force: true });
  fs.mkdirSync(workspace, { recursive: true });
  fs.mkdirSync(temp, { recursive: true });
  const context = { matrix, steps: {} };
  const env = { ...process.env, GITHUB_ACTIONS: "true", GITHUB_WORKSPACE: workspace, RUNNER_TEMP: temp,
                GITHUB_SHA: "0123456789abcdef0123456789abcdef01234567", GITHUB_REPOSITORY: "minitensor/minitensor",
                GITHUB_SERVER_URL: "https://github.com", GITHUB_REF: "refs/heads/main",
                GITHUB_EVENT_NAME: "workflow_dispatch" };
  for (const [k, v] of Object.entries(workflow.env || {})) env[k] = expression(v, context);
  const extraPath = [];
  for (const [index, step] of job.steps.entries()) {
    const name = expression(step.name || `step ${index}`, context);
    if (typeof step.if === "string" && step.if.includes("failure()")) continue;
    console.log(`[${id}${matrix.id ? " " + matrix.id : ""}] ${name}`);
    if (step.uses) {
      const withs = Object.fromEntries(Object.entries(step.with || {}).map(([k, v]) => [k, expression(v, context)]));
      if (step.uses.startsWith("actions/checkout@")) copyTree(repo, workspace);
      else if (step.uses.startsWith("actions/upload-artifact@")) upload(workspace, withs);
      else if (step.uses.startsWith("actions/download-artifact@")) download(workspace, withs);
      else if (!step.uses.startsWith("actions/setup-python@") && !step.uses.startsWith("actions/cache@"))
        throw new Error(`action not emulated: ${step.uses}`);
      continue;
    }
    if (name === "Install relforge") {
      extraPath.unshift(relforgeDir);
      continue;
    }
    if (step.shell !== "bash") throw new Error(`${id}: step "${name}" has no shell: bash`);
    const files = { GITHUB_OUTPUT: path.join(temp, "output"), GITHUB_ENV: path.join(temp, "env"),
                    GITHUB_PATH: path.join(temp, "path") };
    for (const file of Object.values(files)) fs.writeFileSync(file, "");
    const stepEnv = { ...env, ...files };
    for (const [k, v] of Object.entries(step.env || {})) stepEnv[k] = String(expression(v, context));
    stepEnv.PATH = [...extraPath, env.PATH].join(":");
    const script = path.join(temp, "step.sh");
    fs.writeFileSync(script, expression(step.run, context));
    const result = spawnSync("bash", ["--noprofile", "--norc", "-eo", "pipefail", script],
                             { cwd: workspace, env: stepEnv, stdio: "inherit" });
    if (result.status !== 0) {
      console.log(`FAILED: job ${id}, step "${name}" exited ${result.status}`);
      process.exit(1);
    }
    const outputs = {};
    for (const line of fs.readFileSync(files.GITHUB_OUTPUT, "utf8").split("\n")) {
      const at = line.indexOf("=");
      if (at > 0) outputs[line.slice(0, at)] = line.slice(at + 1);
    }
    if (step.id) context.steps[step.id] = outputs;
    for (const line of fs.readFileSync(files.GITHUB_ENV, "utf8").split("\n")) {
      const at = line.indexOf("=");
      if (at > 0) env[line.slice(0, at)] = line.slice(at + 1);
    }
    for (const line of fs.readFileSync(files.GITHUB_PATH, "utf8").split("\n")) if (line) extraPath.unshift(line);
  }
  const outputs = {};
  for (const [k, v] of Object.entries(job.outputs || {})) outputs[k] = expression(v, context);
  return outputs;
}

for (const [id, job] of Object.entries(workflow.jobs)) {
  if (id.startsWith("build-host")) continue;  // Windows and macOS runners
  const strategy = job.strategy && job.strategy.matrix;
  const cells = strategy ? expression(strategy, { matrix: {}, steps: {} }).include : [{}];
  for (const cell of cells) jobOutputs[id] = { ...(jobOutputs[id] || {}), ...runJob(id, job, cell) };
}
console.log("workflow done");
