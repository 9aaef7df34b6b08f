#include "ci_relay/schema.hpp"

namespace relforge::ci_relay {

const std::vector<std::string>& schema_migrations() {
  static const std::vector<std::string> k_migrations = {
      R"sql(
CREATE TABLE deliveries (
  id INTEGER PRIMARY KEY,
  delivery_id TEXT NOT NULL UNIQUE,
  event TEXT NOT NULL,
  received_at INTEGER NOT NULL,
  body BLOB NOT NULL,
  state TEXT NOT NULL DEFAULT 'pending',  -- pending | processed | ignored | rejected
  note TEXT
);
CREATE INDEX deliveries_pending ON deliveries(state) WHERE state = 'pending';
CREATE TABLE dead_letters (
  id INTEGER PRIMARY KEY,
  delivery_id TEXT,
  event TEXT,
  received_at INTEGER NOT NULL,
  reason TEXT NOT NULL,
  body BLOB NOT NULL
);
CREATE TABLE counters (name TEXT PRIMARY KEY, value INTEGER NOT NULL);
CREATE TABLE commits (
  sha TEXT PRIMARY KEY,
  seq INTEGER NOT NULL UNIQUE,  -- position in the upstream first-parent order, 1-based
  message TEXT NOT NULL DEFAULT '',
  author TEXT NOT NULL DEFAULT '',
  committed_at INTEGER NOT NULL
);
CREATE TABLE pull_requests (
  number INTEGER PRIMARY KEY,
  head_sha TEXT NOT NULL,
  base_sha TEXT NOT NULL,
  state TEXT NOT NULL,
  labels TEXT NOT NULL DEFAULT ''  -- newline separated
);
CREATE TABLE runs (
  repo TEXT NOT NULL, kind TEXT NOT NULL, run_id INTEGER NOT NULL, run_attempt INTEGER NOT NULL,
  name TEXT NOT NULL, head_sha TEXT NOT NULL, event TEXT, status TEXT NOT NULL, conclusion TEXT,
  url TEXT,
  PRIMARY KEY (repo, kind, run_id, run_attempt)
);
CREATE TABLE jobs (
  id INTEGER PRIMARY KEY,
  repo TEXT NOT NULL, workflow TEXT NOT NULL, job TEXT NOT NULL,
  run_id INTEGER NOT NULL, run_attempt INTEGER NOT NULL,
  head_sha TEXT NOT NULL,
  status TEXT NOT NULL,           -- queued | in_progress | completed
  conclusion TEXT,                -- GitHub's conclusion once completed
  queued_at INTEGER, started_at INTEGER, completed_at INTEGER,
  url TEXT, runner_name TEXT,
  classification TEXT,            -- the triage rule that explains a failure ('' when none matched)
  source TEXT NOT NULL,           -- workflow_job | check_run | callback
  UNIQUE (repo, workflow, job, run_id, run_attempt)
);
CREATE INDEX jobs_by_sha ON jobs(head_sha);
CREATE INDEX jobs_by_key ON jobs(repo, workflow, job);
CREATE TABLE breakages (
  id INTEGER PRIMARY KEY,
  repo TEXT NOT NULL, workflow TEXT NOT NULL, job TEXT NOT NULL,
  last_good_sha TEXT NOT NULL, first_bad_sha TEXT NOT NULL,
  suspects INTEGER NOT NULL,      -- commits in (last good, first bad]
  culprit_sha TEXT,               -- set when suspects = 1
  opened_at INTEGER NOT NULL,
  detection_latency_s INTEGER,    -- opened_at - time of the culprit (or first suspect) commit
  fixed_sha TEXT, closed_at INTEGER,
  state TEXT NOT NULL             -- open | closed | retracted
);
CREATE INDEX breakages_by_state ON breakages(state);
CREATE TABLE outbox (
  id INTEGER PRIMARY KEY,
  kind TEXT NOT NULL,             -- dispatch | check_run
  target_repo TEXT NOT NULL,      -- whose token authenticates the call
  path TEXT NOT NULL,             -- API path below api_base
  body TEXT NOT NULL,
  delivery_id TEXT,
  attempts INTEGER NOT NULL DEFAULT 0,
  next_attempt_at INTEGER NOT NULL,
  state TEXT NOT NULL DEFAULT 'pending',  -- pending | sent | failed
  last_error TEXT,
  created_at INTEGER NOT NULL, sent_at INTEGER
);
CREATE INDEX outbox_due ON outbox(state, next_attempt_at);
CREATE TABLE dispatches (
  delivery_id TEXT NOT NULL, repo TEXT NOT NULL, dispatched_at INTEGER NOT NULL,
  PRIMARY KEY (delivery_id, repo)
);
)sql",
      // 2: triage classifications on job rows, the log-fetch queue, the PR author, and an index
      // for the per-job history walks of attribution, the breakage view and the zombie sweep.
      R"sql(
ALTER TABLE jobs ADD COLUMN github_job_id INTEGER;           -- workflow_job.id (its log's address)
ALTER TABLE jobs ADD COLUMN classification_category TEXT;    -- the rule's category
ALTER TABLE jobs ADD COLUMN classification_line TEXT;        -- the cleaned log line the rule matched
ALTER TABLE jobs ADD COLUMN classification_line_num INTEGER;
ALTER TABLE jobs ADD COLUMN classification_captures TEXT;    -- JSON array of the regex captures
ALTER TABLE jobs ADD COLUMN classification_flaky INTEGER;    -- 1 when the rule is a flaky/infra rule
CREATE INDEX jobs_by_github_id ON jobs(repo, github_job_id);
CREATE INDEX jobs_by_key_sha ON jobs(repo, workflow, job, head_sha);
CREATE INDEX jobs_in_progress ON jobs(started_at) WHERE status = 'in_progress';  -- the zombie sweep
ALTER TABLE pull_requests ADD COLUMN author TEXT NOT NULL DEFAULT '';
CREATE TABLE log_fetches (
  job_row INTEGER PRIMARY KEY,    -- jobs.id of the failed job
  repo TEXT NOT NULL, github_job_id INTEGER NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0,
  next_attempt_at INTEGER NOT NULL,
  state TEXT NOT NULL DEFAULT 'pending',  -- pending | done | failed
  last_error TEXT
);
CREATE INDEX log_fetches_due ON log_fetches(state, next_attempt_at);
)sql",
      // 3: a delivery's state moves out of its row. Updating `deliveries.state` rewrote the whole
      // row, the KB-sized body's overflow pages included, once per normalised delivery. Now the
      // normaliser advances one cursor per batch and writes a row only for the exceptions
      // (ignored, rejected, or a note); the `deliveries` view answers the old queries unchanged.
      // Check runs look up pull requests by head SHA. What this step retires (the old state
      // columns, their index, and jobs_by_key, a prefix of jobs_by_key_sha) is dropped by
      // schema_cleanup(): SQLite cannot drop a b-tree while the migration runner's statement is open.
      R"sql(
ALTER TABLE deliveries RENAME TO delivery_log;
CREATE TABLE normalise_cursor (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  upto INTEGER NOT NULL           -- every delivery_log row with id <= upto has been handled
);
CREATE TABLE delivery_outcomes (
  delivery INTEGER PRIMARY KEY,   -- delivery_log.id
  state TEXT NOT NULL,            -- processed | ignored | rejected
  note TEXT                       -- why
);
INSERT INTO normalise_cursor(id, upto) VALUES (1, COALESCE(
  (SELECT MIN(id) - 1 FROM delivery_log WHERE state = 'pending'), (SELECT MAX(id) FROM delivery_log), 0));
INSERT INTO delivery_outcomes(delivery, state, note)
  SELECT id, state, note FROM delivery_log WHERE state != 'pending' AND
    (state != 'processed' OR note IS NOT NULL OR id > (SELECT upto FROM normalise_cursor));
CREATE VIEW deliveries AS
  SELECT l.id, l.delivery_id, l.event, l.received_at, l.body,
         COALESCE(o.state, CASE WHEN l.id <= (SELECT upto FROM normalise_cursor) THEN 'processed'
                                ELSE 'pending' END) AS state,
         o.note
  FROM delivery_log l LEFT JOIN delivery_outcomes o ON o.delivery = l.id;
CREATE INDEX pull_requests_by_head ON pull_requests(head_sha);
)sql",
      // 4: the upstream's issues, as `issues` webhooks report them: an open "UNSTABLE <job>" or
      // "DISABLED <test> (<Class>)" issue explains a PR's failure when a maintainer (or a bot)
      // opened it: anyone can open an issue on a public repository.
      R"sql(
CREATE TABLE issues (
  number INTEGER PRIMARY KEY,
  title TEXT NOT NULL,
  state TEXT NOT NULL,            -- open | closed
  trusted INTEGER NOT NULL,       -- 1: opened by a bot or the repository's owner/member/collaborator
  updated_at INTEGER NOT NULL
);
CREATE INDEX issues_open ON issues(state) WHERE state = 'open';
)sql",
      // 5: the push chain. GitHub delivers pushes in any order (a redelivered one arrives late), so
      // each commit keeps the commit it was pushed after, and the order follows those links rather
      // than arrival. Commits stored before this step have none: they keep the order they have.
      R"sql(
