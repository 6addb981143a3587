package review

import (
	"fmt"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"waymark/engine/har"
)

// requestsPanel is the side panel's Requests tab: the network requests that
// started during the step shown (from the episode's capture), one row each
// — method, status, size, URL — in a compact table. A click on a row shows
// the request in full below it (headers, bodies, timings) with Copy, which
// puts that text on the clipboard.
type requestsPanel struct {
	p *player

	tab     *container.TabItem
	title   *widget.Label
	table   *widget.Table
	detail  *widget.Label
	copyBtn *widget.Button

	// epID and step are what the panel shows; cache holds the steps read
	// for epID, captured whether epID was recorded with capture.
	epID     string
	step     int
	captured bool
	cache    map[int][]har.Entry
	entries  []har.Entry
	sel      int // the row shown in detail, -1 none
}

// The table's columns.
const (
	reqColMethod = iota
	reqColStatus
	reqColSize
	reqColURL
	reqCols
)

var reqColNames = [reqCols]string{"Method", "Status", "Size", "URL"}

// attach builds the panel and adds its tab to the side panel.
func (r *requestsPanel) attach(p *player) {
	r.p, r.sel, r.step = p, -1, -1
	r.title = widget.NewLabel("Choose an episode to see the requests of its steps.")
	r.title.Wrapping = fyne.TextWrapWord
	r.detail = widget.NewLabel("")
	r.detail.Wrapping = fyne.TextWrapBreak
	r.detail.Selectable = true
	r.detail.SizeName = theme.SizeNameCaptionText
	r.copyBtn = widget.NewButtonWithIcon("Copy", theme.ContentCopyIcon(), r.copyDetail)
	r.copyBtn.Disable()
	r.table = widget.NewTableWithHeaders(
		func() (int, int) { return len(r.entries), reqCols },
		func() fyne.CanvasObject {
			l := widget.NewLabel("")
			l.Truncation = fyne.TextTruncateEllipsis
			l.SizeName = theme.SizeNameCaptionText
			return l
		},
		func(id widget.TableCellID, o fyne.CanvasObject) {
			if id.Row < len(r.entries) {
				o.(*widget.Label).SetText(requestCell(r.entries[id.Row], id.Col))
			}
		})
	r.table.ShowHeaderColumn = false
	r.table.CreateHeader = func() fyne.CanvasObject {
		l := widget.NewLabel("")
		l.TextStyle = fyne.TextStyle{Bold: true}
		l.SizeName = theme.SizeNameCaptionText
		return l
	}
	r.table.UpdateHeader = func(id widget.TableCellID, o fyne.CanvasObject) {
		if id.Col >= 0 && id.Col < reqCols {
			o.(*widget.Label).SetText(reqColNames[id.Col])
		}
	}
	for c, w := range []float32{58, 50, 64, 520} {
		r.table.SetColumnWidth(c, w)
	}
	r.table.OnSelected = func(id widget.TableCellID) {
		r.showDetail(id.Row)
		p.t.unfocus()
	}
	below := container.NewBorder(container.NewHBox(widget.NewLabelWithStyle("Request", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}), r.copyBtn),
		nil, nil, nil, container.NewVScroll(r.detail))
	split := container.NewVSplit(r.table, below)
	split.Offset = 0.5
	r.tab = container.NewTabItem("Requests", container.NewBorder(r.title, nil, nil, nil, split))
	if side := p.t.side; side != nil {
		side.Append(r.tab)
	}
}

// stepChanged shows the requests of step k of the open episode.
func (r *requestsPanel) stepChanged(k int) {
	ep := r.p.ep
	if ep == nil || r.title == nil {
		return
	}
	if ep.ID != r.epID {
		r.epID, r.cache = ep.ID, map[int][]har.Entry{}
		sum, err := r.p.t.store.HARSummary(r.p.t.life, ep.ID)
		r.captured = err == nil && sum != nil
		if err != nil {
			r.set(k, nil, fmt.Sprintf("Cannot read this episode's network capture: %v", err))
			return
		}
	} else if k == r.step {
		return
	}
	if !r.captured {
		r.set(k, nil, "This episode was recorded without network capture: its requests were not kept.")
		return
	}
	es, ok := r.cache[k]
	if !ok {
		var err error
		if es, err = r.p.t.store.StepRequests(r.p.t.life, ep.ID, k); err != nil {
			r.set(k, nil, fmt.Sprintf("Cannot read the requests of step %d: %v", k, err))
			return
		}
		r.cache[k] = es
	}
	var msg string
	switch len(es) {
	case 0:
		msg = fmt.Sprintf("Step %d: no request started during this step.", k)
	case 1:
		msg = fmt.Sprintf("Step %d: 1 request. Click it for its detail.", k)
	default:
		msg = fmt.Sprintf("Step %d: %d requests. Click one for its detail.", k, len(es))
	}
	if k == 0 {
		msg = strings.Replace(msg, "Step 0:", "The start page:", 1)
	}
	r.set(k, es, msg)
}

