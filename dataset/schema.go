package dataset

// migrations[i] upgrades a store from schema version i to i+1. Append only:
// never edit a migration that has shipped.
var migrations = []string{
	// 0 → 1: tasks, episodes, steps and reviews.
	`
CREATE TABLE meta (
	key   TEXT PRIMARY KEY,
	value TEXT NOT NULL
);
CREATE TABLE tasks (
	id          TEXT PRIMARY KEY,            -- UUID
	goal        TEXT NOT NULL,
	category    TEXT NOT NULL CHECK (category IN ('information','navigation','interaction')),
	start_url   TEXT NOT NULL,
	source      TEXT NOT NULL DEFAULT '',    -- "builtin", a file name, "adhoc", …
	check_json  TEXT,                        -- action.Check as JSON, or NULL
	archived    INTEGER NOT NULL DEFAULT 0,
	created_at  TEXT NOT NULL,               -- UTC, see timeFormat
	updated_at  TEXT NOT NULL,
	UNIQUE (goal, start_url)
);
CREATE INDEX tasks_category ON tasks (category, archived);
CREATE INDEX tasks_source ON tasks (source);

CREATE TABLE episodes (
	id            TEXT PRIMARY KEY,          -- UUID
	task_id       TEXT NOT NULL REFERENCES tasks (id),
	annotator     TEXT NOT NULL,             -- a person's name, or "agent:<name>"
	action_set    TEXT NOT NULL,             -- "default" or "extended"
	engine_json   TEXT NOT NULL DEFAULT '{}',-- engine.Info as JSON
	status        TEXT NOT NULL CHECK (status IN ('recording','finished','interrupted','discarded')),
	end_reason    TEXT NOT NULL DEFAULT '',  -- action.End* constants
	final_answer  TEXT NOT NULL DEFAULT '',
	final_url     TEXT NOT NULL DEFAULT '',
	auto_reward   REAL,                      -- automatic check result, a hint
	num_steps     INTEGER NOT NULL DEFAULT 0,-- actions taken (step 0 not counted)
	started_at    TEXT NOT NULL,
	ended_at      TEXT
);
CREATE INDEX episodes_task ON episodes (task_id);
CREATE INDEX episodes_status ON episodes (status, started_at);
CREATE INDEX episodes_annotator ON episodes (annotator);

CREATE TABLE steps (
	episode_id   TEXT NOT NULL REFERENCES episodes (id) ON DELETE CASCADE,
	idx          INTEGER NOT NULL,           -- 0 = the reset observation
	action_json  TEXT,                       -- exact action JSON the engine received; NULL for step 0
	op           TEXT NOT NULL DEFAULT '',
	url          TEXT NOT NULL DEFAULT '',
	title        TEXT NOT NULL DEFAULT '',
	error        TEXT NOT NULL DEFAULT '',
	done         INTEGER NOT NULL DEFAULT 0,
	screenshot   BLOB,                       -- PNG 800×600, the "after" of this step
	thumb        BLOB,                       -- cached thumbnail (PNG), filled lazily
	action_ms    INTEGER NOT NULL DEFAULT 0,
	settle_ms    INTEGER NOT NULL DEFAULT 0,
	capture_ms   INTEGER NOT NULL DEFAULT 0,
	total_ms     INTEGER NOT NULL DEFAULT 0,
	created_at   TEXT NOT NULL,
	PRIMARY KEY (episode_id, idx)
);

CREATE TABLE reviews (
	id              TEXT PRIMARY KEY,        -- UUID
	episode_id      TEXT NOT NULL REFERENCES episodes (id) ON DELETE CASCADE,
	reviewer        TEXT NOT NULL,
	outcome         TEXT NOT NULL CHECK (outcome IN ('success','failure','not_executable','invalid_task')),
	failure_step    INTEGER,
	failure_type    TEXT NOT NULL DEFAULT '',
	reason          TEXT NOT NULL DEFAULT '',
	step_flags_json TEXT NOT NULL DEFAULT '{}', -- {"3":["mistake"],"5":["unnecessary"]}
	settles         INTEGER NOT NULL DEFAULT 0, -- 1: a settling label for a conflict
	created_at      TEXT NOT NULL,
	superseded_by   TEXT REFERENCES reviews (id) -- history: an edit adds a row and points the old one here
);
CREATE INDEX reviews_episode ON reviews (episode_id, superseded_by);
CREATE INDEX reviews_reviewer ON reviews (reviewer);

-- The reviews in force: an edit supersedes the row it replaces.
CREATE VIEW current_reviews AS
	SELECT * FROM reviews WHERE superseded_by IS NULL;

-- One row per reviewed episode: its outcome is the newest settling label if
-- there is one, else the outcome all current (non-settling) reviews agree on;
-- NULL when they disagree (a conflict). The export uses this outcome.
CREATE VIEW episode_outcomes AS
	WITH r AS (SELECT * FROM current_reviews WHERE settles = 0),
	agg AS (
		SELECT episode_id, COUNT(*) AS num_reviews, COUNT(DISTINCT outcome) AS distinct_outcomes,
		       MIN(outcome) AS any_outcome
		FROM r GROUP BY episode_id
	),
	settled AS (
		SELECT s.* FROM current_reviews s
		WHERE s.settles = 1 AND s.created_at = (SELECT MAX(created_at) FROM current_reviews t WHERE t.settles = 1 AND t.episode_id = s.episode_id)
	),
	agreed AS (
		SELECT r.* FROM r JOIN agg USING (episode_id)
		WHERE agg.distinct_outcomes = 1
		  AND r.created_at = (SELECT MAX(created_at) FROM r r2 WHERE r2.episode_id = r.episode_id)
	)
	SELECT agg.episode_id,
	       agg.num_reviews,
	       CASE WHEN settled.id IS NOT NULL THEN settled.outcome WHEN agg.distinct_outcomes = 1 THEN agg.any_outcome END AS outcome,
	       COALESCE(settled.failure_step, agreed.failure_step) AS failure_step,
	       COALESCE(settled.failure_type, agreed.failure_type, '') AS failure_type,
	       COALESCE(settled.reason, agreed.reason, '') AS reason,
	       settled.id IS NOT NULL AS settled,
	       agg.distinct_outcomes > 1 AS conflict
	FROM agg
	LEFT JOIN settled ON settled.episode_id = agg.episode_id
	LEFT JOIN agreed ON agreed.episode_id = agg.episode_id;
`,
	// 1 → 2: episode ownership (so a second program opening the store never
	// marks a live recorder's episode interrupted), the task's id in the file it
	// was imported from, and the filters the task and episode lists use.
	`
ALTER TABLE episodes ADD COLUMN owner TEXT NOT NULL DEFAULT '';  -- "host|pid|start token" of the recording process
ALTER TABLE tasks ADD COLUMN source_id TEXT NOT NULL DEFAULT ''; -- the row's id in its source file, if any
CREATE INDEX episodes_started ON episodes (started_at);
CREATE INDEX episodes_task_status ON episodes (task_id, status, annotator);
`,
	// 2 → 3: text typed into password and payment fields is stored as
	// "[redacted]" unless the task keeps it (keep_secrets = 1).
	`
ALTER TABLE tasks ADD COLUMN keep_secrets INTEGER NOT NULL DEFAULT 0;
`,
	// 3 → 4: the page's clock, time zone and locale for a task's episodes.
	`
ALTER TABLE tasks ADD COLUMN reference_time TEXT NOT NULL DEFAULT ''; -- RFC 3339 with its offset, or ''
ALTER TABLE tasks ADD COLUMN timezone TEXT NOT NULL DEFAULT '';       -- IANA name, or ''
ALTER TABLE tasks ADD COLUMN locale TEXT NOT NULL DEFAULT '';         -- BCP 47 tag, or ''
`,
	// 4 → 5: edited episodes. Steps are never deleted: an undo while
	// recording, or a reviewer's removal or trim, sets steps.removed and adds
	// a row to episode_edits (who, when, why); a restore clears it and adds a
	// row too. A resumed episode gets a 'resume' row at the step it went on
	// from. A branch names the episode and step it continued from. A step can
	// carry the annotator's note.
	`
ALTER TABLE steps ADD COLUMN note TEXT NOT NULL DEFAULT '';      -- the annotator's note on this step
ALTER TABLE steps ADD COLUMN removed INTEGER NOT NULL DEFAULT 0; -- 1: left out of the edited episode
ALTER TABLE episodes ADD COLUMN parent_episode_id TEXT REFERENCES episodes (id); -- a branch's parent, or NULL
ALTER TABLE episodes ADD COLUMN branch_step INTEGER;             -- the parent's steps 1..branch_step were replayed
CREATE INDEX episodes_parent ON episodes (parent_episode_id);
CREATE TABLE episode_edits (
	id          INTEGER PRIMARY KEY AUTOINCREMENT,
	episode_id  TEXT NOT NULL REFERENCES episodes (id) ON DELETE CASCADE,
	step_idx    INTEGER,                     -- the step edited (for 'trim', the last step kept; for 'resume', the last replayed step)
	kind        TEXT NOT NULL CHECK (kind IN ('undo','remove','restore','trim','resume')),
	editor      TEXT NOT NULL,               -- the annotator or reviewer
	reason      TEXT NOT NULL DEFAULT '',
	created_at  TEXT NOT NULL
);
CREATE INDEX episode_edits_episode ON episode_edits (episode_id, id);
-- A replay of a stored episode (waymark replay, or Replay in Review): it
-- never changes the episode; its result is kept here.
CREATE TABLE replay_runs (
	id            TEXT PRIMARY KEY,          -- UUID
	episode_id    TEXT NOT NULL REFERENCES episodes (id) ON DELETE CASCADE,
	started_at    TEXT NOT NULL,
	ended_at      TEXT,
	engine_json   TEXT NOT NULL DEFAULT '{}',-- engine.Info of the replaying engine
	display       TEXT NOT NULL DEFAULT '',  -- "xvfb" or "headless"
	steps_json    TEXT NOT NULL DEFAULT '[]',-- per-step verdicts: [{"step":1,"verdict":"match","score":0.0001,"why":""}]
	matched       INTEGER NOT NULL DEFAULT 0,-- steps that matched
	compared      INTEGER NOT NULL DEFAULT 0,-- steps compared
	first_diverged INTEGER,                  -- the first step that did not match, or NULL
	warning       TEXT NOT NULL DEFAULT '',  -- e.g. the site keeps server state a replay cannot restore
	error         TEXT NOT NULL DEFAULT ''   -- why the replay stopped early, if it did
);
CREATE INDEX replay_runs_episode ON replay_runs (episode_id, started_at);
`,
	// 5 → 6: element-grounded observations, BrowserGym task manifests and
	// network capture. A step can carry its BrowserGym observation extras
	// (gzip-compressed JSON, NULL when they were off) and the element its
	// action was aimed at. A task can carry the manifest it was imported from
	// (validate and cheat scripts, seed, viewport, tags, …); an episode keeps
	// the validate script's last result. Network traffic is stored as HAR
	// entries in chunks, flushed after every step, so a crash loses at most
	// the entries of the step in progress.
	`
ALTER TABLE steps ADD COLUMN extras BLOB;            -- gzip(JSON of action.Extras), or NULL
ALTER TABLE steps ADD COLUMN target_json TEXT;       -- action.Target as JSON (the element acted on), or NULL
ALTER TABLE tasks ADD COLUMN manifest_json TEXT;     -- the BrowserGym-style manifest fields, or NULL
ALTER TABLE episodes ADD COLUMN validate_json TEXT;  -- the validate script's {reward, done, message, info}, or NULL
ALTER TABLE episodes ADD COLUMN har_json TEXT;       -- the capture's settings and summary (redacted, caps, bodies dropped), or NULL
CREATE TABLE har_chunks (
	id          INTEGER PRIMARY KEY AUTOINCREMENT,
	episode_id  TEXT NOT NULL REFERENCES episodes (id) ON DELETE CASCADE,
	step_idx    INTEGER NOT NULL,                -- the step during which the chunk's first entry started
	entries     BLOB NOT NULL,                   -- gzip(JSON array of HAR 1.2 entries, each with _step)
	num_entries INTEGER NOT NULL DEFAULT 0,
	body_bytes  INTEGER NOT NULL DEFAULT 0,      -- response body bytes kept in this chunk
	created_at  TEXT NOT NULL
);
CREATE INDEX har_chunks_episode ON har_chunks (episode_id, id);
`,
	// 6 → 7: two manifest tasks with the same goal and start page but
	// different graders (taskId, validateScript, answer) are two tasks.
	// grader_key tells them apart ('' for every other task, and for the
	// tasks stored before); the table is rebuilt to change its UNIQUE
	// constraint, columns in the same order.
	`
CREATE TABLE tasks_new (
	id             TEXT PRIMARY KEY,
	goal           TEXT NOT NULL,
	category       TEXT NOT NULL CHECK (category IN ('information','navigation','interaction')),
	start_url      TEXT NOT NULL,
	source         TEXT NOT NULL DEFAULT '',
	check_json     TEXT,
	archived       INTEGER NOT NULL DEFAULT 0,
	created_at     TEXT NOT NULL,
	updated_at     TEXT NOT NULL,
	source_id      TEXT NOT NULL DEFAULT '',
	keep_secrets   INTEGER NOT NULL DEFAULT 0,
	reference_time TEXT NOT NULL DEFAULT '',
	timezone       TEXT NOT NULL DEFAULT '',
	locale         TEXT NOT NULL DEFAULT '',
	manifest_json  TEXT,
	grader_key     TEXT NOT NULL DEFAULT '',   -- a manifest task's taskId, validateScript and answer, hashed; '' for other tasks
	UNIQUE (goal, start_url, grader_key)
);
INSERT INTO tasks_new (id, goal, category, start_url, source, check_json, archived, created_at, updated_at,
	source_id, keep_secrets, reference_time, timezone, locale, manifest_json)
	SELECT id, goal, category, start_url, source, check_json, archived, created_at, updated_at,
		source_id, keep_secrets, reference_time, timezone, locale, manifest_json FROM tasks;
DROP TABLE tasks;
ALTER TABLE tasks_new RENAME TO tasks;
CREATE INDEX tasks_category ON tasks (category, archived);
CREATE INDEX tasks_source ON tasks (source);
`,
	// 7 → 8: shared control. Every step says who acted: "agent:NAME" or
	// "human:NAME". A person can take over an agent's episode and hand it
	// back, so one episode's steps can have several actors. Steps stored
	// before get the episode's annotator (a person's name becomes
	// "human:NAME").
	`
ALTER TABLE steps ADD COLUMN actor TEXT NOT NULL DEFAULT '';  -- "agent:NAME" or "human:NAME"
UPDATE steps SET actor = (SELECT CASE WHEN substr(e.annotator, 1, 6) = 'agent:' THEN e.annotator ELSE 'human:' || e.annotator END
	FROM episodes e WHERE e.id = steps.episode_id);
-- Lists count interventions from this index alone: a step's row holds its
-- screenshot, and reading a column stored after it walks the picture's pages.
CREATE INDEX steps_actor ON steps (episode_id, idx, removed, actor);
`,
	// 8 → 9: per-step correctness. A review can mark each action step
	// correct, wrong or unnecessary; the marks belong to the review row, so
	// an edited review keeps its old marks in the history and a merge copies
	// them with their review. step_label_outcomes gives each step the label
	// the export uses, settled as episode outcomes are: the current settling
	// label's mark when it marked the step, else the mark every current
	// review that marked the step agrees on; NULL when they disagree.
	`
CREATE TABLE step_labels (
	review_id  TEXT NOT NULL REFERENCES reviews (id) ON DELETE CASCADE,
	step_idx   INTEGER NOT NULL CHECK (step_idx >= 1),  -- an action step (0 is the start page)
	label      TEXT NOT NULL CHECK (label IN ('correct','wrong','unnecessary')),
	PRIMARY KEY (review_id, step_idx)
);
CREATE VIEW step_label_outcomes AS
	WITH cur AS (
		SELECT r.episode_id, r.settles, r.created_at, l.step_idx, l.label
		FROM current_reviews r JOIN step_labels l ON l.review_id = r.id
	),
	settled AS (
		SELECT c.episode_id, c.step_idx, c.label FROM cur c
		WHERE c.settles = 1 AND c.created_at = (SELECT MAX(created_at) FROM cur d WHERE d.settles = 1 AND d.episode_id = c.episode_id AND d.step_idx = c.step_idx)
	),
	agg AS (
		SELECT episode_id, step_idx, COUNT(*) AS num_labels, COUNT(DISTINCT label) AS distinct_labels, MIN(label) AS any_label
		FROM cur WHERE settles = 0 GROUP BY episode_id, step_idx
	),
	steps_labelled AS (SELECT DISTINCT episode_id, step_idx FROM cur)
	SELECT k.episode_id, k.step_idx,
	       COALESCE(agg.num_labels, 0) AS num_labels,
	       CASE WHEN settled.label IS NOT NULL THEN settled.label WHEN agg.distinct_labels = 1 THEN agg.any_label END AS label,
	       settled.label IS NOT NULL AS settled,
	       COALESCE(agg.distinct_labels, 0) > 1 AS conflict
	FROM steps_labelled k
	LEFT JOIN settled ON settled.episode_id = k.episode_id AND settled.step_idx = k.step_idx
	LEFT JOIN agg ON agg.episode_id = k.episode_id AND agg.step_idx = k.step_idx;
`,
	// 9 → 10: every recording is its own offline site. Beside its HAR, an
	// episode keeps a replay archive: every response of every target (as
	// HAR entries, the body named by its SHA-256) and its WebSocket frames,
	// in chunks flushed after every step like the HAR's. Bodies are stored
	// once per content (gzip) however many episodes have them;
	// archive_bodies says which episodes use which. A replay run keeps its
	// fidelity report (requests served, refused, unused, per step).
	`
CREATE TABLE archive_chunks (
	id          INTEGER PRIMARY KEY AUTOINCREMENT,
	episode_id  TEXT NOT NULL REFERENCES episodes (id) ON DELETE CASCADE,
	step_idx    INTEGER NOT NULL,              -- the step during which the chunk's first record started
	records     BLOB NOT NULL,                 -- gzip(JSON array of HAR entries: responses with _sha256, WebSockets with _webSocketMessages)
	num_records INTEGER NOT NULL DEFAULT 0,
	created_at  TEXT NOT NULL
);
CREATE INDEX archive_chunks_episode ON archive_chunks (episode_id, id);
CREATE TABLE bodies (
	sha256     TEXT PRIMARY KEY,              -- hex SHA-256 of the body as kept (secrets redacted)
	size       INTEGER NOT NULL,              -- bytes, uncompressed
	data       BLOB NOT NULL,                 -- gzip of the body
	created_at TEXT NOT NULL
);
CREATE TABLE archive_bodies (
	episode_id TEXT NOT NULL REFERENCES episodes (id) ON DELETE CASCADE,
	sha256     TEXT NOT NULL REFERENCES bodies (sha256),
	PRIMARY KEY (episode_id, sha256)
);
CREATE INDEX archive_bodies_sha ON archive_bodies (sha256);
ALTER TABLE replay_runs ADD COLUMN fidelity_json TEXT;  -- dataset.Fidelity of an offline replay, or NULL
`,
	// 10 → 11: what a judge is calibrated against. A review can answer
	// AgentRewardBench's questions beside the outcome (an unwanted side
	// effect, looping: 'yes', 'no', 'unsure', or '' unanswered; optimality
	// 1-4 or NULL) and mark the steps whose screenshots are key evidence
	// (WebJudge's key screenshots). The review guidelines are versioned:
	// each text in force is kept once, named by its SHA-256, and a review
	// names the one it was written under ('' for reviews saved before).
	`
ALTER TABLE reviews ADD COLUMN side_effect TEXT NOT NULL DEFAULT '' CHECK (side_effect IN ('','yes','no','unsure'));
ALTER TABLE reviews ADD COLUMN looping TEXT NOT NULL DEFAULT '' CHECK (looping IN ('','yes','no','unsure'));
ALTER TABLE reviews ADD COLUMN optimality INTEGER CHECK (optimality BETWEEN 1 AND 4);
ALTER TABLE reviews ADD COLUMN key_steps_json TEXT NOT NULL DEFAULT '[]';  -- [3,5]: steps whose screenshots are key evidence
ALTER TABLE reviews ADD COLUMN guidelines_id TEXT NOT NULL DEFAULT '';    -- guideline_versions.id in force when saved
CREATE TABLE guideline_versions (
	id         TEXT PRIMARY KEY,             -- hex SHA-256 of the text
	text       TEXT NOT NULL,
	editor     TEXT NOT NULL DEFAULT '',
	created_at TEXT NOT NULL                 -- when it first came into force here
);
`,
	// 11 → 12: redaction at capture. A step keeps the boxes a redaction
	// policy blacked out of its screenshot, each with why (an element
	// kind, a pattern, a selector; never the value), and the boxes a
	// reviewer added afterwards (also burnt into the stored screenshot);
	// the policy itself is in the episode's engine_json (engine.Info).
	`
ALTER TABLE steps ADD COLUMN redaction_json TEXT;  -- JSON [{"x","y","w","h","why"}] of the boxes blacked out, or NULL
ALTER TABLE tasks ADD COLUMN redact TEXT NOT NULL DEFAULT '';  -- the task's own policy: '' (the recording's), 'off', 'default' or a policy as JSON
-- A reviewer's box is an edit of its own ('redact'): the table is rebuilt
-- to widen its CHECK, columns in the same order.
CREATE TABLE episode_edits_new (
	id          INTEGER PRIMARY KEY AUTOINCREMENT,
	episode_id  TEXT NOT NULL REFERENCES episodes (id) ON DELETE CASCADE,
	step_idx    INTEGER,
	kind        TEXT NOT NULL CHECK (kind IN ('undo','remove','restore','trim','resume','redact')),
	editor      TEXT NOT NULL,
	reason      TEXT NOT NULL DEFAULT '',
	created_at  TEXT NOT NULL
);
INSERT INTO episode_edits_new (id, episode_id, step_idx, kind, editor, reason, created_at)
	SELECT id, episode_id, step_idx, kind, editor, reason, created_at FROM episode_edits;
DROP TABLE episode_edits;
ALTER TABLE episode_edits_new RENAME TO episode_edits;
CREATE INDEX episode_edits_episode ON episode_edits (episode_id, id);
`,
	// 12 → 13: explore first, name the tasks after. An episode says where
	// its intent came from: 'planned' (a task chosen, then performed),
	// 'exploration' (a free recording started on a URL without a goal) or
	// 'hindsight' (a span of an exploration's steps named afterwards:
	// exploration_id, span_from and span_to say which; hindsight_json keeps
	// its key points and the replay from its start state, as checked). A
	// planned episode may say what was actually done when it differs from
	// its goal (actual_task). A span changed later is a 'span' row in the
	// audit log: its table is rebuilt to widen its CHECK, columns in the
	// same order.
	`
ALTER TABLE episodes ADD COLUMN intent_origin TEXT NOT NULL DEFAULT 'planned' CHECK (intent_origin IN ('planned','exploration','hindsight'));
ALTER TABLE episodes ADD COLUMN exploration_id TEXT REFERENCES episodes (id);  -- hindsight: the exploration it was cut from
ALTER TABLE episodes ADD COLUMN span_from INTEGER;                            -- hindsight: the exploration's first step of the span
ALTER TABLE episodes ADD COLUMN span_to INTEGER;                              -- hindsight: its last step
ALTER TABLE episodes ADD COLUMN hindsight_json TEXT;                          -- dataset.HindsightCheck as JSON, or NULL
ALTER TABLE episodes ADD COLUMN actual_task TEXT NOT NULL DEFAULT '';         -- planned: what was actually done, when it differs from the goal
CREATE INDEX episodes_exploration ON episodes (exploration_id);
CREATE TABLE episode_edits_new (
	id          INTEGER PRIMARY KEY AUTOINCREMENT,
	episode_id  TEXT NOT NULL REFERENCES episodes (id) ON DELETE CASCADE,
	step_idx    INTEGER,
	kind        TEXT NOT NULL CHECK (kind IN ('undo','remove','restore','trim','resume','redact','span')),
	editor      TEXT NOT NULL,
	reason      TEXT NOT NULL DEFAULT '',
	created_at  TEXT NOT NULL
);
INSERT INTO episode_edits_new (id, episode_id, step_idx, kind, editor, reason, created_at)
	SELECT id, episode_id, step_idx, kind, editor, reason, created_at FROM episode_edits;
DROP TABLE episode_edits;
ALTER TABLE episode_edits_new RENAME TO episode_edits;
CREATE INDEX episode_edits_episode ON episode_edits (episode_id, id);
`,
}

// SchemaVersion is the newest schema this program understands.
var SchemaVersion = len(migrations)