ALTER TABLE commits ADD COLUMN parent_sha TEXT NOT NULL DEFAULT '';  -- pushed after; '' unknown
CREATE INDEX commits_by_parent ON commits(parent_sha);
)sql",
  };
  return k_migrations;
}

Status schema_cleanup(platform::Database& db) {
  auto tx = platform::Transaction::begin(db);
  if (!tx) return tl::unexpected(tx.error());
  bool old_columns = false;
  {
    auto stmt = db.prepare("SELECT COUNT(*) FROM pragma_table_info('delivery_log') WHERE name = 'state'");
    if (!stmt) return tl::unexpected(stmt.error());
    auto row = stmt->step();
    if (!row) return tl::unexpected(row.error());
    old_columns = *row && stmt->column_int(0) > 0;
  }
  if (!old_columns) return tx->commit();
  // Dropping a column rewrites every row once, on the first open after the upgrade.
  if (auto ok = db.execute("DROP INDEX IF EXISTS deliveries_pending; DROP INDEX IF EXISTS jobs_by_key; "
                           "ALTER TABLE delivery_log DROP COLUMN state; "
                           "ALTER TABLE delivery_log DROP COLUMN note;");
      !ok) {
    return ok;
  }
  return tx->commit();
}

}  // namespace relforge::ci_relay
