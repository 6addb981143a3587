package practice

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image/png"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"waymark/engine/action"
)

// browser is one headless Chromium shared by the subtests of TestInBrowser,
// pointed at the practice server with --host-resolver-rules.
type browser struct {
	ctx  context.Context
	mu   sync.Mutex
	errs []string // console errors and uncaught exceptions
}

func startBrowser(t *testing.T, s *Server) *browser {
	t.Helper()
	exe := "/usr/bin/chromium"
	if _, err := os.Stat(exe); err != nil {
		t.Skip("no Chromium at /usr/bin/chromium: install it with `make deps`")
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(exe),
		chromedp.NoSandbox,
		chromedp.Flag("host-resolver-rules", s.HostRules()),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-features", "BackForwardCache,Translate"),
		chromedp.WindowSize(800, 600),
		// Chromium's own temporary folders go with the test's.
		chromedp.Env("TMPDIR="+t.TempDir()),
	)
	actx, acancel := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(func() { cancel(); acancel() })
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(800, 600)); err != nil {
		t.Fatalf("starting Chromium: %v", err)
	}
	b := &browser{ctx: ctx}
	msgs := chromedp.Console(ctx)
	go func() {
		for m, err := range msgs {
			if err != nil {
				return
			}
			if m.Type == chromedp.ConsoleException || m.Type == chromedp.ConsoleError {
				b.mu.Lock()
				b.errs = append(b.errs, fmt.Sprintf("%s (%s:%d)", m.Text, m.URL, m.Line+1))
				b.mu.Unlock()
			}
		}
	}()
	return b
}

// takeErrors returns the console errors since the last call, after letting
// late messages arrive.
func (b *browser) takeErrors() []string {
	time.Sleep(150 * time.Millisecond)
	b.mu.Lock()
	defer b.mu.Unlock()
	e := b.errs
	b.errs = nil
	return e
}

func (b *browser) step(d time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeout(b.ctx, d)
}

// open loads a URL and returns the HTTP status of the document.
func (b *browser) open(u string) (int, error) {
	ctx, cancel := b.step(10 * time.Second)
	defer cancel()
	resp, err := chromedp.Run(ctx, chromedp.NavigateResponse(u))
	if err != nil {
		return 0, fmt.Errorf("open %s: %w", u, err)
	}
	return int(resp.Status), nil
}

func (b *browser) eval(js string) (bool, error) {
	ctx, cancel := b.step(5 * time.Second)
	defer cancel()
	return chromedp.Run(ctx, chromedp.Evaluate[bool]("!!("+js+")"))
}

func (b *browser) text() (string, error) {
	ctx, cancel := b.step(5 * time.Second)
	defer cancel()
	return chromedp.Run(ctx, chromedp.Evaluate[string](`document.body.innerText`))
}

func (b *browser) location() (string, error) {
	ctx, cancel := b.step(5 * time.Second)
	defer cancel()
	return chromedp.Run(ctx, chromedp.Location())
}

// click presses the left mouse button on the element, as a person would.
func (b *browser) click(sel string) error {
	ctx, cancel := b.step(5 * time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(sel), chromedp.NodeVisible)); err != nil {
		return fmt.Errorf("click %s: %w", sel, err)
	}
	return nil
}

// clickNav clicks and waits for the next document to finish loading.
func (b *browser) clickNav(sel string) error {
	if _, err := b.eval(`window.__wmOld = true`); err != nil {
		return err
	}
	if err := b.click(sel); err != nil {
		return err
	}
	if b.waitFor(`!window.__wmOld && document.readyState === 'complete'`, 8*time.Second) != nil {
		return fmt.Errorf("click %s: no new page loaded within 8 s", sel)
	}
	return nil
}

