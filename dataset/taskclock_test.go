package dataset

import (
	"strings"
	"testing"
	"time"

	"waymark/engine"
)

func TestParseReferenceTime(t *testing.T) {
	for in, want := range map[string]string{
		"2024-03-15T10:30:00+01:00":     "2024-03-15T10:30:00+01:00",
		"2024-03-15T09:30:00Z":          "2024-03-15T09:30:00Z",
		" 2024-03-15 10:30:00-05:00 ":   "2024-03-15T10:30:00-05:00",
		"2024-03-15T10:30:00.250+05:30": "2024-03-15T10:30:00.25+05:30",
	} {
		got, err := ParseReferenceTime(in)
		if err != nil || FormatReferenceTime(got) != want {
			t.Errorf("%q: %s, %v; want %s", in, FormatReferenceTime(got), err, want)
		}
	}
	for in, want := range map[string]string{
		"2024-03-15T10:30:00": "has no UTC offset",
		"2024-03-15 10:30":    "has no UTC offset",
		"2024-03-15":          "has no UTC offset",
		"15/03/2024 10:30":    "not an ISO 8601",
		"yesterday":           "not an ISO 8601",
	} {
		_, err := ParseReferenceTime(in)
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "2024-03-15T10:30:00+01:00") {
			t.Errorf("%q: %v; want an error saying %q and how to write it", in, err, want)
		}
	}
}

func TestTaskClockValidation(t *testing.T) {
	base := Task{Goal: "g", Category: Information, StartURL: "http://shop.waymark.test/"}
	for _, tc := range []struct {
		tz, loc, want string
	}{
		{"Europe/Berlin", "de-DE", ""},
		{"UTC", "en", ""},
		{"America/Argentina/Buenos_Aires", "es-419", ""},
		{"", "zh-Hant-TW", ""},
		{"Mars/Olympus", "", "IANA time zone name"},
		{"Local", "", "IANA time zone name"},
		{"+01:00", "", "IANA time zone name"},
		{"", "en_US", "use a hyphen: en-US"},
		{"", "english", "BCP 47"},
		{"", "de-DE-", "BCP 47"},
	} {
		task := base
		task.Timezone, task.Locale = tc.tz, tc.loc
		err := ValidateTask(&task)
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%q %q: %v, want %q", tc.tz, tc.loc, err, tc.want)
		}
	}
}

func TestTaskClockStored(t *testing.T) {
	s := wmStore(t)
	at, _ := ParseReferenceTime("2024-03-15T10:30:00+01:00")
	task, err := s.AddTask(t.Context(), Task{Goal: "What is today's date?", Category: Information, StartURL: "http://shop.waymark.test/",
		ReferenceTime: &at, Timezone: "Europe/Berlin", Locale: "de-DE"})
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.GetTask(t.Context(), task.ID)
	if err != nil || got.ReferenceTime == nil || FormatReferenceTime(*got.ReferenceTime) != "2024-03-15T10:30:00+01:00" ||
		got.Timezone != "Europe/Berlin" || got.Locale != "de-DE" {
		t.Fatalf("read back %+v, %v", got, err)
	}
	list, err := s.ListTasks(t.Context(), TaskFilter{})
	if err != nil || len(list) != 1 || list[0].ReferenceTime == nil || !list[0].ReferenceTime.Equal(at) || list[0].Locale != "de-DE" {
		t.Fatalf("listed %+v, %v", list, err)
	}
	got.ReferenceTime, got.Timezone, got.Locale = nil, "", ""
	if err := s.UpdateTask(t.Context(), got); err != nil {
		t.Fatal(err)
	}
	if g, _ := s.GetTask(t.Context(), task.ID); g.ReferenceTime != nil || g.Timezone != "" || g.Locale != "" {
		t.Fatalf("after clearing: %+v", g)
	}
	got.Timezone = "Nowhere/Town"
	if err := s.UpdateTask(t.Context(), got); err == nil {
		t.Fatal("UpdateTask took a bad time zone")
	}

	// The recorder passes them to the engine's reset.
	var opts engine.ResetOptions
	TaskResetOptions(Task{ReferenceTime: &at, Timezone: "UTC", Locale: "en-GB"}, &opts)
	if opts.ReferenceTime == nil || !opts.ReferenceTime.Equal(at) || opts.Timezone != "UTC" || opts.Locale != "en-GB" {
		t.Fatalf("reset options %+v", opts)
	}
}

