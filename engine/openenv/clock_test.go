package openenv

import (
	"strings"
	"testing"
	"time"
)

// Reset kwargs carry the page's clock, time zone and locale, a task-pack
// task brings its own, and kwargs override the task's.
func TestResetClockKwargs(t *testing.T) {
	ref := time.Date(2026, 6, 14, 23, 30, 0, 0, time.UTC)
	task := Task{ID: "today", Goal: "g", Category: "information", StartURL: "http://forms.waymark.test/",
		ReferenceTime: &ref, Timezone: "Europe/Berlin", Locale: "en-GB"}
	s := &Server{opts: Options{Task: func(id string) (Task, bool) { return task, id == "today" }}}

	rr, err := s.parseReset(map[string]any{"task_id": "today"})
	if err != nil || rr.opts.ReferenceTime == nil || !rr.opts.ReferenceTime.Equal(ref) || rr.opts.Timezone != "Europe/Berlin" || rr.opts.Locale != "en-GB" {
		t.Fatalf("task reset: %+v %v", rr.opts, err)
	}
	rr, err = s.parseReset(map[string]any{"task_id": "today", "reference_time": "2024-03-15T10:30:00+01:00", "timezone": "Asia/Tokyo", "locale": "de-DE"})
	if err != nil || rr.opts.ReferenceTime.Year() != 2024 || rr.opts.Timezone != "Asia/Tokyo" || rr.opts.Locale != "de-DE" {
		t.Fatalf("kwargs: %+v %v", rr.opts, err)
	}
	if _, err := s.parseReset(map[string]any{"start_url": "http://x.test/", "reference_time": "2024-03-15T10:30:00"}); err == nil || !strings.Contains(err.Error(), "with an offset") {
		t.Fatalf("a time without an offset: %v", err)
	}
	if _, err := s.parseReset(map[string]any{"start_url": "http://x.test/", "timezone": 5}); err == nil {
		t.Fatal("a number as the time zone was taken")
	}
	rr, err = s.parseReset(map[string]any{"start_url": "http://x.test/"})
	if err != nil || rr.opts.ReferenceTime != nil || rr.opts.Timezone != "" || rr.opts.Locale != "" {
		t.Fatalf("plain reset: %+v %v", rr.opts, err)
	}
}