func (r *requestsPanel) set(k int, es []har.Entry, msg string) {
	r.step, r.entries = k, es
	r.title.SetText(msg)
	r.table.UnselectAll()
	r.table.Refresh()
	r.table.ScrollToTop()
	r.showDetail(-1)
}

func (r *requestsPanel) showDetail(row int) {
	if row < 0 || row >= len(r.entries) {
		r.sel = -1
		r.detail.SetText("")
		r.copyBtn.Disable()
		return
	}
	r.sel = row
	r.detail.SetText(requestDetail(r.entries[row]))
	r.copyBtn.Enable()
}

// copyDetail puts the selected request's detail on the clipboard.
func (r *requestsPanel) copyDetail() {
	if r.sel < 0 {
		return
	}
	if app := fyne.CurrentApp(); app != nil {
		app.Clipboard().SetContent(r.detail.Text)
	}
	r.p.t.unfocus()
}

// requestCell is the text of one cell of the table.
func requestCell(e har.Entry, col int) string {
	switch col {
	case reqColMethod:
		return e.Request.Method
	case reqColStatus:
		if e.Response.Status == 0 {
			return "failed"
		}
		return fmt.Sprint(e.Response.Status)
	case reqColSize:
		return byteSize(e.Response.Content.Size)
	case reqColURL:
		return hostPath(e.Request.URL)
	}
	return ""
}

// detailBodyMax is how much of a body the detail shows.
const detailBodyMax = 4000

// requestDetail is the whole of one request as text.
func requestDetail(e har.Entry) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s\n", e.Request.Method, e.Request.URL)
	status := fmt.Sprintf("%d %s", e.Response.Status, e.Response.StatusText)
	if e.Response.Status == 0 {
		status = "failed"
		if e.Response.Error != "" {
			status += ": " + e.Response.Error
		}
	}
	fmt.Fprintf(&b, "%s · %s · %s · %.0f ms · step %d · started %s\n", strings.TrimSpace(status), byteSize(e.Response.Content.Size),
		orDash(e.ResourceType), e.Time, e.Step, e.StartedDateTime)
	if e.Response.RedirectURL != "" {
		fmt.Fprintf(&b, "Redirects to %s\n", e.Response.RedirectURL)
	}
	headers := func(title string, hs []har.NameValue) {
		if len(hs) == 0 {
			return
		}
		fmt.Fprintf(&b, "\n%s\n", title)
		for _, h := range hs {
			fmt.Fprintf(&b, "  %s: %s\n", h.Name, h.Value)
		}
	}
	headers("Request headers", e.Request.Headers)
	if pd := e.Request.PostData; pd != nil {
		fmt.Fprintf(&b, "\nRequest body (%s)\n%s\n", pd.MimeType, clip(pd.Text))
	}
	headers("Response headers", e.Response.Headers)
	c := e.Response.Content
	switch {
	case c.Text != "" && c.Encoding == "":
		fmt.Fprintf(&b, "\nResponse body (%s)\n%s\n", c.MimeType, clip(c.Text))
	case c.Text != "":
		fmt.Fprintf(&b, "\nResponse body (%s, %s encoded, not shown)\n", c.MimeType, c.Encoding)
	default:
		fmt.Fprintf(&b, "\nResponse body (%s): not kept", orDash(c.MimeType))
		if c.Comment != "" {
			fmt.Fprintf(&b, " — %s", c.Comment)
		}
		b.WriteString("\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

func clip(s string) string {
	if len(s) <= detailBodyMax {
		return s
	}
	return strings.ToValidUTF8(s[:detailBodyMax], "") + fmt.Sprintf("… (%d more bytes; the whole body is in the episode's HAR: waymark har EPISODE)", len(s)-detailBodyMax)
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

// byteSize is n bytes in a few characters: 812 B, 1.2 kB, 3.4 MB.
func byteSize(n int64) string {
	switch {
	case n < 0:
		return "—"
	case n < 1000:
		return fmt.Sprintf("%d B", n)
	case n < 1000*1000:
		return fmt.Sprintf("%.1f kB", float64(n)/1000)
	}
	return fmt.Sprintf("%.1f MB", float64(n)/1e6)
}
