package chromium

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/chromedp/chromedp"

	"waymark/engine"
)

// Start timeouts on an idle machine; they grow with the host's load
// (hostload.go).
const (
	xvfbStartBase     = 10 * time.Second
	chromiumStartBase = 30 * time.Second
)

// xvfbScreen is the Xvfb screen: the pointer starts at its centre.
const xvfbScreen = "2048x1536x24"

// xvfb is a private X display started for the browser.
type xvfb struct {
	cmd     *exec.Cmd
	display string // ":N"
	done    chan struct{}
}

// startXvfb starts Xvfb on a free display chosen by the server itself
// (-displayfd), with no TCP listener.
func startXvfb(path string) (*xvfb, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	// The screen is larger than the viewport so that a window frame never
	// clips it (the viewport size itself is set through CDP), and large
	// enough that its centre, where the X server puts the pointer, is
	// outside every browser window (800x600 from the top left): with the
	// pointer over a window, a window mapped or changed under it makes
	// Chromium send the page a mouse move or leave at the X pointer's
	// place, and the page's hover moved off what the step's click had
	// hovered (1 observation in 4 after a reset lost it).
	cmd := exec.Command(path, "-displayfd", "3", "-nolisten", "tcp", "-screen", "0", xvfbScreen, "-nocursor")
	cmd.ExtraFiles = []*os.File{w}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
	var stderr strings.Builder
	cmd.Stderr = &limitedWriter{b: &stderr, n: 4096}
	if err := cmd.Start(); err != nil {
		w.Close()
		return nil, fmt.Errorf("could not start Xvfb (%s): %w; install the xvfb package or use --display headless", path, err)
	}
	w.Close()
	x := &xvfb{cmd: cmd, done: make(chan struct{})}
	go func() { cmd.Wait(); close(x.done) }()

	wait, cancel, patience := newPatientStart(context.Background(), xvfbStartBase, readHostLoad)
	defer cancel()
	line := make(chan string, 1)
	go func() {
		s, _ := bufio.NewReader(r).ReadString('\n')
		line <- strings.TrimSpace(s)
	}()
	select {
	case s := <-line:
		if _, err := strconv.Atoi(s); err != nil {
			x.stop()
			return nil, fmt.Errorf("Xvfb did not report a display (%q): %s", s, strings.TrimSpace(stderr.String()))
		}
		x.display = ":" + s
	case <-x.done:
		return nil, fmt.Errorf("Xvfb exited at start: %s", strings.TrimSpace(stderr.String()))
	case <-wait.Done():
		x.stop()
		return nil, fmt.Errorf("Xvfb did not start %s; close other programs or start fewer browsers at once, or use --display headless", patience.timedOut())
	}
	return x, nil
}

func (x *xvfb) stop() {
	if x == nil || x.cmd.Process == nil {
		return
	}
	syscall.Kill(-x.cmd.Process.Pid, syscall.SIGTERM)
	select {
	case <-x.done:
	case <-time.After(3 * time.Second):
		syscall.Kill(-x.cmd.Process.Pid, syscall.SIGKILL)
		<-x.done
	}
}

type limitedWriter struct {
	b *strings.Builder
	n int
}

func (l *limitedWriter) Write(p []byte) (int, error) {
	if room := l.n - l.b.Len(); room > 0 {
		if len(p) > room {
			l.b.Write(p[:room])
		} else {
			l.b.Write(p)
		}
	}
	return len(p), nil
}

// prefs turn off the password manager and downloads in the profile.
const prefs = `{
  "credentials_enable_service": false,
  "profile": {"password_manager_enabled": false, "default_content_setting_values": {"notifications": 2, "geolocation": 2}},
  "download_restrictions": 3,
  "download": {"prompt_for_download": false},
  "safebrowsing": {"enabled": false},
  "translate": {"enabled": false}
}`

// writeProfile creates the profile folder dir with the prefs.
func writeProfile(dir string) error {
	if err := os.MkdirAll(filepath.Join(dir, "Default"), 0o700); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "Default", "Preferences"), []byte(prefs), 0o600)
}