// Migration 3 → 4 adds reference_time, timezone and locale (empty for the
// tasks already there) to a store made by the previous version.
func TestMigrationAddsTaskClock(t *testing.T) {
	path := oldStore(t, 3, `
		INSERT INTO tasks (id, goal, category, start_url, keep_secrets, created_at, updated_at) VALUES ('t1', 'Book a room', 'interaction', 'http://forms.waymark.test/booking', 1, '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z')`)
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var v int
	s.db.QueryRow(`PRAGMA user_version`).Scan(&v)
	if v != SchemaVersion || SchemaVersion < 4 {
		t.Fatalf("schema %d after the upgrade, want %d", v, SchemaVersion)
	}
	task, err := s.GetTask(t.Context(), "t1")
	if err != nil || task.ReferenceTime != nil || task.Timezone != "" || task.Locale != "" || !task.KeepSecrets {
		t.Fatalf("old task: %+v %v", task, err)
	}
	at := time.Date(2024, 3, 15, 9, 30, 0, 0, time.UTC)
	task.ReferenceTime, task.Timezone = &at, "Asia/Tokyo"
	if err := s.UpdateTask(t.Context(), task); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.GetTask(t.Context(), "t1"); got.ReferenceTime == nil || !got.ReferenceTime.Equal(at) || got.Timezone != "Asia/Tokyo" {
		t.Fatalf("after the update: %+v", got)
	}
}

// The import maps reference_time, timezone (and BrowserGym's timezoneId) and
// locale; a bad value skips its row with a reason naming the column, and
// the other rows are imported.
func TestImportTaskClock(t *testing.T) {
	s := wmStore(t)
	file := `{"goal":"A","url":"http://forms.waymark.test/","category":"qa","reference_time":"2024-03-15T10:30:00+01:00","timezoneId":"Europe/Paris","locale":"fr-FR"}
{"goal":"B","url":"http://forms.waymark.test/","category":"qa","reference_time":"2024-03-15T10:30:00"}
{"goal":"C","url":"http://forms.waymark.test/","category":"qa","timezoneId":"Europe/Pariss"}
{"goal":"D","url":"http://forms.waymark.test/","category":"qa","locale":"fr_FR"}
{"goal":"E","url":"http://forms.waymark.test/","category":"qa"}
`
	rep, err := s.ImportTasks(t.Context(), strings.NewReader(file), "manifest.jsonl", ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Mapping[FieldTimezone] != "timezoneId" || rep.Mapping[FieldReferenceTime] != "reference_time" || rep.Mapping[FieldLocale] != "locale" {
		t.Fatalf("mapping %v", rep.Mapping)
	}
	if rep.Imported != 2 || len(rep.Skipped) != 3 {
		t.Fatalf("%s; skipped %v", rep.Summary(), rep.Skipped)
	}
	wmIssue(t, rep.Skipped, 2, `column "reference_time": the reference time "2024-03-15T10:30:00" has no UTC offset`)
	wmIssue(t, rep.Skipped, 3, `column "timezoneId": the time zone "Europe/Pariss"`)
	wmIssue(t, rep.Skipped, 4, `column "locale": the locale "fr_FR" is not a BCP 47 language tag (use a hyphen: fr-FR)`)
	a, ok, err := s.FindTask(t.Context(), "A", "http://forms.waymark.test/")
	if err != nil || !ok || a.ReferenceTime == nil || FormatReferenceTime(*a.ReferenceTime) != "2024-03-15T10:30:00+01:00" ||
		a.Timezone != "Europe/Paris" || a.Locale != "fr-FR" {
		t.Fatalf("task A: %+v %v", a, err)
	}
	e, ok, _ := s.FindTask(t.Context(), "E", "http://forms.waymark.test/")
	if !ok || e.ReferenceTime != nil || e.Timezone != "" || e.Locale != "" {
		t.Fatalf("task E: %+v", e)
	}

	// CSV columns by their own names.
	csv := "goal,url,category,reference_time,timezone,locale\nF,http://forms.waymark.test/,qa,2024-12-31T23:59:00Z,America/New_York,en-US\n"
	rep, err = s.ImportTasks(t.Context(), strings.NewReader(csv), "tasks.csv", ImportOptions{})
	if err != nil || rep.Imported != 1 {
		t.Fatalf("%s %v %v", rep.Summary(), rep.Skipped, err)
	}
	if f := rep.Tasks[0]; f.ReferenceTime == nil || f.ReferenceTime.Year() != 2024 || f.Timezone != "America/New_York" || f.Locale != "en-US" {
		t.Fatalf("task F: %+v", f)
	}
}
