package hfexport

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math/rand"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"waymark/dataset"
	"waymark/dataset/storetest"
	"waymark/engine/action"
)

// fixture is a real SQLite store filled with plain SQL, as the recorder and
// the review screen would leave it.
type fixture struct {
	t     testing.TB
	store *dataset.Store
	db    *sql.DB // raw access, for rows with fixed ids and times
	pngs  [][]byte
	base  time.Time
	n     int // counter for timestamps
}

// makePNGs draws n distinct 800×600 pictures. noise adds random pixels so a
// PNG weighs about what a real screenshot does (~100 KB and more).
// The pictures are made once per package run.
func makePNGs(t testing.TB, n int, noise bool) [][]byte {
	key := fmt.Sprint(n, noise)
	if v, ok := pngSets.Load(key); ok {
		return v.([][]byte)
	}
	out := drawPNGs(t, n, noise)
	pngSets.Store(key, out)
	return out
}

var pngSets sync.Map // "n noise" → pictures

func drawPNGs(t testing.TB, n int, noise bool) [][]byte {
	rng := rand.New(rand.NewSource(1))
	out := make([][]byte, n)
	for i := range out {
		img := image.NewRGBA(image.Rect(0, 0, action.ViewportWidth, action.ViewportHeight))
		bg := color.RGBA{uint8(40 * i), uint8(255 - 30*i), uint8(90 + 17*i), 255}
		for y := 0; y < 600; y++ {
			for x := 0; x < 800; x++ {
				c := bg
				if x > 100+10*i && x < 300+10*i && y > 50 && y < 120 {
					c = color.RGBA{0, 0, 0, 255}
				}
				if noise && y > 200 && y < 440 && rng.Intn(3) == 0 {
					c = color.RGBA{uint8(rng.Intn(256)), uint8(rng.Intn(256)), uint8(rng.Intn(256)), 255}
				}
				img.SetRGBA(x, y, c)
			}
		}
		var b bytes.Buffer
		if err := png.Encode(&b, img); err != nil {
			t.Fatal(err)
		}
		out[i] = b.Bytes()
	}
	return out
}

