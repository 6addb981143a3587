package app

import (
	"cmp"
	"flag"
	"fmt"
	"net"
	"os"
	"strings"
	"time"

	"waymark/engine"
	"waymark/engine/action"
	"waymark/engine/openenv"
)

// waymark serve's command line: its options read into a serveConfig and
// checked (the listen address, the hosts and origins it lets in).

// parseServe reads serve's command line into its configuration and the
// address to listen on.
func parseServe(env *Env, args []string) (serveConfig, string, error) {
	fs := newFlags(env, "serve")
	var cfg serveConfig
	fs.StringVar(&cfg.Addr, "addr", "127.0.0.1:8000", "address to listen on; only 127.0.0.1 unless you give another host (e.g. 0.0.0.0:8000)")
	fs.IntVar(&cfg.MaxSessions, "max-sessions", 1, "concurrent WebSocket sessions (each gets a fresh browser context of its own)")
	fs.IntVar(&cfg.Browsers, "browsers", 1, "local Chromiums the sessions share, by least load (a crash of one ends only the sessions on it)")
	fs.BoolVar(&cfg.Record, "record", false, "record every session's episodes into the store as agent:NAME (for review and export)")
	fs.BoolVar(&cfg.TaskPack, "task-pack", false, "serve the built-in practice sites and accept reset(task_id=KEY) for their tasks (reward = the task's check)")
	fs.StringVar(&cfg.Display, "display", "", "browser display: xvfb or headless (default: $WAYMARK_DISPLAY, else Xvfb when installed)")
	set := fs.String("action-set", "default", "action vocabulary: default (helium's), extended or browsergym (the default with --obs browsergym)")
	obsFmt := fs.String("obs", "waymark", "observation and action format: waymark (JSON actions, Waymark's observations) or browsergym (a step's data is {\"action\": \"<BrowserGym action string>\"}, observations are BrowserGym's; element grounding on)")
	multi := fs.Bool("multiaction", true, "with --obs browsergym: an action string may hold several calls, performed in order (BrowserGym's default, multiaction=True); "+
		"--multiaction=false: one call per action string unless a reset asks for multiaction=True")
	recoverObs := fs.Bool("recover-observation", false, "re-read an observation that shows no visible content (after DOMContentLoaded, at most 3 times; never repeats the action); a page still blank ends the episode")
	grounding := fs.String("grounding", "off", "with --record: store each step's element grounding as the desktop app does "+
		"(on: the element the action was aimed at and BrowserGym's observation extras; dom: also the DOM snapshot, large); agents never receive it")
	redactPolicy := addRedactFlag(fs)
	harOn := fs.Bool("har", true, "with --record: capture each episode's network traffic as HAR (waymark har EPISODE writes it); --har=false to turn it off")
	noRedact := fs.Bool("no-redact", false, "with --record: keep secrets in the captured HAR (Authorization, cookies, password fields), which are redacted by default; "+
		EnvHARRedactHeaders+" and "+EnvHARRedactKeys+" (comma-separated) add header names and field names to redact")
	var hosts, origins multiFlag
	fs.Var(&hosts, "allow-host", "also answer requests for this host name (or name:port); repeatable or comma-separated; * for any. "+
		"Without it only localhost, 127.0.0.1, [::1] and the --addr host are served")
	fs.Var(&origins, "allow-origin", "also accept requests from web pages of this origin (http://host:port) or host pattern (*.lan); "+
		"repeatable or comma-separated; * for any")
	provider := fs.String("browser-provider", "", browserProviderHelp)
	fs.StringVar(&cfg.Restore, "restore", "", "EPISODE:K: every session's episode starts where that stored episode was after its step K (its start page, clock and steps 1..K replayed and checked as waymark replay checks them), so an agent goes on from a person's prefix; reset needs no start_url. With --record the episode is stored as a branch of it")
	fs.StringVar(&cfg.Episodes, "episodes", "", "FILE|all: offer stored episodes as tasks: reset(task_id=\"EPISODE\") starts on its start page, reset(task_id=\"EPISODE:K\") where a person was after its step K (replayed and checked); FILE lists episode ids, one a line; all: every stored episode")
	fs.Var((*offlineFlag)(&cfg.Offline), "offline", "with --restore or --episodes: serve the restored episode's pages and every request after them from its recorded traffic, never the network (=fallback: fetch what the recording lacks, said in each observation's off_archive)")
	fs.DurationVar(&cfg.IdleTimeout, "idle-timeout", openenv.DefaultIdleTimeout, "end a session whose client sends no reset or step for this long "+
		"(IDLE_TIMEOUT), freeing its --max-sessions slot and its browser; 0: never")
	fs.DurationVar(&cfg.LeaseTTL, "lease-ttl", 0, "with --browser-provider: each session's browser lease, renewed on every step and every third of it "+
		"while the client answers pings; a lease that runs out ends the session with LEASE_EXPIRED (default: the provider's lease_ttl, else 900s)")
	admission := admissionFlags(fs)
	if pos, err := parseArgs(fs, args); err != nil || len(pos) > 0 {
		return cfg, "", cmp.Or(err, noArgs(pos))
	}
	adm, from, aerr := admission()
	if aerr != nil {
		return cfg, "", aerr
	}
	cfg.Admission, cfg.AdmissionFrom = adm, from
	ttlGiven := false
	fs.Visit(func(f *flag.Flag) { ttlGiven = ttlGiven || f.Name == "lease-ttl" })
	if ttlGiven && cfg.LeaseTTL < time.Second {
		return cfg, "", fmt.Errorf("%w: --lease-ttl must be at least 1s (e.g. 900s or 15m)", errUsage)
	}
	if cfg.MaxSessions < 1 {
		return cfg, "", fmt.Errorf("%w: --max-sessions must be at least 1", errUsage)
	}
	switch {
	case cfg.IdleTimeout < 0:
		return cfg, "", fmt.Errorf("%w: --idle-timeout must be 0 (never) or a duration such as 10m", errUsage)
	case cfg.IdleTimeout == 0:
		cfg.IdleTimeout = -1 // never
	}
	switch {
	case cfg.Episodes != "" && cfg.Restore != "":
		return cfg, "", fmt.Errorf("%w: --episodes and --restore cannot go together: --episodes lets each reset name the episode (task_id=\"EPISODE:K\")", errUsage)
	case cfg.Offline != "" && cfg.Restore == "" && cfg.Episodes == "":
		return cfg, "", fmt.Errorf("%w: --offline serves a stored episode from its recorded traffic: give --restore EPISODE:K or --episodes FILE|all", errUsage)
	case cfg.Offline != "" && *provider != "":
		return cfg, "", fmt.Errorf("%w: --offline replays need a local Chromium: leave out --browser-provider", errUsage)
	}
	if cfg.Browsers < 1 {
		return cfg, "", fmt.Errorf("%w: --browsers must be at least 1", errUsage)
	}
	var err error
	if cfg.Provider, err = parseBrowserProvider(*provider); err != nil {
		return cfg, "", fmt.Errorf("%w: --browser-provider: %v", errUsage, err)
	}
	if ttlGiven && cfg.Provider == nil {
		return cfg, "", fmt.Errorf("%w: --lease-ttl needs --browser-provider (a local browser's lease is the serve process itself)", errUsage)
	}
	if cfg.ActionSet, err = action.ParseSet(*set); err != nil {
		return cfg, "", fmt.Errorf("%w: --action-set: %v", errUsage, err)
	}
	switch *obsFmt {
	case "waymark":
		multiGiven := false
		fs.Visit(func(f *flag.Flag) { multiGiven = multiGiven || f.Name == "multiaction" })
		if multiGiven {
			return cfg, "", fmt.Errorf("%w: --multiaction is only for --obs browsergym", errUsage)
		}
	case "browsergym":
		cfg.BrowserGym, cfg.SingleAction = true, !*multi
		setGiven := false
		fs.Visit(func(f *flag.Flag) { setGiven = setGiven || f.Name == "action-set" })
		if !setGiven {
			cfg.ActionSet = action.SetBrowserGym
		}
	default:
		return cfg, "", fmt.Errorf("%w: --obs %q: use waymark or browsergym", errUsage, *obsFmt)
	}
	if cfg.Display != "" {
		if cfg.Display, err = engine.ParseDisplay(cfg.Display); err != nil {
			return cfg, "", fmt.Errorf("%w: --display: %v", errUsage, err)
		}
	}
	if cfg.Settings, err = engine.SettingsFromEnv(); err != nil {
		return cfg, "", err
	}
	cfg.Settings.RecoverObservation = *recoverObs
	if cfg.Settings.Grounding, err = engine.ParseGrounding(*grounding); err != nil {
		return cfg, "", fmt.Errorf("%w: --grounding: %v", errUsage, err)
	}
	if cfg.Settings.Grounding.On() && !cfg.Record {
		return cfg, "", fmt.Errorf("%w: --grounding needs --record (the grounding is stored with the recorded steps, never sent to agents)", errUsage)
	}
	harSettings(&cfg.Settings, cfg.Record && *harOn, *noRedact, os.Getenv)
	if cfg.Record {
		cfg.Settings.Redact = redactPolicy.policy()
	} else if redactPolicy.given {
		return cfg, "", fmt.Errorf("%w: --redact is for what --record stores: add --record", errUsage)
	}
	addr, err := listenAddr(cfg.Addr)
	if err != nil {
		return cfg, "", fmt.Errorf("%w: --addr: %v", errUsage, err)
	}
	cfg.AllowHosts, cfg.AllowOrigins = splitList(hosts), splitList(origins)
	if err := openenv.CheckAllowed(cfg.AllowHosts, nil); err != nil {
		return cfg, "", fmt.Errorf("%w: --allow-host: %v", errUsage, err)
	}
	if err := openenv.CheckAllowed(nil, cfg.AllowOrigins); err != nil {
		return cfg, "", fmt.Errorf("%w: --allow-origin: %v", errUsage, err)
	}
	// A host name given to --addr is how clients will reach the server.
	if host, _, _ := net.SplitHostPort(addr); net.ParseIP(host) == nil && !isLoopback(host) {
		cfg.AllowHosts = append(cfg.AllowHosts, host)
	}
	return cfg, addr, nil
}

// splitList splits comma-separated values of a repeatable flag.
func splitList(vals []string) []string {
	var out []string
	for _, v := range vals {
		for _, p := range strings.Split(v, ",") {
			if p = strings.TrimSpace(p); p != "" {
				out = append(out, p)
			}
		}
	}
	return out
}

// listenAddr keeps the server on the loopback interface unless a host is
// given explicitly: ":8000" and "8000" mean 127.0.0.1:8000.
func listenAddr(a string) (string, error) {
	a = strings.TrimSpace(a)
	if a == "" {
		return "127.0.0.1:8000", nil
	}
	if !strings.Contains(a, ":") {
		a = ":" + a
	}
	host, port, err := net.SplitHostPort(a)
	if err != nil {
		return "", fmt.Errorf("%q is not host:port", a)
	}
	if host == "" {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, port), nil
}

func listOrNone(l []string) string {
	if len(l) == 0 {
		return "(none)"
	}
	return strings.Join(l, ", ")
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
