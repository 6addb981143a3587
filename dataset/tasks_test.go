package dataset

import (
	"errors"
	"strings"
	"sync"
	"testing"

	"waymark/engine/action"
)

func TestTaskCRUD(t *testing.T) {
	s := wmStore(t)
	task, err := s.AddTask(t.Context(), Task{Goal: "  Find the price of the red kettle ", Category: Information, StartURL: "http://shop.waymark.test/",
		Source: "builtin", Check: &action.Check{Kind: action.CheckKindAnswer, Answer: "$24.99|24.99"}})
	if err != nil {
		t.Fatal(err)
	}
	if task.ID == "" || task.Goal != "Find the price of the red kettle" || task.CreatedAt.IsZero() {
		t.Fatalf("added task = %+v", task)
	}
	got, err := s.GetTask(t.Context(), task.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Goal != task.Goal || got.Category != Information || got.StartURL != "http://shop.waymark.test/" || got.Source != "builtin" ||
		got.Check == nil || got.Check.Answer != "$24.99|24.99" {
		t.Fatalf("got %+v (check %+v)", got, got.Check)
	}
	// Same goal and URL again: refused.
	if _, err := s.AddTask(t.Context(), Task{Goal: task.Goal, Category: Navigation, StartURL: task.StartURL}); !errors.Is(err, ErrDuplicateTask) {
		t.Fatalf("duplicate: err = %v", err)
	}
	got.Goal, got.Category = "Find the kettle's colour", Navigation
	got.Check = &action.Check{Kind: action.CheckKindURL, URL: `/kettle$`}
	if err := s.UpdateTask(t.Context(), got); err != nil {
		t.Fatal(err)
	}
	again, _ := s.GetTask(t.Context(), task.ID)
	if again.Goal != "Find the kettle's colour" || again.Category != Navigation || again.Check.Kind != action.CheckKindURL {
		t.Fatalf("after update: %+v", again)
	}
	if err := s.UpdateTask(t.Context(), Task{ID: "nope", Goal: "x", Category: Navigation, StartURL: "http://a.test/"}); !errors.Is(err, ErrNotFound) {
		t.Fatalf("update missing: %v", err)
	}
	if _, err := s.GetTask(t.Context(), "nope"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("get missing: %v", err)
	}
}

func TestTaskValidation(t *testing.T) {
	s := wmStore(t)
	cases := []struct {
		task Task
		want string
	}{
		{Task{Goal: " ", Category: Navigation, StartURL: "http://a.test/"}, "goal is empty"},
		{Task{Goal: "g", Category: "shopping", StartURL: "http://a.test/"}, `unknown category "shopping"; use one of information, navigation, interaction`},
		{Task{Goal: "g", Category: Navigation, StartURL: "ftp://a.test/"}, "expected an HTTP(S) URL"},
		{Task{Goal: "g", Category: Navigation, StartURL: "http://user:pw@a.test/"}, "without credentials"},
		{Task{Goal: "g", Category: Navigation, StartURL: "not a url"}, "start URL"},
		{Task{Goal: "g", Category: Navigation, StartURL: "http://a.test/", Check: &action.Check{Kind: "url", URL: "("}}, "not a valid regular expression"},
		{Task{Goal: "g", Category: Navigation, StartURL: "http://a.test/", Check: &action.Check{Kind: "magic"}}, "unknown check kind"},
		{Task{Goal: "g", Category: Information, StartURL: "http://a.test/", Check: &action.Check{Kind: "answer"}}, "no expected answer"},
	}
	for _, c := range cases {
		_, err := s.AddTask(t.Context(), c.task)
		if !errors.Is(err, ErrInvalidTask) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("AddTask(%+v) = %v, want ErrInvalidTask mentioning %q", c.task, err, c.want)
		}
	}
	// *.waymark.test hosts and loopback are ordinary http URLs.
	for _, u := range []string{"http://wiki.waymark.test/wiki/Rivers", "http://127.0.0.1:8123/", "https://example.com/a?b=c"} {
		if _, err := s.AddTask(t.Context(), Task{Goal: "go " + u, Category: Navigation, StartURL: u}); err != nil {
			t.Errorf("AddTask(%s): %v", u, err)
		}
	}
	if n, _ := s.CountTasks(t.Context(), TaskFilter{}); n.Total != 3 {
		t.Fatalf("stored %d tasks, want only the 3 valid ones", n.Total)
	}
}

