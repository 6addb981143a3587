package browser

import (
	"bytes"
	"context"
	"errors"
	"image/jpeg"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"waymark/engine"
	"waymark/engine/action"
	"waymark/engine/chromium"
)

// TestCrashTimeoutAndClose: a crashed tab, a killed Chromium and a hung
// renderer each end the episode with a clear error; the next Reset works;
// the engine's Close leaves the pool's Chromium warm, and the pool's Close
// leaves no process and no profile behind.
func TestCrashTimeoutAndClose(t *testing.T) {
	ts := newSite(t)
	pool := chromium.NewPool(chromium.PoolOptions{})
	t.Cleanup(pool.Close)
	e := newEngine(t, engine.DisplayXvfb, func(o *Options) { o.Settings.OpTimeout = 2 * time.Second; o.Pool = pool })
	ctx := context.Background()

	t.Run("tab crash", func(t *testing.T) {
		reset(t, e, ts.URL+"/")
		e.mu.Lock()
		tb := e.ep.tab
		e.mu.Unlock()
		cctx, cancel := context.WithTimeout(tb.ctx, 2*time.Second)
		chromedp.Call(cctx, page.Crash, cdp.Empty{}) // never answers: the renderer is gone
		cancel()
		obs := step(t, e, action.ClickAt(10, 10))
		if obs.Error != action.ErrRendererCrashed || !obs.Done || obs.EndReason != action.EndCrashed {
			t.Fatalf("after a crash: %+v", obs)
		}
		if _, err := e.Step(ctx, action.ClickAt(1, 1)); !errors.Is(err, engine.ErrResetBeforeStepping) {
			t.Fatalf("step after crash: %v", err)
		}
		obs = reset(t, e, ts.URL+"/page2")
		if obs.Error != "" || obs.Title != "page 2" || len(obs.Screenshot) == 0 {
			t.Fatalf("reset after crash: %+v", obs)
		}
		step(t, e, action.ScrollBy(10))
	})
	t.Run("killed Chromium", func(t *testing.T) {
		reset(t, e, ts.URL+"/")
		pid, profile := e.BrowserPID(), e.Profile()
		if pid == 0 {
			t.Fatal("no browser pid")
		}
		syscall.Kill(pid, syscall.SIGKILL)
		obs := step(t, e, action.ClickAt(10, 10))
		if obs.Error != action.ErrRendererCrashed || !obs.Done || obs.EndReason != action.EndCrashed {
			t.Fatalf("after a kill: %+v", obs)
		}
		obs = reset(t, e, ts.URL+"/page2")
		if obs.Error != "" || obs.Title != "page 2" {
			t.Fatalf("reset after kill: %+v", obs)
		}
		if e.BrowserPID() == pid {
			t.Fatal("same browser pid after the kill")
		}
		if left := procsWith(profile); len(left) > 0 {
			t.Errorf("helpers of the killed browser still run: %v", left)
		}
		if _, err := os.Stat(profile); !os.IsNotExist(err) {
			t.Errorf("old profile %s still there", profile)
		}
	})
	t.Run("hung renderer times out and refuses steps", func(t *testing.T) {
		reset(t, e, ts.URL+"/hang")
		start := time.Now()
		obs := step(t, e, action.ClickAt(400, 300))
		if obs.Error != action.ErrRendererTimeout || !obs.Done || obs.EndReason != action.EndTimeout {
			t.Fatalf("hung page: %+v", obs)
		}
		// 2 s, stretched by at most chromium.MaxBusyFactor on a busy machine.
		if d := time.Since(start); d > chromium.MaxBusyFactor*2*time.Second+3*time.Second {
			t.Errorf("timeout took %v", d)
		}
		if _, err := e.Step(ctx, action.ScrollBy(1)); !errors.Is(err, engine.ErrResetBeforeStepping) {
			t.Fatalf("step after timeout: %v", err)
		}
		obs = reset(t, e, ts.URL+"/page2")
		if obs.Error != "" || obs.Title != "page 2" {
			t.Fatalf("reset after timeout: %+v", obs)
		}
	})
	t.Run("page load timeout is reported and the episode goes on", func(t *testing.T) {
		e.set.PageLoadTimeout = time.Second
		defer func() { e.set.PageLoadTimeout = engine.DefaultPageLoadTimeout }()
		obs := reset(t, e, ts.URL+"/never")
		if obs.Error != action.ErrPageLoadTimeout || obs.Done {
			t.Fatalf("slow page: %+v", obs)
		}
		obs = step(t, e, action.Action{Op: action.Finish})
		if !obs.Done {
			t.Fatal("not done")
		}
	})
	t.Run("live frames", func(t *testing.T) {
		reset(t, e, ts.URL+"/")
		frames := e.Frames()
		step(t, e, action.ScrollBy(300))
		var first uint64
		select {
		case f := <-frames:
			first = f.Seq
			img, err := jpeg.Decode(bytes.NewReader(f.JPEG))
			if err != nil || img.Bounds().Dx() != 800 || img.Bounds().Dy() != 600 || f.Width != 800 {
				t.Fatalf("frame: %v %v %d", err, img.Bounds(), f.Width)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("no frame")
		}
		// Nobody reads: the engine must not stall, and only the newest
		// frame waits in the channel.
		for i := 0; i < 5; i++ {
			step(t, e, action.ScrollBy(100))
		}
		// Three more frames made (one at a time: at most one is on its way
		// into the channel), so the newest waiting is past first+1.
		for deadline := time.Now().Add(30 * time.Second); e.frameSeq.Load() < first+3; time.Sleep(20 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("%d frames made in 30 s after five scrolls, want at least 3", e.frameSeq.Load()-first)
			}
		}
		f := <-frames
		if f.Seq <= first+1 {
			t.Errorf("frame seq %d after five scrolls (first %d): not the newest", f.Seq, first)
		}
		select {
		case g := <-frames:
			if g.Seq <= f.Seq {
				t.Errorf("an older frame was queued: %d after %d", g.Seq, f.Seq)
			}
		default:
		}
	})
	t.Run("Close leaves nothing", func(t *testing.T) {
		reset(t, e, ts.URL+"/")
		profile, bpid, xpid := e.Profile(), e.BrowserPID(), e.XvfbPID()
		if profile == "" || bpid == 0 || xpid == 0 {
			t.Fatalf("profile %q browser %d xvfb %d", profile, bpid, xpid)
		}
		if err := e.Close(); err != nil {
			t.Fatal(err)
		}
		if err := e.Close(); err != nil {
			t.Fatal("second close:", err)
		}
		if !alive(bpid) || !alive(xpid) {
			t.Fatalf("the engine's Close stopped the pool's warm browser (Chromium alive %v, Xvfb alive %v)", alive(bpid), alive(xpid))
		}
		if st := pool.Stats(); st.Users != 0 || st.Browsers != 1 {
			t.Fatalf("after the engine's Close the pool holds %+v, want 1 browser and no users", st)
		}
		pool.Close()
		if _, err := os.Stat(profile); !os.IsNotExist(err) {
			t.Errorf("profile %s still there (%v)", profile, err)
		}
		// Chromium's helper processes end when they see their browser gone,
		// a moment after it (later on a loaded machine).
		left := procsWith(profile)
		for deadline := time.Now().Add(10 * time.Second); len(left) > 0 && time.Now().Before(deadline); left = procsWith(profile) {
			time.Sleep(50 * time.Millisecond)
		}
		if len(left) > 0 {
			t.Errorf("processes left with the profile 10 s after the pool closed: %v", left)
		}
		for _, pid := range []int{bpid, xpid} {
			if alive(pid) {
				t.Errorf("pid %d still runs", pid)
			}
		}
		if _, ok := <-e.Frames(); ok {
			// drain the last frame, then the channel must be closed
			if _, ok := <-e.Frames(); ok {
				t.Error("frames channel not closed")
			}
		}
		if _, err := e.Reset(ctx, engine.ResetOptions{StartURL: ts.URL}); err == nil {
			t.Error("reset after close worked")
		}
	})
}

func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(b, ')')
	return !(i > 0 && i+2 < len(b) && b[i+2] == 'Z')
}

func itoa(n int) string {
	var b [20]byte
	i := len(b)
	for {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
		if n == 0 {
			return string(b[i:])
		}
	}
}
