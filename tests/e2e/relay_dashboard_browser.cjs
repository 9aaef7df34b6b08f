// Drives headless Chromium over the DevTools protocol (--remote-debugging-pipe: no dependencies)
// against a running `relforge relay serve`, and prints what it observed as one JSON document for
// tests/e2e/relay_dashboard_browser_test.cpp to assert on. Screenshots go to --out.
// usage: node relay_dashboard_browser.cjs CHROMIUM BASE_URL WEBHOOK_SECRET OUT_DIR
'use strict';
const { spawn } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const [chromiumPath, base, secret, outDir] = process.argv.slice(2);
const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'relforge-dash-chrome-'));
const chrome = spawn(
  chromiumPath,
  ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--hide-scrollbars',
   '--no-first-run', '--remote-debugging-pipe', `--user-data-dir=${profile}`, '--window-size=1400,1000',
   'about:blank'],
  // Its own process group, so its helper processes end with it.
  { stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'], detached: true });
const exited = new Promise((resolve) => chrome.on('exit', resolve));
let chromeLog = '';
chrome.stderr.on('data', (d) => { chromeLog = (chromeLog + d).slice(-4000); });

let nextId = 1;
const pending = new Map();
const listeners = [];
let buffer = '';
chrome.stdio[4].on('data', (chunk) => {
  buffer += chunk.toString('utf8');
  let end;
  while ((end = buffer.indexOf('\0')) >= 0) {
    const message = JSON.parse(buffer.slice(0, end));
    buffer = buffer.slice(end + 1);
    if (message.id && pending.has(message.id)) {
      const { resolve, reject } = pending.get(message.id);
      pending.delete(message.id);
      if (message.error) reject(new Error(JSON.stringify(message.error)));
      else resolve(message.result);
    } else if (message.method) {
      for (const l of listeners) l(message);
    }
  }
});
function send(method, params = {}, sessionId) {
  const id = nextId++;
  const message = { id, method, params };
  if (sessionId) message.sessionId = sessionId;
  chrome.stdio[3].write(JSON.stringify(message) + '\0');
  return new Promise((resolve, reject) => pending.set(id, { resolve, reject }));
}
function waitFor(predicate, ms, what) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), ms);
    listeners.push((m) => { if (predicate(m)) { clearTimeout(timer); resolve(m); } });
  });
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const problems = [];  // console errors and policy violations seen by the page
let session;
async function page(method, params) { return send(method, params, session); }
async function evaluate(expression) {
  const r = await page('Runtime.evaluate', { expression, returnByValue: true, awaitPromise: true });
  if (r.exceptionDetails) throw new Error(`${expression}: ${JSON.stringify(r.exceptionDetails)}`);
  return r.result.value;
}
async function load(url) {
  const loaded = waitFor((m) => m.method === 'Page.loadEventFired' && m.sessionId === session, 20000, url);
  await page('Page.navigate', { url });
  await loaded;
}
async function until(expression, ms, what) {
  const deadline = Date.now() + ms;
  for (;;) {
    if (await evaluate(expression)) return true;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}
async function screenshot(name, clipExpression) {
  let clip;
  if (clipExpression) {
    clip = await evaluate(clipExpression);
  } else {
    const metrics = await page('Page.getLayoutMetrics');
    clip = { x: 0, y: 0, width: 1400, height: Math.min(4000, Math.ceil(metrics.cssContentSize.height)) };
  }
  clip.scale = 1;
  const shot = await page('Page.captureScreenshot', { format: 'png', clip, captureBeyondViewport: true });
  const file = path.join(outDir, name);
  fs.writeFileSync(file, Buffer.from(shot.data, 'base64'));
  return file;
}
async function postJob(job) {
  const body = JSON.stringify({ action: 'completed', repository: { full_name: job.repo }, workflow_job: job.payload });
  const signature = 'sha256=' + crypto.createHmac('sha256', secret).update(body).digest('hex');
  const r = await fetch(`${base}/webhook`, {
    method: 'POST', body,
    headers: { 'Content-Type': 'application/json', 'X-GitHub-Event': 'workflow_job',
               'X-GitHub-Delivery': job.delivery, 'X-Hub-Signature-256': signature } });
  return r.status;
}

// DOM facts about the page, gathered in the page.
const FACTS = `(() => {
  const q = (s) => Array.from(document.querySelectorAll(s));
  const cellLinks = q('#grid td.c a').map((a) => a.getAttribute('href'));
  const rows = q('#grid tr.commit');
  return {
    title: document.title,
    search: location.search,
    breakages: q('#breakages tr.breakage').map((tr) => tr.textContent),
    rangeLinks: q('#breakages a.range').map((a) => a.getAttribute('href')),
    runLinks: q('#breakages td a').filter((a) => a.textContent === 'run').map((a) => a.getAttribute('href')),
    cellLinks, cellLinkCount: cellLinks.length,
    badCellLinks: cellLinks.filter((h) => !/^https:\\/\\/github\\.com\\/v\\/[a-z]+\\/actions\\/runs\\/[0-9]+$/.test(h)),
    rows: rows.length,
    firstSha: rows.length ? rows[0].getAttribute('data-sha') : null,
    firstCommitLink: rows.length ? rows[0].querySelector('a.sha').getAttribute('href') : null,
    firstRowText: rows.length ? rows[0].textContent : '',
    columns: q('#grid th.col').map((th) => th.textContent),
    greenRows: rows.filter((tr) => Array.from(tr.querySelectorAll('td.c')).every((td) =>
      td.classList.contains('ok') || td.classList.contains('skip') || td.classList.contains('none'))).length,
    flakyCells: q('#grid td.c.flaky').length,
    flakyLinks: q('#grid td.c.flaky a').map((a) => a.getAttribute('href')),
    legend: q('#legend li').map((li) => li.textContent),
    sparklines: q('#health svg.spark').length,
    sparkBars: q('#health svg.spark rect').length,
    healthText: document.getElementById('health').textContent,
    failBackground: (() => { const td = document.querySelector('#grid td.c.fail');
                             return td ? getComputedStyle(td).backgroundColor : null; })(),
    pagerText: document.getElementById('pager').textContent,
    updates: Number(document.getElementById('dash').getAttribute('data-updates')),
    status: document.getElementById('updated').textContent,
    injected: q('#grid img, #grid svg, #grid script').length,
    pwned: window.__pwned === true,
  };
})()`;

async function main() {
  fs.mkdirSync(outDir, { recursive: true });
  const targets = await send('Target.getTargets');
  const pageTarget = targets.targetInfos.find((t) => t.type === 'page');
  session = (await send('Target.attachToTarget', { targetId: pageTarget.targetId, flatten: true })).sessionId;
  listeners.push((m) => {
    if (m.sessionId !== session) return;
    // The browser's own favicon request is answered 404: not the page's doing.
    const entry = m.method === 'Log.entryAdded' ? m.params.entry : null;
    if (entry && !/\/favicon\.ico$/.test(entry.url || '') &&
        (entry.level === 'error' || /Content Security Policy/.test(entry.text)))
      problems.push(`${entry.text} ${entry.url || ''}`);
    if (m.method === 'Runtime.exceptionThrown') problems.push(JSON.stringify(m.params.exceptionDetails.text));
    if (m.method === 'Runtime.consoleAPICalled' && m.params.type === 'error')
      problems.push(m.params.args.map((a) => a.value).join(' '));
  });
  await page('Page.enable');
  await page('Runtime.enable');
  await page('Log.enable');
  await page('Emulation.setDeviceMetricsOverride', { width: 1400, height: 1000, deviceScaleFactor: 1, mobile: false });
  const out = { screenshots: {} };

  // 1. The whole dashboard with its open breakage.
  await load(`${base}/?refresh=1`);
  out.open = await evaluate(FACTS);
  out.screenshots.open_breakage = await screenshot('dashboard-open-breakage.png');

  // 2. The flaky cell, and the rows around it.
  out.screenshots.flaky_cell = await screenshot('dashboard-flaky-cell.png', `(() => {
    const td = document.querySelector('#grid td.c.flaky'); const table = td.closest('table');
    const t = table.getBoundingClientRect(); const r = td.getBoundingClientRect();
    const top = Math.max(t.top, r.top - 120) + window.scrollY;
    return { x: t.left + window.scrollX, y: top, width: Math.min(1400, t.width), height: 280 };
  })()`);

  // 3. Filters: fill the form as a person would and submit; the API answers the same parameters.
  await evaluate(`(() => { const f = document.getElementById('filters');
    f.querySelector('[name=repo]').value = 'v/vision';
    f.querySelector('[name=hide_green]').checked = true; return true; })()`);
  const navigated = waitFor((m) => m.method === 'Page.loadEventFired' && m.sessionId === session, 20000, 'filter submit');
  await evaluate(`document.querySelector('#filters button[type=submit]').click(), true`);
  await navigated;
  out.filtered = await evaluate(FACTS);
  out.filteredApi = await evaluate(`fetch('/api/dashboard' + location.search).then((r) => r.json()).then((d) =>
    ({ filter: d.filter, columns: d.columns.map((c) => c.name), rows: d.rows.length, hidden: d.hidden_green }))`);
  out.screenshots.filtered = await screenshot('dashboard-filtered.png');

  // 4. Paging by commit.
  await load(`${base}/?per_page=10&refresh=1`);
  out.page1 = await evaluate(FACTS);
  const paged = waitFor((m) => m.method === 'Page.loadEventFired' && m.sessionId === session, 20000, 'next page');
  await evaluate(`document.querySelector('#pager a[rel=next]').click(), true`);
  await paged;
  out.page2 = await evaluate(FACTS);

  // 5. New data arrives while the page is open: it updates in place, with hostile names inert.
  await load(`${base}/?refresh=1`);
  await evaluate(`window.__marker = 'kept', true`);
  out.before = await evaluate(FACTS);
  const head = out.before.firstSha;
  out.posted = [
    await postJob({ repo: 'v/accel', delivery: 'browser-lint-1', payload: {
      id: 777001, run_id: 777, run_attempt: 1, head_sha: head, name: 'lint', workflow_name: 'ci',
      status: 'completed', conclusion: 'failure', html_url: 'https://github.com/v/accel/actions/runs/777' } }),
    await postJob({ repo: 'v/accel', delivery: 'browser-hostile-1', payload: {
      id: 778001, run_id: 778, run_attempt: 1, head_sha: head,
      name: '"><img src=x onerror="window.__pwned=true">', workflow_name: '<script>window.__pwned=true</script>',
      status: 'completed', conclusion: 'success', html_url: 'javascript:window.__pwned=true' } }),
  ];
  await until(`document.querySelectorAll('#grid th.col').length >= ${out.before.columns.length + 2}`, 20000,
              'the new columns to appear without a reload');
  out.after = await evaluate(FACTS);
  out.marker = await evaluate(`window.__marker`);
  out.hostileCell = await evaluate(`(() => {
    const i = Array.from(document.querySelectorAll('#grid th.col')).findIndex((th) => th.textContent.includes('onerror'));
    const td = document.querySelectorAll('#grid tr.commit')[0].querySelectorAll('td.c')[i];
    return { header: document.querySelectorAll('#grid th.col')[i].textContent, links: td.querySelectorAll('a').length,
             text: td.textContent };
  })()`);
  out.lintLink = await evaluate(`(() => {
    const i = Array.from(document.querySelectorAll('#grid th.col')).findIndex((th) => th.textContent === 'v/accel · ci / lint');
    const a = document.querySelectorAll('#grid tr.commit')[0].querySelectorAll('td.c')[i].querySelector('a');
    return a ? a.getAttribute('href') : null; })()`);
  out.screenshots.refreshed = await screenshot('dashboard-refreshed.png');
  out.problems = problems;
  return out;
}

async function close() {
  await Promise.race([send('Browser.close').catch(() => {}), sleep(3000)]);
  await Promise.race([exited, sleep(3000)]);
  try { process.kill(-chrome.pid, 'SIGKILL'); } catch (e) { /* already gone */ }
  await Promise.race([exited, sleep(2000)]);
  try { fs.rmSync(profile, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 }); } catch (e) { /* a temp dir */ }
}

main()
  .then((out) => out, (e) => ({ error: String(e.stack || e), chrome: chromeLog, problems }))
  .then(async (out) => {
    await close();
    process.stdout.write(JSON.stringify(out) + '\n');
    process.exit(0);
  });
