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
  };
  return k_migrations;
}

}  // namespace relforge::ci_relay