func newFixture(t testing.TB, pngs [][]byte) *fixture {
	t.Helper()
	st, err := dataset.Open(filepath.Join(t.TempDir(), "waymark.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return &fixture{t: t, store: st, db: storetest.DB(t, st), pngs: pngs, base: time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)}
}

func (f *fixture) exec(q string, args ...any) {
	f.t.Helper()
	if _, err := f.db.Exec(q, args...); err != nil {
		f.t.Fatalf("%s: %v", q, err)
	}
}

func (f *fixture) tick() string {
	f.n++
	return dataset.FormatTime(f.base.Add(time.Duration(f.n) * 1500 * time.Millisecond))
}

func (f *fixture) task(id, category string) {
	now := f.tick()
	f.exec(`INSERT INTO tasks (id, goal, category, start_url, source, created_at, updated_at) VALUES (?,?,?,?,?,?,?)`,
		id, "Goal of "+id+": find the \"red\" shoes", category, "http://127.0.0.1:8080/"+id, "builtin", now, now)
}

// stepAction returns the action of step i (1-based) of an episode of n steps.
func stepActionOf(i, n int) action.Action {
	if i == n {
		return action.FinishWith(fmt.Sprintf("answer %d", i))
	}
	switch i % 6 {
	case 1:
		return action.ClickAt(10*i, 5*i)
	case 2:
		return action.TypeText("red shoes")
	case 3:
		return action.PressKey("ENTER")
	case 4:
		return action.ScrollBy(300)
	case 5:
		return action.Action{Op: action.Back}
	}
	return action.Action{Op: action.Wait}
}

func stepURL(ep string, i int) string { return fmt.Sprintf("http://127.0.0.1:8080/%s/page%d", ep, i) }

// episode inserts an episode with step 0 (the reset) and n actions.
func (f *fixture) episode(id, task, annotator string, status dataset.Status, n int) {
	f.t.Helper()
	start := f.tick()
	f.exec(`INSERT INTO episodes (id, task_id, annotator, action_set, status, end_reason, final_answer, final_url, auto_reward, num_steps, started_at)
		VALUES (?,?,?,?,?,?,?,?,?,?,?)`, id, task, annotator, "default", dataset.StatusRecording, "", "", "", nil, 0, start)
	for i := 0; i <= n; i++ {
		var aj any
		op := ""
		if i > 0 {
			a := stepActionOf(i, n)
			b, _ := json.Marshal(a)
			aj, op = string(b), string(a.Op)
		}
		f.exec(`INSERT INTO steps (episode_id, idx, action_json, op, url, title, error, done, screenshot, action_ms, settle_ms, capture_ms, total_ms, created_at)
			VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)`, id, i, aj, op, stepURL(id, i), "Page", "", i == n && n > 0,
			f.pngs[(i+len(id))%len(f.pngs)], 10, 20, 30, 60+i, f.tick())
	}
	end := f.tick()
	endReason := action.EndFinished
	if status == dataset.StatusInterrupted {
		endReason = action.EndInterrupted
	}
	f.exec(`UPDATE episodes SET status=?, end_reason=?, final_answer=?, final_url=?, num_steps=?, ended_at=?, auto_reward=? WHERE id=?`,
		status, endReason, fmt.Sprintf("answer %d", n), stepURL(id, n), n, end, 1.0, id)
}

func (f *fixture) review(ep, reviewer string, outcome dataset.Outcome, settles bool) {
	f.t.Helper()
	var fs any
	ft := ""
	if outcome == dataset.OutcomeFailure {
		fs, ft = 2, "wrong_element"
	}
	f.exec(`INSERT INTO reviews (id, episode_id, reviewer, outcome, failure_step, failure_type, reason, settles, created_at)
		VALUES (?,?,?,?,?,?,?,?,?)`, fmt.Sprintf("rev-%s-%s-%d", ep, reviewer, f.n), ep, reviewer, outcome, fs, ft, "", settles, f.tick())
}

// standard builds the store most tests use: 10 tasks over the three
// categories, and episodes covering every review situation.
//
//	ep-XX-a  finished, one review (outcomes cycle)
//	ep-XX-b  finished, two agreeing reviews (success)
//	ep-03-c  finished, two disagreeing reviews (conflict → excluded by default)
//	ep-04-c  finished, conflict settled (failure)
//	ep-05-c  finished, never reviewed
//	ep-06-c  discarded, reviewed (never exported)
//	ep-07-c  interrupted, reviewed (exported, status and end reason interrupted)
//	ep-08-c  interrupted, never reviewed (never exported)
func standard(t testing.TB) *fixture {
	f := newFixture(t, makePNGs(t, 7, false))
	for i := 0; i < 10; i++ {
		task := fmt.Sprintf("task-%02d", i)
		f.task(task, dataset.Categories[i%3])
		a := fmt.Sprintf("ep-%02d-a", i)
		annot := []string{"alice", "bob", "agent:gpt"}[i%3]
		f.episode(a, task, annot, dataset.StatusFinished, 3+i%4)
		f.review(a, "rita", dataset.Outcomes[i%4], false)
		if i%2 == 0 {
			b := fmt.Sprintf("ep-%02d-b", i)
			f.episode(b, task, "alice", dataset.StatusFinished, 2)
			f.review(b, "rita", dataset.OutcomeSuccess, false)
			f.review(b, "sam", dataset.OutcomeSuccess, false)
		}
	}
	f.episode("ep-03-c", "task-03", "bob", dataset.StatusFinished, 2)
	f.review("ep-03-c", "rita", dataset.OutcomeSuccess, false)
	f.review("ep-03-c", "sam", dataset.OutcomeFailure, false)
	f.episode("ep-04-c", "task-04", "bob", dataset.StatusFinished, 3)
	f.review("ep-04-c", "rita", dataset.OutcomeSuccess, false)
	f.review("ep-04-c", "sam", dataset.OutcomeFailure, false)
	f.review("ep-04-c", "lead", dataset.OutcomeFailure, true)
	f.episode("ep-05-c", "task-05", "alice", dataset.StatusFinished, 2)
	f.episode("ep-06-c", "task-06", "alice", dataset.StatusDiscarded, 2)
	f.review("ep-06-c", "rita", dataset.OutcomeSuccess, false)
	f.episode("ep-07-c", "task-07", "alice", dataset.StatusInterrupted, 2)
	f.review("ep-07-c", "rita", dataset.OutcomeSuccess, false)
	f.episode("ep-08-c", "task-08", "bob", dataset.StatusInterrupted, 3)
	return f
}
