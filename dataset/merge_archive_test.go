package dataset

import (
	"path/filepath"
	"strings"
	"testing"

	"waymark/engine"
	"waymark/engine/har"
)

// A merge copies an episode's replay archive: its records, and the bodies
// it uses that this store lacks (a body another episode here already has
// is not copied twice), so the merged episode replays offline here;
// merging again adds nothing.
func TestMergeCopiesTheReplayArchive(t *testing.T) {
	dir := t.TempDir()
	src, err := Open(filepath.Join(dir, "src.db"))
	if err != nil {
		t.Fatal(err)
	}
	task, err := src.EnsureTask(t.Context(), Task{Goal: "Find the kettle", Category: Information, StartURL: "http://shop.test/"})
	if err != nil {
		t.Fatal(err)
	}
	ep, err := src.CreateEpisode(t.Context(), Episode{TaskID: task.ID, Annotator: "ann"})
	if err != nil {
		t.Fatal(err)
	}
	recs := []har.Entry{
		{Request: har.Request{Method: "GET", URL: "http://shop.test/"}, Response: har.Response{Status: 200, Content: har.Content{Hash: "aa"}}},
		{Step: 1, Request: har.Request{Method: "GET", URL: "http://shop.test/logo.png"}, Response: har.Response{Status: 200, Content: har.Content{Hash: "bb"}}},
	}
	if err := src.SaveArchiveChunk(t.Context(), ep.ID, recs, map[string][]byte{"aa": []byte("<h1>shop</h1>"), "bb": []byte("\x89PNG")}); err != nil {
		t.Fatal(err)
	}
	if err := src.FinishEpisode(t.Context(), ep.ID, EpisodeEnd{Answer: "12"}); err != nil {
		t.Fatal(err)
	}
	src.Close()

	dst, err := Open(filepath.Join(dir, "dst.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer dst.Close()
	// This store already has the page's body (another episode's).
	if err := dst.SaveArchiveChunk(t.Context(), "", nil, map[string][]byte{"aa": []byte("<h1>shop</h1>")}); err != nil {
		t.Fatal(err)
	}
	rep, err := dst.Merge(t.Context(), filepath.Join(dir, "src.db"), MergeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Added["archive_chunks"] != 1 || rep.Added["bodies"] != 1 || rep.Identical["bodies"] != 1 || !strings.Contains(rep.Summary(), "1 archive chunks, 1 archive bodies") {
		t.Fatalf("the merge's report: %v / %v\n%s", rep.Added, rep.Identical, rep.Summary())
	}
	a, err := dst.EpisodeArchive(t.Context(), ep.ID)
	if err != nil {
		t.Fatal(err)
	}
	resp, ok := a.Answer(engine.ArchiveRequest{Step: 1, Method: "GET", URL: "http://shop.test/logo.png"})
	if !ok || string(resp.Body) != "\x89PNG" {
		t.Fatalf("the merged archive answers %v %q", ok, resp.Body)
	}
	if size, err := dst.EpisodeArchiveSize(t.Context(), ep.ID); err != nil || size.Records != 2 || size.Bodies != 2 {
		t.Fatalf("the merged archive's size %+v %v", size, err)
	}
	rep, err = dst.Merge(t.Context(), filepath.Join(dir, "src.db"), MergeOptions{})
	if err != nil || rep.Added["archive_chunks"] != 0 || rep.Added["bodies"] != 0 {
		t.Fatalf("merging again: %v %v", rep.Added, err)
	}
}