// waitFor polls js until it is true, for at most d: what the page does
// after an endpoint answers comes when it comes (on a busy machine, well
// after the endpoint's own delay).
func (b *browser) waitFor(js string, d time.Duration) error {
	deadline := time.Now().Add(d)
	for {
		ok, err := b.eval(js)
		if err == nil && ok {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s was not true within %v (last error: %v)", js, d, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// typeText types into a field with key events. Each character is three
// round trips to the browser: the bound only stops a hang (on a loaded
// machine a card number took over 5 s).
func (b *browser) typeText(sel, text string) error {
	ctx, cancel := b.step(30 * time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, chromedp.SendKeys(chromedp.CSS(sel), text, chromedp.NodeVisible)); err != nil {
		return fmt.Errorf("type into %s: %w", sel, err)
	}
	return nil
}

// setValue sets a select, date, time or prefilled field and fires the
// events a person's edit fires.
func (b *browser) setValue(sel, v string) error {
	s, _ := json.Marshal(sel)
	val, _ := json.Marshal(v)
	js := fmt.Sprintf(`(() => { const el = document.querySelector(%s); if (!el) return false; el.focus(); el.value = %s;
		el.dispatchEvent(new Event('input', {bubbles: true})); el.dispatchEvent(new Event('change', {bubbles: true})); return el.value === %s; })()`, s, val, val)
	ok, err := b.eval(js)
	if err != nil {
		return fmt.Errorf("set %s: %w", sel, err)
	}
	if !ok {
		return fmt.Errorf("set %s to %q: no such field or value not accepted", sel, v)
	}
	return nil
}

type step func(b *browser) error

func open(u string) step             { return func(b *browser) error { _, err := b.open(u); return err } }
func click(sel string) step          { return func(b *browser) error { return b.click(sel) } }
func clickNav(sel string) step       { return func(b *browser) error { return b.clickNav(sel) } }
func typeText(sel, text string) step { return func(b *browser) error { return b.typeText(sel, text) } }
func setValue(sel, v string) step    { return func(b *browser) error { return b.setValue(sel, v) } }
func expect(js string, want bool) step {
	return func(b *browser) error {
		got, err := b.eval(js)
		if err == nil && got != want {
			err = fmt.Errorf("expected %s to be %v", js, want)
		}
		return err
	}
}

// expectSoon waits (at most 10 s) for js to be true.
func expectSoon(js string) step {
	return func(b *browser) error { return b.waitFor(js, 10*time.Second) }
}

func run(b *browser, steps []step) error {
	for i, s := range steps {
		if err := s(b); err != nil {
			return fmt.Errorf("step %d: %w", i+1, err)
		}
	}
	return nil
}

// crawl lists the pages reachable by links from start on one host.
func crawl(t *testing.T, h http.Handler, host, start string) map[string]bool {
	seen := map[string]bool{}
	queue := []string{start}
	for len(queue) > 0 && len(seen) < 400 {
		p := queue[0]
		queue = queue[1:]
		if seen[p] || strings.Contains(p, "/static/") {
			continue
		}
		seen[p] = true
		code, body := get(t, h, host, p)
		if code != 200 {
			continue
		}
		for _, m := range hrefRE.FindAllStringSubmatch(body, -1) {
			l := strings.ReplaceAll(m[1], "&amp;", "&")
			if strings.HasPrefix(l, "/") && !seen[l] {
				queue = append(queue, l)
			}
		}
	}
	return seen
}

// Solutions, written as a person would act. URLs are on the practice hosts.
var navSolutions = map[string][]step{
	"shop-cheapest-waterproof-boots": {clickNav(`nav.cats a[href$="/category/footwear"]`), click(`#waterproof`), setValue(`#sort`, "price-asc"), clickNav(`#apply`), clickNav(`.results .card`)},
	"shop-search-red-shoes":          {typeText(`#q`, "red shoes"), clickNav(`.search button`)},
	"shop-jackets-100-200":           {clickNav(`nav.cats a[href$="/category/jackets"]`), typeText(`#min`, "100"), typeText(`#max`, "200"), clickNav(`#apply`)},
	"shop-backpacks-price-asc":       {clickNav(`nav.cats a[href$="/category/backpacks"]`), setValue(`#sort`, "price-asc"), clickNav(`#apply`)},
	"shop-highest-rated-jacket":      {clickNav(`nav.cats a[href$="/category/jackets"]`), setValue(`#sort`, "rating"), clickNav(`#apply`), clickNav(`.results .card`)},
	"shop-cheapest-camping":          {clickNav(`nav.cats a[href$="/category/camping"]`), setValue(`#sort`, "price-asc"), clickNav(`#apply`), clickNav(`.results .card`)},
	"wiki-river-through-varnholm":    {clickNav(`.dyk a[href$="/wiki/Varnholm"]`), clickNav(`#infobox a[href$="/wiki/Sella_River"]`)},
	"wiki-observatory-founder-article": {typeText(`#search`, "observatory"), clickNav(`.search button`), clickNav(`.hit a[href$="/wiki/Varnholm_Observatory"]`),
		clickNav(`#infobox a[href$="/wiki/Tobias_Quell"]`)},
	"wiki-search-railway":       {typeText(`#search`, "railway"), clickNav(`.search button`)},
	"wiki-rivers-category":      {clickNav(`.cats a[href$="/category/Rivers"]`)},
	"wiki-marrow-birthplace":    {typeText(`#search`, "Elsa Marrow"), clickNav(`.search button`), clickNav(`.hit a`), clickNav(`#infobox a[href$="/wiki/Lisk"]`)},
	"forms-security-page":       {clickNav(`nav.side a[href$="/settings/security"]`)},
	"forms-help-reset-password": {clickNav(`.toplink`), clickNav(`.helplist a[href$="/help/reset-password"]`)},
}

// Information tasks: the page that holds the answer, text on it, and what a
// person would answer.
var infoSolutions = map[string]struct{ path, text, answer string }{
	"wiki-varnholm-population": {"/wiki/Varnholm", "Population (2025)\t412,300", "412,300"},
	"wiki-marrow-prize-year":   {"/wiki/Elsa_Marrow", "Kaldorian Prize for Physics (1974)", "1974"},
	"wiki-sella-length":        {"/wiki/Sella_River", "Length\t612 km", "612 km"},
	"wiki-third-largest-city":  {"/wiki/Kaldoria", "3\tLisk\t", "Lisk"},
	"wiki-krona-code":          {"/wiki/Kaldorian_krona", "ISO 4217 code\tKDK", "KDK"},
	"wiki-observatory-founder": {"/wiki/Varnholm_Observatory", "Founder\tTobias Quell", "Tobias Quell"},
	"wiki-ardent-elevation":    {"/wiki/Mount_Ardent", "Elevation\t3,412 m", "3,412 m"},
	"wiki-orvin-mouth":         {"/wiki/Orvin_River", "Mouth\tLake Mirren", "Lake Mirren"},
	"shop-summit-price":        {"/product/summit-gtx", "$189.00", "$189.00"},
	"shop-ridgeline-weight":    {"/product/ridgeline-35", "Weight\t1.2 kg", "1.2 kg"},
	"shop-cheapest-tent-brand": {"/product/solo-bivy-tent", "Brand\tNorthpeak", "Northpeak"},
	"shop-stormshell-reviews":  {"/product/stormshell-jacket", "128 reviews", "128"},
	"forms-pottery-price":      {"/book", "Pottery for Beginners\n$60 per person", "$60"},
	"forms-refund-days":        {"/help/cancel-booking", "up to 7 days before the workshop and receive a full refund", "7"},
}

var interactionSolutions = map[string][]step{
	"shop-cart-trail-runner-42": {clickNav(`a.card[data-slug="trail-runner-x"]`), click(`button.size[data-size="42"]`), click(`#qty-plus`), click(`#add-to-cart`)},
	"shop-cart-ridgeline": {clickNav(`.cartlink`), expect(`getComputedStyle(document.getElementById('cart-summary')).display === 'none' && getComputedStyle(document.getElementById('cart-empty')).display !== 'none'`, true),
		clickNav(`.logo`), clickNav(`a.card[data-slug="ridgeline-35"]`), click(`#add-to-cart`)},
	"shop-cart-boot-and-jacket": {clickNav(`a.card[data-slug="summit-gtx"]`),
		// No size yet: the shop refuses and nothing enters the cart.
		click(`#add-to-cart`), expect(`wmCart().length === 0 && !document.getElementById('added').hidden`, true),
		click(`button.size[data-size="44"]`), click(`#add-to-cart`),
		clickNav(`nav.cats a[href$="/category/jackets"]`), clickNav(`a.card[data-slug="stormshell-jacket"]`), click(`button.size[data-size="M"]`), click(`#add-to-cart`)},
	"shop-cart-three-socks": {typeText(`#q`, "socks"), clickNav(`.search button`), clickNav(`a.card[data-slug="trail-socks-3-pack"]`), click(`button.size[data-size="L"]`), click(`#qty-plus`), click(`#qty-plus`), click(`#qty-minus`), click(`#add-to-cart`),
		// Two packs in the cart; the third is added on the cart page.
		clickNav(`.cartlink`), expect(`document.getElementById('subtotal').innerText === '$48.00'`, true), setValue(`.qty-input`, "3"),
		expect(`document.getElementById('subtotal').innerText === '$72.00' && document.getElementById('cart-count').innerText === '3'`, true)},
	"shop-order-thermos-express": {clickNav(`a.card[data-slug="alpine-thermos"]`), click(`#add-to-cart`), clickNav(`.cartlink`), clickNav(`#to-checkout`),
		typeText(`#name`, "Jane Doe"), typeText(`#email`, "jane@example.com"), typeText(`#address`, "5 Fjord Street"), typeText(`#city`, "Varnholm"), typeText(`#zip`, "10115"),
		setValue(`#shipping`, "express"), typeText(`#card`, "4242 4242 4242 4241"), typeText(`#expiry`, "12/30"), typeText(`#cvc`, "123"),
		// A mistyped card number is refused with a message; no order is stored.
		click(`#place-order`), expect(`!document.getElementById('form-errors').hidden && document.getElementById('form-errors').innerText.includes('card number')`, true),
		expect(`(JSON.parse(localStorage.getItem('wm_orders') || '[]')).length === 0`, true),
		setValue(`#card`, "4242 4242 4242 4242"), clickNav(`#place-order`),
		expect(`/\/order\/TH-\d+$/.test(location.pathname) && document.getElementById('order-details').innerText.includes('Alpine Thermos')`, true)},
	"forms-2fa-timeout": {clickNav(`nav.side a[href$="/settings/security"]`), click(`#twoFactor`), setValue(`#sessionTimeout`, "30"), click(`#save`),
		expect(`!document.getElementById('toast').hidden && document.getElementById('toast').innerText === 'Settings saved'`, true)},
	"forms-name-language":     {clickNav(`nav.side a[href$="/settings/profile"]`), setValue(`#displayName`, "Sam Rivera"), setValue(`#language`, "de"), click(`#save`)},
	"forms-newsletter-weekly": {clickNav(`nav.side a[href$="/settings/notifications"]`), click(`#newsletter`), setValue(`#digest`, "weekly"), click(`#save`)},
	"forms-birthday":          {clickNav(`nav.side a[href$="/settings/profile"]`), setValue(`#birthday`, "1990-03-14"), click(`#save`)},
	"forms-dark-monday": {clickNav(`nav.side a[href$="/settings/preferences"]`), click(`#theme-dark`), setValue(`#weekStart`, "monday"), click(`#save`),
		expect(`document.body.classList.contains('dark')`, true)},
	"forms-quiet-hours": {clickNav(`nav.side a[href$="/settings/notifications"]`), setValue(`#quietStart`, "22:00"), click(`#save`),
		// Half a range is refused.
		expect(`!document.querySelector('.formerr').hidden && localStorage.getItem('wm_settings') === null`, true),
		setValue(`#quietEnd`, "07:00"), click(`#save`)},
	"forms-book-bread": {clickNav(`nav.side a[href$="/book"]`),
		expect(`getComputedStyle(document.getElementById('submit')).display === 'none' && getComputedStyle(document.getElementById('back')).display === 'none'`, true),
		click(`input[value="bread"]`), setValue(`#date`, "2026-12-11"), setValue(`#participants`, "3"), click(`#next`),
		// 11 December 2026 is a Friday: the wizard stays on step 1 and says why.
		expect(`!document.querySelector('[data-step="1"]').hidden && document.getElementById('wizard-error').innerText.includes('Saturday')`, true),
		setValue(`#date`, "2026-12-12"), click(`#next`), typeText(`#fullName`, "Alex Kim"), typeText(`#contactEmail`, "alex.kim@example.com"), click(`#next`),
		expect(`document.getElementById('summary').innerText.includes('$135')`, true),
		click(`#back`), expect(`!document.querySelector('[data-step="2"]').hidden && document.getElementById('fullName').value === 'Alex Kim'`, true), click(`#next`),
		click(`#terms`), clickNav(`#submit`), expect(`document.getElementById('booking-details').innerText.includes('Bread Baking')`, true)},
}

func TestInBrowser(t *testing.T) {
	s, err := Start()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	b := startBrowser(t, s)
	tasks := Tasks()

	t.Run("EveryPageLoadsWithoutErrors", func(t *testing.T) {
		n := 0
		for _, host := range Hosts {
			for p := range crawl(t, s.Handler(), host, "/") {
				if strings.Contains(p, "/static/") {
					continue
				}
				u := "http://" + host + p
				code, err := b.open(u)
				if err != nil {
					t.Fatal(err)
				}
				if code != 200 {
					t.Errorf("%s: HTTP %d", u, code)
				}
				// Designed for an 800 px viewport: no sideways scrolling.
				if wide, err := b.eval(`document.documentElement.scrollWidth > 800`); err != nil || wide {
					t.Errorf("%s: wider than 800 px (%v)", u, err)
				}
				n++
			}
		}
		// The path-prefix form works in the browser too.
		for _, p := range []string{"/shop/product/summit-gtx", "/wiki/wiki/Varnholm", "/forms/book", "/"} {
			if code, err := b.open(s.URL() + p); err != nil || code != 200 {
				t.Errorf("%s%s: %d %v", s.URL(), p, code, err)
			}
		}
		if errs := b.takeErrors(); len(errs) > 0 {
			t.Errorf("console errors: %s", strings.Join(errs, "\n"))
		}
		if n < 60 {
			t.Errorf("only %d pages crawled", n)
		}
		t.Logf("%d pages loaded through --host-resolver-rules %q", n, s.HostRules())
	})

	t.Run("Navigation", func(t *testing.T) {
		for _, tk := range tasks {
			if tk.Category != Navigation {
				continue
			}
			sol, ok := navSolutions[tk.Key]
			if !ok {
				t.Errorf("%s: no solution in the test", tk.Key)
				continue
			}
			if m, _ := tk.Check.MatchURL(tk.StartURL); m {
				t.Errorf("%s: the start URL already matches", tk.Key)
			}
			if _, err := b.open(tk.StartURL); err != nil {
				t.Fatal(err)
			}
			if err := run(b, sol); err != nil {
				t.Errorf("%s: %v", tk.Key, err)
				continue
			}
			u, err := b.location()
			if err != nil {
				t.Fatal(err)
			}
			if m, _ := tk.Check.MatchURL(u); !m {
				t.Errorf("%s: solved at %s, which does not match %s", tk.Key, u, tk.Check.URL)
			}
		}
		if errs := b.takeErrors(); len(errs) > 0 {
			t.Errorf("console errors: %s", strings.Join(errs, "\n"))
		}
	})

	t.Run("Information", func(t *testing.T) {
		var others []string
		for _, tk := range tasks {
			if tk.Category == Information {
				others = append(others, infoSolutions[tk.Key].answer)
			}
		}
		for _, tk := range tasks {
			if tk.Category != Information {
				continue
			}
			if _, ok := clockSolutions[tk.Key]; ok {
				continue // needs the engine's clock: TestClockTask
			}
			sol, ok := infoSolutions[tk.Key]
			if !ok {
				t.Errorf("%s: no solution in the test", tk.Key)
				continue
			}
			start := strings.TrimPrefix(tk.StartURL, "http://")
			host, path, _ := strings.Cut(start, "/")
			if !crawl(t, s.Handler(), host, "/"+path)[sol.path] {
				t.Errorf("%s: %s is not reachable by links from %s", tk.Key, sol.path, tk.StartURL)
			}
			if _, err := b.open("http://" + host + sol.path); err != nil {
				t.Fatal(err)
			}
			text, err := b.text()
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(strings.ToLower(text), strings.ToLower(sol.text)) {
				t.Errorf("%s: %q not on %s", tk.Key, sol.text, sol.path)
			}
			if !tk.Check.MatchAnswer(sol.answer) || !tk.Check.MatchAnswer(" "+strings.ToUpper(sol.answer)+". ") {
				t.Errorf("%s: the answer %q does not pass the check %q", tk.Key, sol.answer, tk.Check.Answer)
			}
			for _, o := range others {
				if o != sol.answer && tk.Check.MatchAnswer(o) {
					t.Errorf("%s: another task's answer %q also passes", tk.Key, o)
				}
			}
		}
	})

	t.Run("Interaction", func(t *testing.T) {
		for _, tk := range tasks {
			if tk.Category != Interaction {
				continue
			}
			sol, ok := interactionSolutions[tk.Key]
			if !ok {
				t.Errorf("%s: no solution in the test", tk.Key)
				continue
			}
			// A fresh profile: nothing stored for the site.
			if _, err := b.open(tk.StartURL); err != nil {
				t.Fatal(err)
			}
			if _, err := b.eval(`(localStorage.clear(), true)`); err != nil {
				t.Fatal(err)
			}
			if _, err := b.open(tk.StartURL); err != nil {
				t.Fatal(err)
			}
			if done, err := b.eval(tk.Check.JS); err != nil || done {
				t.Errorf("%s: check on the fresh start page = %v, %v; want false", tk.Key, done, err)
				continue
			}
			if err := run(b, sol); err != nil {
				t.Errorf("%s: %v", tk.Key, err)
				continue
			}
			if done, err := b.eval(tk.Check.JS); err != nil || !done {
				t.Errorf("%s: check after the solution = %v, %v; want true", tk.Key, done, err)
				continue
			}
			// The state survives navigation back to the start page.
			if _, err := b.open(tk.StartURL); err != nil {
				t.Fatal(err)
			}
			if done, err := b.eval(tk.Check.JS); err != nil || !done {
				t.Errorf("%s: check after navigating away = %v, %v; want true", tk.Key, done, err)
			}
		}
		if errs := b.takeErrors(); len(errs) > 0 {
			t.Errorf("console errors: %s", strings.Join(errs, "\n"))
		}
	})

	t.Run("SlowEndpointsUpdateThePage", func(t *testing.T) {
		if _, err := b.open("http://shop.waymark.test/product/trail-runner-x"); err != nil {
			t.Fatal(err)
		}
		if err := b.click(`#check-stock`); err != nil {
			t.Fatal(err)
		}
		if done, _ := b.eval(`document.getElementById('stock-status').innerText.startsWith('In stock')`); done {
			t.Error("stock status arrived at once; the endpoint should answer after ~250 ms")
		}
		if err := b.waitFor(`/^(In stock: \d+ available|Out of stock)/.test(document.getElementById('stock-status').innerText)`, 10*time.Second); err != nil {
			t.Errorf("stock status did not arrive: %v", err)
		}
		if err := b.typeText(`#q`, "boo"); err != nil {
			t.Fatal(err)
		}
		if err := b.waitFor(`!document.getElementById('suggest').hidden && document.querySelectorAll('#suggest li').length > 0`, 10*time.Second); err != nil {
			t.Errorf("search suggestions did not appear: %v", err)
		}
	})

	t.Run("Screenshots", func(t *testing.T) {
		dir := os.Getenv("WAYMARK_PRACTICE_SHOTS")
		if dir == "" {
			dir = t.TempDir()
		} else if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		// Every page type at 800×600; steps put the page into the state
		// worth looking at (a filled cart, a wizard step).
		cartItems := `localStorage.setItem('wm_cart', JSON.stringify([
			{slug: 'summit-gtx', name: 'Summit GTX Hiking Boot', price: 18900, size: '42', qty: 1},
			{slug: 'trail-runner-x', name: 'Trail Runner X', price: 12900, size: '44', qty: 2},
			{slug: 'merino-beanie', name: 'Merino Beanie', price: 2900, size: '', qty: 1}]))`
		fillCart := []step{open("http://shop.waymark.test/"), expect(cartItems+`, true`, true)}
		book := "http://forms.waymark.test/book"
		step1 := []step{open(book), click(`input[value="bread"]`), setValue(`#date`, "2026-12-12"), setValue(`#participants`, "3")}
		step2 := append(append([]step{}, step1...), click(`#next`), typeText(`#fullName`, "Alex Kim"), typeText(`#contactEmail`, "alex.kim@example.com"))
		step3 := append(append([]step{}, step2...), click(`#next`))
		shots := []struct {
			name  string
			url   string
			steps []step
		}{
			{"shop-home", "http://shop.waymark.test/", nil},
			{"shop-product", "http://shop.waymark.test/product/summit-gtx", nil},
			{"shop-category", "http://shop.waymark.test/category/footwear", nil},
			{"shop-search", "http://shop.waymark.test/search?q=jacket", nil},
			{"shop-cart", "http://shop.waymark.test/cart", fillCart},
			{"shop-checkout", "http://shop.waymark.test/checkout", fillCart},
			{"shop-checkout-errors", "", append(append([]step{}, fillCart...), open("http://shop.waymark.test/checkout"), typeText(`#name`, "Jane Doe"), click(`#place-order`))},
			{"shop-order", "", append(append([]step{}, fillCart...), open("http://shop.waymark.test/checkout"),
				typeText(`#name`, "Jane Doe"), typeText(`#email`, "jane@example.com"), typeText(`#address`, "5 Fjord Street"), typeText(`#city`, "Varnholm"), typeText(`#zip`, "10115"),
				setValue(`#shipping`, "express"), typeText(`#card`, "4242 4242 4242 4242"), typeText(`#expiry`, "12/30"), typeText(`#cvc`, "123"), clickNav(`#place-order`))},
			{"shop-product-added", "", []step{open("http://shop.waymark.test/product/trail-runner-x"), click(`button.size[data-size="44"]`), click(`#add-to-cart`), click(`#check-stock`),
				expectSoon(`/^(In stock|Out of stock)/.test(document.getElementById('stock-status').innerText)`)}},
			{"shop-cart-empty", "http://shop.waymark.test/cart", []step{open("http://shop.waymark.test/"), expect(`(localStorage.clear(), true)`, true)}},
			{"wiki-home", "http://wiki.waymark.test/", nil},
			{"wiki-article", "http://wiki.waymark.test/wiki/Varnholm", nil},
			{"wiki-article-table", "http://wiki.waymark.test/wiki/Kaldoria", nil},
			{"wiki-article-river", "http://wiki.waymark.test/wiki/Sella_River", nil},
			{"wiki-category", "http://wiki.waymark.test/category/Rivers", nil},
			{"wiki-search", "http://wiki.waymark.test/search?q=river", nil},
			{"forms-home", "http://forms.waymark.test/", nil},
			{"forms-profile", "http://forms.waymark.test/settings/profile", nil},
			{"forms-security", "http://forms.waymark.test/settings/security", nil},
			{"forms-notifications", "http://forms.waymark.test/settings/notifications", nil},
			{"forms-preferences", "http://forms.waymark.test/settings/preferences", nil},
			{"forms-book", book, nil},
			{"forms-help", "http://forms.waymark.test/help", nil},
			{"forms-help-article", "http://forms.waymark.test/help/reset-password", nil},
			{"forms-signin", "http://forms.waymark.test/signin", nil},
			{"forms-signin-errors", "", []step{open("http://forms.waymark.test/signin"), typeText(`#signinEmail`, "robin.vale@example.com"), click(`#signin-submit`)}},
			{"forms-signed-in", "", []step{open("http://forms.waymark.test/signin"), typeText(`#signinEmail`, "robin.vale@example.com"),
				typeText(`#signinPassword`, "practice-pass"), clickNav(`#signin-submit`)}},
			{"forms-book-1", "", step1},
			{"forms-book-2", "", step2},
			{"forms-book-3", "", step3},
			{"forms-booked", "", append(append([]step{}, step3...), click(`#terms`), clickNav(`#submit`))},
			// The dark theme, last: it stays in the browser's storage.
			{"forms-dark-preferences", "", []step{open("http://forms.waymark.test/settings/preferences"), click(`#theme-dark`), click(`#save`)}},
			{"forms-dark-profile", "http://forms.waymark.test/settings/profile", nil},
			{"forms-dark-book-1", "", step1},
			{"forms-dark-book-3", "", step3},
		}
		full := os.Getenv("WAYMARK_PRACTICE_SHOTS_FULL") != ""
		for _, sh := range shots {
			name := sh.name
			if err := run(b, sh.steps); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if sh.url != "" {
				if _, err := b.open(sh.url); err != nil {
					t.Fatal(err)
				}
			}
			if full {
				// The whole page, for a person checking the layout below the fold.
				ctx, cancel := b.step(10 * time.Second)
				whole, err := chromedp.Run(ctx, chromedp.FullScreenshot(90))
				cancel()
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, name+"-full.jpg"), whole, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			ctx, cancel := b.step(10 * time.Second)
			shot, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
			cancel()
			if err != nil {
				t.Fatal(err)
			}
			img, err := png.Decode(bytes.NewReader(shot))
			if err != nil {
				t.Fatal(err)
			}
			if r := img.Bounds(); r.Dx() != action.ViewportWidth || r.Dy() != action.ViewportHeight {
				t.Errorf("%s: screenshot is %v, want 800x600", name, r)
			}
			colours := map[uint32]bool{}
			for y := 0; y < 600; y += 7 {
				for x := 0; x < 800; x += 7 {
					r, g, bl, _ := img.At(x, y).RGBA()
					colours[r>>12<<8|g>>12<<4|bl>>12] = true
				}
			}
			if len(colours) < 12 {
				t.Errorf("%s: only %d colours: the page looks blank", name, len(colours))
			}
			// Pages are designed for 800 px: no sideways scrolling.
			if wide, _ := b.eval(`document.documentElement.scrollWidth > 800`); wide {
				t.Errorf("%s: the page is wider than 800 px", name)
			}
			// No field squeezed into a sliver beside something else (the
			// checkout once put "Full name" in an 18 px column).
			ctx, cancel = b.step(5 * time.Second)
			narrow, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll('input, select, textarea')]
				.filter(el => el.offsetParent !== null && !['checkbox', 'radio', 'hidden', 'number', 'submit', 'button'].includes(el.type))
				.filter(el => el.getBoundingClientRect().width < 90)
				.map(el => (el.id || el.name || el.tagName) + ' is ' + Math.round(el.getBoundingClientRect().width) + ' px wide')`))
			cancel()
			if err != nil {
				t.Fatal(err)
			}
			if len(narrow) > 0 {
				t.Errorf("%s: squeezed fields: %s", name, strings.Join(narrow, "; "))
			}
			if err := os.WriteFile(filepath.Join(dir, name+".png"), shot, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := b.eval(`(localStorage.clear(), true)`); err != nil {
			t.Fatal(err)
		}
		t.Logf("screenshots in %s", dir)
	})
}
