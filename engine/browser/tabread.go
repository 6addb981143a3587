package browser

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/chromedp/cdproto"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// What an observation reads from a tab besides its events: the page's
// URL, title and text (infoScript) and the screenshot, each read from one
// document even while a navigation replaces it.

// infoScript reads what an observation needs besides the screenshot, and
// applies the reference's bot-verification text rules to the body text.
const infoScript = `(() => {
  let text = '';
  try { text = (document.body ? document.body.innerText : '') || ''; } catch (e) {}
  text = text.toLowerCase().replace(/\s+/g, ' ');
  const bot = (text.includes('cloudflare') && (text.includes('verifying you are human') || text.includes('verify you are human'))) ||
    (text.includes('vercel security checkpoint') && (text.includes('verify your browser') || text.includes('verifying your browser')));
  const content = CONTENT;
  return [location.href, document.title, bot, EXTRA, content];
})()`

// contentCheck tells whether the page shows anything: visible text, or an
// element in the body with a box of at least 1×1 px that is not hidden. It
// is part of infoScript only with observation recovery on.
const contentCheck = `(() => {
  if (text.trim()) return true;
  const b = document.body;
  if (!b) return false;
  try {
    for (const el of b.querySelectorAll('*')) {
      const r = el.getBoundingClientRect();
      if (r.width >= 1 && r.height >= 1 && getComputedStyle(el).visibility !== 'hidden') return true;
    }
  } catch (e) { return true; }
  return false;
})()`

// pageInfo is what an observation reads from the page with its screenshot.
type pageInfo struct {
	url, title string
	bot        bool   // a bot-verification page
	state      string // the value of the tests' extra expression
	content    bool   // visible content (always true unless checked)
}

// info reads URL, title and the bot-verification verdict; extra, when
// set, is a JavaScript expression read in the same evaluation (the tests'
// page-state value); with checkContent the page is checked for visible
// content in the same evaluation.
func (t *tab) info(ctx context.Context, d time.Duration, extra string, checkContent bool) (pageInfo, error) {
	x := "''"
	if extra != "" {
		x = "(() => { try { return String(" + extra + "); } catch (e) { return 'error: ' + e; } })()"
	}
	c := "true"
	if checkContent {
		c = contentCheck
	}
	script := strings.NewReplacer("EXTRA", x, "CONTENT", c).Replace(infoScript)
	var raw []any
	err := t.do(ctx, d, func(ctx context.Context) error {
		return t.readAcrossDocuments(ctx, func(ctx context.Context) error {
			var err error
			raw, err = chromedp.Run(ctx, chromedp.Evaluate[[]any](script))
			return err
		})
	})
	if err != nil {
		return pageInfo{}, err
	}
	in := pageInfo{content: true}
	if len(raw) == 5 {
		in.url, _ = raw[0].(string)
		in.title, _ = raw[1].(string)
		in.bot, _ = raw[2].(bool)
		in.state, _ = raw[3].(string)
		in.content, _ = raw[4].(bool)
	}
	return in, nil
}

// screenshot captures the viewport as a lossless 800×600 PNG.
func (t *tab) screenshot(ctx context.Context, d time.Duration) ([]byte, error) {
	var png []byte
	err := t.do(ctx, d, func(ctx context.Context) error {
		return t.readAcrossDocuments(ctx, func(ctx context.Context) error {
			res, err := chromedp.Call(ctx, page.CaptureScreenshot, page.CaptureScreenshotParams{
				Format: page.CaptureScreenshotFormatPng,
			})
			png = res.Data
			return err
		})
	})
	return png, err
}

// nextDocument returns a channel closed when the main frame next commits a
// document.
func (t *tab) nextDocument() <-chan struct{} {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.nextDoc == nil {
		t.nextDoc = make(chan struct{})
	}
	return t.nextDoc
}

// readAcrossDocuments runs read, a command that only reads the page, until
// it is answered by a document that stays in for the whole read, at most
// until ctx ends. A page can navigate at any moment, and while its
// document is replaced Chromium answers a screenshot or an evaluation with
// an error of the transition ("Not attached to an active page" until the
// new document is in; "Execution context was destroyed" and the like),
// and never answers a screenshot still in flight when the new document
// commits: such a read is asked again of the new document.
func (t *tab) readAcrossDocuments(ctx context.Context, read func(ctx context.Context) error) error {
	for {
		next := t.nextDocument()
		rctx, cancel := context.WithCancel(ctx)
		go func() {
			select {
			case <-next:
				cancel() // a new document came in: this read may never be answered
			case <-rctx.Done():
			}
		}()
		err := read(rctx)
		cancel()
		if err == nil || ctx.Err() != nil {
			return err
		}
		select {
		case <-next:
			continue // ask the new document
		default:
		}
		if !inTransition(err) {
			return err
		}
		select {
		case <-next:
		case <-time.After(20 * time.Millisecond):
		case <-ctx.Done():
			return err
		}
	}
}

// transitionErrors are what Chromium answers a read on a page whose
// document is being replaced.
var transitionErrors = []string{
	"Not attached to an active page",
	"Execution context was destroyed",
	"Cannot find default execution context",
	"Inspected target navigated or closed",
}

// inTransition reports an error of a page between two documents.
func inTransition(err error) bool {
	var ce *cdproto.Error
	if !errors.As(err, &ce) {
		return false
	}
	for _, s := range transitionErrors {
		if strings.Contains(ce.Message, s) {
			return true
		}
	}
	return false
}