// removeProfile removes the profile, retrying while Chromium's helpers
// still write into it after the main process ended.
func removeProfile(dir string) error {
	if dir == "" {
		return nil
	}
	var err error
	for deadline := time.Now().Add(5 * time.Second); ; {
		if err = os.RemoveAll(dir); err == nil || time.Now().After(deadline) {
			return err
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// disabledFeatures keeps history navigations observable (no back-forward
// cache), stops features that phone home or prompt, and keeps an episode
// to the one renderer process its page needs: every browser context opens
// a window, into which Chromium (156) preloads its omnibox's WebUI popups
// (two pages in a renderer process of their own, about a second of CPU
// per episode for a UI nobody opens), and beside each page it keeps a
// spare renderer for the next navigation, which a fresh context never
// uses. Without them Reset takes 500 ms instead of 850 on two cores, and
// the replay tests spend 60 % less CPU.
const disabledFeatures = "Translate,BlinkGenPropertyTrees,BackForwardCache,PasswordLeakDetection," +
	"AutofillServerCommunication,MediaRouter,DialMediaRouteProvider,OptimizationHints,InterestFeedContentSuggestions," +
	"WebUIOmniboxPopup,WebUIOmniboxAimPopup,WebUIOmniboxFullPopup,SpareRendererForSitePerProcess"

// NeedsNoSandbox reports whether Chromium must run without its sandbox:
// Chromium refuses to start as root with the sandbox on (its setuid and
// user-namespace sandboxes are not meant to run as root), so as root it
// runs without; any other user keeps the sandbox.
func NeedsNoSandbox() bool { return os.Geteuid() == 0 }

// allocatorOptions builds Chromium's command line. tmp is the TMPDIR it
// gets, so its temporary folders go with the profile's run folder.
func allocatorOptions(execPath, profile, tmp, display string, noSandbox bool) []chromedp.ExecAllocatorOption {
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(execPath),
		chromedp.UserDataDir(profile),
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-features", disabledFeatures),
		chromedp.Flag("disable-background-timer-throttling", true),
		chromedp.Flag("disable-backgrounding-occluded-windows", true),
		chromedp.Flag("disable-renderer-backgrounding", true),
		chromedp.Flag("disable-breakpad", true),
		chromedp.Flag("disable-client-side-phishing-detection", true),
		chromedp.Flag("disable-default-apps", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("disable-hang-monitor", true),
		chromedp.Flag("disable-popup-blocking", true),
		chromedp.Flag("disable-prompt-on-repost", true),
		chromedp.Flag("disable-smooth-scrolling", true),
		chromedp.Flag("force-color-profile", "srgb"),
		chromedp.Flag("force-device-scale-factor", "1"),
		chromedp.Flag("metrics-recording-only", true),
		chromedp.Flag("safebrowsing-disable-auto-update", true),
		chromedp.Flag("password-store", "basic"),
		chromedp.Flag("use-mock-keychain", true),
		chromedp.Flag("mute-audio", true),
		chromedp.Flag("window-position", "0,0"),
		chromedp.Flag("window-size", "800,600"),
		chromedp.Flag("force-webrtc-ip-handling-policy", "disable_non_proxied_udp"),
		// Like the reference's Chromium (started without enable-automation),
		// pages are not told they are automated: navigator.webdriver stays
		// false although the DevTools pipe is in use.
		chromedp.Flag("disable-blink-features", "AutomationControlled"),
	}
	if noSandbox {
		opts = append(opts, chromedp.Flag("no-sandbox", true))
	}
	// Chromium leads a process group of its own, which its helpers (zygote,
	// renderers, GPU and network processes) join: when this program dies,
	// its reaper ends them all with one kill of the group instead of
	// finding them in /proc first, a scan that took 40-280 ms a pass on a
	// loaded machine. The kernel still kills Chromium itself when the
	// thread that started it dies, as chromedp arranges by default.
	opts = append(opts, chromedp.ModifyCmdFunc(func(cmd *exec.Cmd) {
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	}))
	if tmp != "" {
		opts = append(opts, chromedp.Env("TMPDIR="+tmp))
	}
	if display == engine.DisplayHeadless {
		opts = append(opts, chromedp.Flag("headless", true))
	} else {
		opts = append(opts, chromedp.Env("DISPLAY="+display))
	}
	return opts
}

// Find returns the browser to run.
func Find(path string) (string, error) {
	if path != "" {
		if p, err := exec.LookPath(path); err == nil {
			return p, nil
		}
		return "", &engine.Error{Kind: engine.ErrNoBrowser,
			Msg: fmt.Sprintf("the browser %q was not found; install Chromium (make deps) or give its path", path)}
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "headless_shell"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("%w; install it with 'make deps' (Debian/Ubuntu package chromium)", engine.ErrNoBrowser)
}

// versions caches chromiumVersion by binary: the versions read, never a
// failure (a machine too busy to answer at once answers the next time).
var versions sync.Map // path → string

func Version(path string) string {
	if v, ok := versions.Load(path); ok {
		return v.(string)
	}
	v := readChromiumVersion(path)
	if v != "" {
		versions.Store(path, v)
	}
	return v
}

// readChromiumVersion runs the browser with --version. Debian's chromium
// is a shell script that reads its settings first: with two test suites
// on two cores it took more than 5 s, and the version was then missing
// from the engine's details and every HAR, so the limit is generous and
// stretched by the machine's load.
func readChromiumVersion(path string) string {
	ctx, cancel := context.WithTimeout(context.Background(), Patient(15*time.Second))
	defer cancel()
	out, err := exec.CommandContext(ctx, path, "--version").Output()
	if err != nil {
		return ""
	}
	s := strings.TrimSpace(string(out))
	if i := strings.Index(s, " built on"); i > 0 {
		s = s[:i]
	}
	return s
}
