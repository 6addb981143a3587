package hfexport

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"waymark/engine/har"
)

// HAR files: with Options.HAR, every exported episode recorded with network
// capture gets one HAR 1.2 file, har/<episode id>.har, beside the Parquet
// configs (not a column: a HAR log weighs up to the capture's 64 MiB, would
// make every read of the episodes config load it, and HAR tools —
// browser devtools, HAR viewers, endpoint extractors — open .har files, not
// Parquet cells). The card's configs list their Parquet files explicitly,
// so `datasets.load_dataset` never reads har/.
//
// A capture stored redacted is written redacted again with its own lists
// (headers and body keys), so nothing a later list names slips through; a
// capture recorded with --no-redact is written as captured, and the card
// names those episodes.

// harDir is the folder of the HAR files inside the dataset.
const harDir = "har"

// harStats is what the card says about the HAR files.
type harStats struct {
	files   int
	entries int
	bytes   int64
	without int // exported episodes recorded without capture
	// unredacted are the episodes captured with --no-redact.
	unredacted []string
}

// writeHAR writes har/<id>.har for episode id when Options.HAR is set and the
// episode was recorded with capture.
func (x *exporter) writeHAR(id string) error {
	if !x.o.HAR {
		return nil
	}
	sum, err := x.store.HARSummary(context.Background(), id)
	if err != nil {
		return fmt.Errorf("episode %s: reading its network capture: %w", id, err)
	}
	if sum == nil {
		x.stats.har.without++
		return nil
	}
	log, err := x.store.EpisodeHAR(context.Background(), id)
	if err != nil {
		return fmt.Errorf("episode %s: reading its network capture: %w", id, err)
	}
	if sum.Redacted {
		red := har.NewRedactor(sum.RedactHeaders, sum.RedactKeys)
		for i := range log.Entries {
			red.Entry(&log.Entries[i])
		}
	} else {
		x.stats.har.unredacted = append(x.stats.har.unredacted, id)
	}
	var b bytes.Buffer
	if err := har.Write(&b, log); err != nil {
		return fmt.Errorf("episode %s: writing its HAR: %w", id, err)
	}
	if err := os.MkdirAll(filepath.Join(x.root, harDir), 0o755); err != nil {
		return err
	}
	name := harDir + "/" + id + ".har"
	if err := x.writeFile(filepath.FromSlash(name), b.Bytes()); err != nil {
		return err
	}
	x.files = append(x.files, name)
	x.stats.har.files++
	x.stats.har.entries += len(log.Entries)
	x.stats.har.bytes += int64(b.Len())
	return nil
}

// writeHARCard adds the card's "Network traffic" section when HAR files
// were asked for.
func writeHARCard(b *strings.Builder, o *Options, s *harStats) {
	if !o.HAR {
		return
	}
	b.WriteString("### Network traffic (HAR)\n\n")
	if s.files == 0 {
		fmt.Fprintf(b, "HAR files were asked for, but none of the %d exported episodes was recorded with network capture.\n\n", s.without)
		return
	}
	fmt.Fprintf(b, "`har/EPISODE_ID.har` holds the network traffic of an episode as a HAR 1.2 log (%d files, %d requests, %s): "+
		"every request of every tab and frame, with text response bodies up to the capture's caps (the log's comment states them). "+
		"EPISODE_ID is the `episode_id` column; each entry's `_step` is the `recorded_step` of the step during which the request started "+
		"(0: loading the start page). Chromium's own fields `_resourceType` and `_transferSize` are kept. "+
		"They are files rather than a column so that reading the Parquet configs never loads them, and HAR tools open them as they are.\n\n",
		s.files, s.entries, FormatBytes(s.bytes))
	if s.without > 0 {
		fmt.Fprintf(b, "%d exported episodes were recorded without network capture and have no HAR file.\n\n", s.without)
	}
	if len(s.unredacted) == 0 {
		fmt.Fprintf(b, "Secrets are redacted: the values of the headers %s and of body, query and form fields named like %s read `%s`.\n\n",
			strings.Join(har.DefaultHeaders, ", "), strings.Join(har.DefaultKeys, ", "), har.Redacted)
		return
	}
	fmt.Fprintf(b, "**Not redacted:** %d episodes were captured with `--no-redact`, so their HAR files keep headers, cookies and passwords as the browser sent them: %s. "+
		"The other HAR files are redacted (headers %s and fields named like %s read `%s`).\n\n",
		len(s.unredacted), strings.Join(s.unredacted, ", "), strings.Join(har.DefaultHeaders, ", "), strings.Join(har.DefaultKeys, ", "), har.Redacted)
}