func TestArchiveAndDelete(t *testing.T) {
	s := wmStore(t)
	used := wmTask(t, s, "used", Navigation, "http://a.test/")
	unused := wmTask(t, s, "unused", Navigation, "http://a.test/")
	if _, err := s.CreateEpisode(t.Context(), Episode{TaskID: used.ID, Annotator: "ann"}); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteTask(t.Context(), used.ID); !errors.Is(err, ErrTaskHasEpisodes) || !strings.Contains(err.Error(), "archive it instead") {
		t.Fatalf("delete task with episodes: %v", err)
	}
	if _, err := s.GetTask(t.Context(), used.ID); err != nil {
		t.Fatalf("task with episodes was deleted: %v", err)
	}
	if err := s.ArchiveTask(t.Context(), used.ID, true); err != nil {
		t.Fatal(err)
	}
	active, _ := s.ListTasks(t.Context(), TaskFilter{})
	archived, _ := s.ListTasks(t.Context(), TaskFilter{Archived: true})
	if len(active) != 1 || active[0].ID != unused.ID || len(archived) != 1 || archived[0].ID != used.ID || !archived[0].Archived {
		t.Fatalf("active %v archived %v", active, archived)
	}
	if err := s.DeleteTask(t.Context(), unused.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.GetTask(t.Context(), unused.ID); !errors.Is(err, ErrNotFound) {
		t.Fatalf("deleted task still there: %v", err)
	}
	if err := s.DeleteTask(t.Context(), unused.ID); !errors.Is(err, ErrNotFound) {
		t.Fatalf("delete twice: %v", err)
	}
	if err := s.ArchiveTask(t.Context(), "nope", true); !errors.Is(err, ErrNotFound) {
		t.Fatalf("archive missing: %v", err)
	}
}

func TestListTasksFiltersAndCounts(t *testing.T) {
	s := wmStore(t)
	info := wmTask(t, s, "How tall is the tower?", Information, "http://wiki.waymark.test/")
	nav := wmTask(t, s, "Open the returns page", Navigation, "http://shop.waymark.test/")
	inter := wmTask(t, s, "Turn on dark mode", Interaction, "http://settings.waymark.test/")
	other, err := s.AddTask(t.Context(), Task{Goal: "Open 100% cotton shirts", Category: Navigation, StartURL: "http://shop.waymark.test/", Source: "webvoyager.jsonl"})
	if err != nil {
		t.Fatal(err)
	}
	// nav: demonstrated by a person; inter: only by an agent; info: a
	// discarded attempt only.
	finish := func(taskID, who string, status Status) {
		e, err := s.CreateEpisode(t.Context(), Episode{TaskID: taskID, Annotator: who})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.setStatus(t.Context(), e.ID, status, "finished"); err != nil {
			t.Fatal(err)
		}
	}
	finish(nav.ID, "alice", StatusFinished)
	finish(inter.ID, "agent:gpt", StatusFinished)
	finish(info.ID, "bob", StatusDiscarded)

	ids := func(items []TaskItem) []string {
		var out []string
		for _, it := range items {
			out = append(out, it.Goal)
		}
		return out
	}
	all, err := s.ListTasks(t.Context(), TaskFilter{})
	if err != nil {
		t.Fatal(err)
	}
	// Sorted by category (information, navigation, interaction), then source, goal.
	want := []string{info.Goal, nav.Goal, other.Goal, inter.Goal}
	if strings.Join(ids(all), "|") != strings.Join(want, "|") {
		t.Fatalf("order %q, want %q", ids(all), want)
	}
	todo, _ := s.ListTasks(t.Context(), TaskFilter{NotDemonstrated: true})
	if strings.Join(ids(todo), "|") != strings.Join([]string{info.Goal, other.Goal, inter.Goal}, "|") {
		t.Fatalf("not demonstrated: %q", ids(todo))
	}
	undone, _ := s.ListTasks(t.Context(), TaskFilter{UndoneFirst: true})
	if strings.Join(ids(undone), "|") != strings.Join([]string{info.Goal, other.Goal, inter.Goal, nav.Goal}, "|") {
		t.Fatalf("undone first: %q", ids(undone))
	}
	if l, _ := s.ListTasks(t.Context(), TaskFilter{Category: Navigation}); len(l) != 2 {
		t.Fatalf("navigation: %q", ids(l))
	}
	if l, _ := s.ListTasks(t.Context(), TaskFilter{Source: "webvoyager.jsonl"}); len(l) != 1 || l[0].ID != other.ID {
		t.Fatalf("source: %q", ids(l))
	}
	if l, _ := s.ListTasks(t.Context(), TaskFilter{Search: "100%"}); len(l) != 1 || l[0].ID != other.ID {
		t.Fatalf("search with %% must be literal: %q", ids(l))
	}
	if l, _ := s.ListTasks(t.Context(), TaskFilter{Search: "SETTINGS.waymark"}); len(l) != 1 || l[0].ID != inter.ID {
		t.Fatalf("search url: %q", ids(l))
	}
	if l, _ := s.ListTasks(t.Context(), TaskFilter{Limit: 2, Offset: 1}); strings.Join(ids(l), "|") != nav.Goal+"|"+other.Goal {
		t.Fatalf("page: %q", ids(l))
	}
	for _, it := range all {
		if it.ID == nav.ID && (it.Episodes != 1 || it.Demonstrations != 1) {
			t.Fatalf("nav counts %+v", it)
		}
		if it.ID == inter.ID && (it.Episodes != 1 || it.Demonstrations != 0) {
			t.Fatalf("agent rollout counted as a demonstration: %+v", it)
		}
	}
	c, err := s.CountTasks(t.Context(), TaskFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if c.Total != 4 || c.ByCategory[Navigation] != 2 || c.ByCategory[Information] != 1 || c.BySource["test"] != 3 ||
		c.BySource["webvoyager.jsonl"] != 1 || c.Demonstrated != 1 || c.NotDemonstrated != 3 {
		t.Fatalf("counts %+v", c)
	}
	srcs, _ := s.Sources(t.Context())
	if strings.Join(srcs, ",") != "test,webvoyager.jsonl" {
		t.Fatalf("sources %q", srcs)
	}
}

func TestEnsureTask(t *testing.T) {
	s := rvStore(t)
	t1, err := s.EnsureTask(t.Context(), Task{Goal: "  Open the shop ", Category: Navigation, StartURL: "http://127.0.0.1/shop", Source: SourceAdhoc})
	if err != nil || t1.ID == "" || t1.Goal != "Open the shop" {
		t.Fatalf("added %+v, %v", t1, err)
	}
	// Found: the stored task is returned, the new fields ignored.
	t2, err := s.EnsureTask(t.Context(), Task{Goal: "Open the shop", Category: Information, StartURL: " http://127.0.0.1/shop", Source: "other"})
	if err != nil || t2.ID != t1.ID || t2.Category != Navigation || t2.Source != SourceAdhoc {
		t.Errorf("found %+v, %v; want the task added first", t2, err)
	}
	if _, err := s.EnsureTask(t.Context(), Task{Goal: "", Category: Navigation, StartURL: "http://127.0.0.1/shop"}); !errors.Is(err, ErrInvalidTask) {
		t.Errorf("invalid task: %v", err)
	}

	// Concurrent callers, on this store and on a second one open on the same
	// file (another program), all get the same task.
	s2, err := Open(s.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	const n = 16
	got := make([]Task, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			st := s
			if i%2 == 1 {
				st = s2
			}
			<-start
			got[i], errs[i] = st.EnsureTask(t.Context(), Task{Goal: "Race to the shop", Category: Navigation, StartURL: "http://127.0.0.1/race"})
		}()
	}
	close(start)
	wg.Wait()
	for i := range n {
		if errs[i] != nil || got[i].ID == "" || got[i].ID != got[0].ID {
			t.Errorf("caller %d: %+v, %v; caller 0 got %s", i, got[i], errs[i], got[0].ID)
		}
	}
	var count int
	s.db.QueryRow(`SELECT COUNT(*) FROM tasks WHERE goal='Race to the shop'`).Scan(&count)
	if count != 1 {
		t.Errorf("%d tasks stored, want 1", count)
	}
}
