package app

import (
	"errors"
	"flag"
	"fmt"
	iofs "io/fs"

	"waymark/engine/openenv"
)

// admissionFlags adds serve's --max-load and --min-free-memory to fs, their
// defaults taken from the capacity file `make bench` wrote on this machine
// (openenv.DefaultCapacityPath), else openenv's fallbacks. The returned
// function gives the admission limits and says where the defaults came from.
func admissionFlags(fs *flag.FlagSet) func() (openenv.Admission, string, error) {
	path := openenv.DefaultCapacityPath()
	load, freeMiB := openenv.FallbackMaxLoad, int64(openenv.FallbackMinFreeMemoryMiB)
	from := fmt.Sprintf("no capacity measured on this machine (%s; make bench writes it), so the built-in defaults", path)
	c, err := openenv.ReadCapacity(path)
	switch {
	case err == nil && c.MaxLoad > 0:
		load, freeMiB = c.MaxLoad, c.MinFreeMemoryMiB
		from = fmt.Sprintf("the capacity make bench measured on %s (%s: holds %v agents)", c.MeasuredAt.Format("2006-01-02"), path, c.Holds)
	case err != nil && !errors.Is(err, iofs.ErrNotExist):
		from = fmt.Sprintf("the built-in defaults: %v", err)
	}
	maxLoad := fs.Float64("max-load", load, "refuse a new session's reset at once (CAPACITY_BUSY over the WebSocket, HTTP 503 with Retry-After) while more tasks than this "+
		"are runnable per CPU (averaged over about 1.5 s); sessions already admitted go on. 0: no limit. "+
		"Default: derived from make bench's figures for this machine (~/.config/waymark/capacity.json, or $WAYMARK_CAPACITY), else 0: unmeasured, no load limit")
	minFree := fs.Int64("min-free-memory", freeMiB, "refuse a new session's reset the same way while less memory than this many MiB is available (MemAvailable). 0: no limit. "+
		"Default: twice the memory per session make bench measured on this machine, else 512")
	retry := fs.Duration("retry-after", openenv.DefaultRetryAfter, "what a refused client is told to wait before sending its reset again (whole seconds)")
	return func() (openenv.Admission, string, error) {
		if *maxLoad < 0 || *minFree < 0 {
			return openenv.Admission{}, "", fmt.Errorf("%w: --max-load and --min-free-memory must be 0 (no limit) or more", errUsage)
		}
		if *retry < 0 {
			return openenv.Admission{}, "", fmt.Errorf("%w: --retry-after must be a duration such as 5s", errUsage)
		}
		return openenv.Admission{MaxLoad: *maxLoad, MinFreeMemory: *minFree << 20, RetryAfter: *retry}, from, nil
	}
}
