package app

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"waymark/engine"
	"waymark/engine/har"
)

func init() {
	register("har", "har EPISODE [-o FILE]",
		"write an episode's captured network traffic as a HAR 1.2 file (standard output without -o); secrets were redacted at capture unless it was recorded with --no-redact",
		runHAR)
}

func runHAR(env *Env, args []string) error {
	fs := newFlags(env, "har")
	out := fs.String("o", "", "the HAR file to write (default: standard output)")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	id := ""
	if len(pos) == 1 {
		id = pos[0]
	}
	if id == "" {
		return fmt.Errorf("%w: give one episode id, e.g. waymark har 3f2c… -o episode.har (the Review screen shows the ids)", errUsage)
	}
	st, err := env.OpenExistingStore()
	if err != nil {
		return err
	}
	defer st.Close()
	log, err := st.EpisodeHAR(context.Background(), id)
	if err != nil {
		return err
	}
	if *out == "" {
		return writeHAR(env.Stdout, log)
	}
	// Write beside the target and rename, so a failure never leaves half a file.
	tmp, err := os.CreateTemp(filepath.Dir(*out), ".waymark-har-*")
	if err != nil {
		return fmt.Errorf("cannot write %s: %w", *out, err)
	}
	defer os.Remove(tmp.Name())
	if err := writeHAR(tmp, log); err != nil {
		tmp.Close()
		return fmt.Errorf("cannot write %s: %w", *out, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("cannot write %s: %w", *out, err)
	}
	if err := os.Rename(tmp.Name(), *out); err != nil {
		return fmt.Errorf("cannot write %s: %w", *out, err)
	}
	fmt.Fprintf(env.Stderr, "waymark har: %d requests on %d pages written to %s\n", len(log.Entries), len(log.Pages), *out)
	return nil
}

// Environment variables that add to what the capture redacts: header
// names (or patterns such as x-*-token) and parts of field names, each
// comma-separated.
const (
	EnvHARRedactHeaders = "WAYMARK_HAR_REDACT_HEADERS"
	EnvHARRedactKeys    = "WAYMARK_HAR_REDACT_KEYS"
)

// harSettings turns network capture on or off for a recording engine, with
// the redaction the environment adds and its caps on bodies kept
// (engine.EnvHARBodyCap, EnvHAREpisodeCap; a value that is no size keeps
// the default, and the commands that read the environment say why).
func harSettings(s *engine.Settings, on, noRedact bool, getenv func(string) string) {
	s.HAR, s.HARNoRedact = on, noRedact
	s.HARRedactHeaders = getenv(EnvHARRedactHeaders)
	s.HARRedactKeys = getenv(EnvHARRedactKeys)
	for name, dst := range map[string]*int64{engine.EnvHARBodyCap: &s.HARBodyCap, engine.EnvHAREpisodeCap: &s.HAREpisodeCap} {
		if n, err := engine.ParseBytes(getenv(name)); err == nil {
			*dst = n
		}
	}
}

func writeHAR(w io.Writer, log *har.Log) error {
	bw := bufio.NewWriter(w)
	if err := har.Write(bw, log); err != nil {
		return err
	}
	return bw.Flush()
}
