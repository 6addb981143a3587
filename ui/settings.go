package ui

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"waymark/dataset"
	"waymark/engine"
	"waymark/engine/action"
	"waymark/engine/openenv"
	"waymark/engine/redact"
)

// Settings are the person's choices, kept in Fyne preferences. The engine's
// part (steps, waits, display, action set, observation recovery) is an
// engine.Settings, with the engine's defaults and limits.
type Settings struct {
	engine.Settings
	// Annotator is the name written on every episode and review.
	Annotator string
	// DBPath is the database file used from the next start ("" = default).
	DBPath string
	// Server, when set, is an OpenEnv browser server (http://host:port) that
	// runs the episodes instead of the local browser.
	Server string
	// RemoteBrowser, when set, is a Chromium elsewhere (a browser farm)
	// that the engine drives over CDP instead of starting one:
	// http://host:port or ws://host:port/devtools/browser/… (remotebrowser.go).
	RemoteBrowser string
	// DBInUse is the database this run uses, and DBFromCommandLine tells
	// that --db or WAYMARK_DB chose it; neither is saved.
	DBInUse           string
	DBFromCommandLine bool
	// Theme is ThemeSystem (follow the system's light or dark setting),
	// ThemeLight or ThemeDark; Zoom multiplies the interface's sizes (1:
	// as Fyne's scale gives them).
	Theme string
	Zoom  float64
	// Redaction is the redaction policy of what is recorded: "default",
	// "off" or a policy file's path (engine/redact).
	Redaction string
}

// DatabaseExtensions are the endings of SQLite database files the
// Settings' file dialog lists.
var DatabaseExtensions = []string{".db", ".sqlite", ".sqlite3"}

// Preference keys.
const (
	prefAnnotator    = "annotator"
	prefDisplay      = "display"
	prefActionSet    = "action_set"
	prefMaxSteps     = "max_steps"
	prefActionWait   = "action_wait_s"
	prefExplicitWait = "explicit_wait_s"
	prefDBPath       = "db_path"
	prefServer       = "openenv_server"
	prefRemote       = "remote_browser"
	prefRecoverObs   = "recover_observation"
	prefTheme        = "theme"
	prefZoom         = "zoom"
	prefGrounding    = "grounding"
	prefHAR          = "har"
	prefRedaction    = "redaction"
)

// DefaultSettings are the engine's defaults (the reference environment's
// limits).
func DefaultSettings() Settings {
	return Settings{Settings: engine.DefaultSettings(), Zoom: 1}
}

// LoadSettings reads the settings, falling back to the defaults for missing
// or out-of-range values.
func LoadSettings(p fyne.Preferences) Settings {
	s := DefaultSettings()
	d := s.Settings
	s.Annotator = strings.TrimSpace(p.String(prefAnnotator))
	s.DBPath = p.String(prefDBPath)
	s.Server = strings.TrimSpace(p.String(prefServer))
	s.RemoteBrowser = strings.TrimSpace(p.String(prefRemote))
	s.RecoverObservation = p.Bool(prefRecoverObs)
	if disp, err := engine.ParseDisplay(p.StringWithFallback(prefDisplay, "")); err == nil {
		s.Display = disp
	}
	if set, err := action.ParseSet(p.String(prefActionSet)); err == nil {
		s.ActionSet = set
	}
	if n := p.IntWithFallback(prefMaxSteps, d.MaxSteps); n >= 1 && n <= engine.MaxMaxSteps {
		s.MaxSteps = n
	}
	if w := secs(p.FloatWithFallback(prefActionWait, d.ActionWait.Seconds())); w >= 0 && w <= engine.MaxWait {
		s.ActionWait = w
	}
	if w := secs(p.FloatWithFallback(prefExplicitWait, d.ExplicitWait.Seconds())); w >= 0 && w <= engine.MaxWait {
		s.ExplicitWait = w
	}
	if t := p.String(prefTheme); t == ThemeLight || t == ThemeDark {
		s.Theme = t
	}
	if z := p.FloatWithFallback(prefZoom, 1); z >= Zooms[0] && z <= Zooms[len(Zooms)-1] {
		s.Zoom = z
	}
	// A recording stores element grounding and the network capture unless
	// Settings turn them off.
	s.Grounding = engine.GroundingOn
	if g, err := engine.ParseGrounding(p.StringWithFallback(prefGrounding, string(engine.GroundingOn))); err == nil {
		s.Grounding = g
	}
	s.HAR = p.BoolWithFallback(prefHAR, true)
	s.Redaction = p.StringWithFallback(prefRedaction, "default")
	return s
}

func secs(f float64) time.Duration { return time.Duration(f * float64(time.Second)) }

// Save writes the settings.
func (s Settings) Save(p fyne.Preferences) {
	p.SetString(prefAnnotator, strings.TrimSpace(s.Annotator))
	p.SetString(prefDisplay, s.Display)
	p.SetString(prefActionSet, string(s.ActionSet))
	p.SetInt(prefMaxSteps, s.MaxSteps)
	p.SetFloat(prefActionWait, s.ActionWait.Seconds())
	p.SetFloat(prefExplicitWait, s.ExplicitWait.Seconds())
	p.SetString(prefDBPath, strings.TrimSpace(s.DBPath))
	p.SetString(prefServer, strings.TrimSpace(s.Server))
	p.SetString(prefRemote, strings.TrimSpace(s.RemoteBrowser))
	p.SetBool(prefRecoverObs, s.RecoverObservation)
	p.SetString(prefTheme, s.Theme)
	g := string(s.Grounding)
	if g == "" {
		g = "off"
	}
	p.SetString(prefGrounding, g)
	p.SetBool(prefHAR, s.HAR)
	p.SetString(prefRedaction, strings.TrimSpace(s.Redaction))
	if s.Zoom > 0 {
		p.SetFloat(prefZoom, s.Zoom)
	}
}

// Validate says what is wrong, in words a person can act on.
func (s Settings) Validate() error {
	var errs []error
	if strings.TrimSpace(s.Annotator) == "" {
		errs = append(errs, errors.New("write your name: it is stored with every episode you record"))
	}
	if s.MaxSteps < 1 || s.MaxSteps > engine.MaxMaxSteps {
		errs = append(errs, fmt.Errorf("max steps must be a whole number from 1 to %d (got %d)", engine.MaxMaxSteps, s.MaxSteps))
	}
	if s.ActionWait < 0 || s.ActionWait > engine.MaxWait || s.ExplicitWait < 0 || s.ExplicitWait > engine.MaxWait {
		errs = append(errs, fmt.Errorf("waits must be from 0 to %g seconds", engine.MaxWait.Seconds()))
	}
	if s.Server != "" {
		if err := checkServer(s.Server); err != nil {
			errs = append(errs, err)
		}
	}
	errs = append(errs, s.checkRemote()) // remotebrowser.go
	return errors.Join(errs...)
}

// checkServer accepts an OpenEnv server as http(s)://host:port or in the
// ws://host:port/ws form a server prints when it starts.
func checkServer(raw string) error {
	base, err := openenv.ServerBase(raw)
	if err == nil {
		err = action.CheckURL(base)
	}
	if err != nil {
		return fmt.Errorf("the OpenEnv server must be an address such as http://127.0.0.1:8000 (or ws://127.0.0.1:8000/ws), got %q", raw)
	}
	return nil
}

// validator makes a form entry show check's error under it and keeps the
// dialog's Save button off while the value is wrong, so no edit is lost.
func validator(check func(string) error) fyne.StringValidator {
	return func(s string) error { return check(strings.TrimSpace(s)) }
}

var themeChoices = []string{"Theme of the system", "Light", "Dark"}
var themeValues = []string{ThemeSystem, ThemeLight, ThemeDark}

var groundingChoices = []string{"Elements (bids, accessibility tree)", "Elements and the DOM snapshot (large)", "No elements"}
var groundingValues = []engine.Grounding{engine.GroundingOn, engine.GroundingDOM, engine.GroundingOff}

var displayChoices = []string{"Automatic (Xvfb when installed)", "Xvfb (private display)", "Headless"}
var displayValues = []string{"", "xvfb", "headless"}

// settingsForm builds the Settings form over w (nil: no file dialog);
// read reads it back.
func settingsForm(w fyne.Window, cur Settings) (items []*widget.FormItem, read func() (Settings, error)) {
	name := NewDialogEntry()
	name.SetText(cur.Annotator)
	name.SetPlaceHolder("e.g. Ada Lovelace")
	disp := NewDialogSelect(displayChoices, nil)
	for i, v := range displayValues {
		if v == cur.Display {
			disp.SetSelectedIndex(i)
		}
	}
	set := NewDialogSelect([]string{string(action.SetDefault), string(action.SetExtended)}, nil)
	set.SetSelected(string(cur.ActionSet))
	steps := NewDialogEntry()
	steps.SetText(strconv.Itoa(cur.MaxSteps))
	aw := NewDialogEntry()
	aw.SetText(strconv.FormatFloat(cur.ActionWait.Seconds(), 'f', -1, 64))
	ew := NewDialogEntry()
	ew.SetText(strconv.FormatFloat(cur.ExplicitWait.Seconds(), 'f', -1, 64))
	db := NewDialogEntry()
	db.SetText(cur.DBPath)
	db.SetPlaceHolder("empty: " + dataset.DefaultPath())
	dbHint := "Used from the next start"
	if cur.DBInUse != "" {
		dbHint = "In use now: " + cur.DBInUse + ". A change applies from the next start"
		if cur.DBFromCommandLine {
			dbHint = "In use now: " + cur.DBInUse + " (from --db or WAYMARK_DB, which win over this setting)"
		}
	}
	var dbField fyne.CanvasObject = db
	if w != nil {
		// The entry takes a typed path; Choose… lists only database files
		// (never their -wal/-shm journals), from the folder of the one named.
		start := db.Text
		if start == "" {
			start = cur.DBInUse
		}
		choose := NewDialogButton("Choose…", nil, func() {
			if s := strings.TrimSpace(db.Text); s != "" {
				start = s
			}
			BrowseFile(w, "Database file", DatabaseExtensions, start, db.SetText)
		})
		dbField = container.NewBorder(nil, nil, nil, choose, db)
	}
	srv := NewDialogEntry()
	srv.SetText(cur.Server)
	srv.SetPlaceHolder("empty: the local browser")
	srv.Validator = validator(func(s string) error {
		if s == "" {
			return nil
		}
		return checkServer(s)
	})
	remote := remoteBrowserEntry(cur.RemoteBrowser) // remotebrowser.go
	name.Validator = validator(func(s string) error {
		if s == "" {
			return errors.New("write your name: it is stored with every episode you record")
		}
		return nil
	})
	steps.Validator = validator(func(s string) error {
		if n, err := strconv.Atoi(s); err != nil || n < 1 || n > engine.MaxMaxSteps {
			return fmt.Errorf("a whole number from 1 to %d", engine.MaxMaxSteps)
		}
		return nil
	})
	for _, e := range []*DialogEntry{aw, ew} {
		e.Validator = validator(func(s string) error {
			if f, err := strconv.ParseFloat(s, 64); err != nil || f < 0 || f > engine.MaxWait.Seconds() {
				return fmt.Errorf("seconds from 0 to %g", engine.MaxWait.Seconds())
			}
			return nil
		})
	}
	themeSel := NewDialogSelect(themeChoices, nil)
	for i, v := range themeValues {
		if v == cur.Theme {
			themeSel.SetSelectedIndex(i)
		}
	}
	var zoomChoices []string
	for _, z := range Zooms {
		zoomChoices = append(zoomChoices, ZoomText(z))
	}
	zoomSel := NewDialogSelect(zoomChoices, nil)
	zoomSel.SetSelected(ZoomText(1))
	for _, z := range Zooms {
		if z == cur.Zoom {
			zoomSel.SetSelected(ZoomText(z))
		}
	}
	look := container.NewGridWithColumns(2, themeSel, zoomSel)
	rec := NewDialogCheck("Re-read blank observations", nil)
	rec.SetChecked(cur.RecoverObservation)
	ground := NewDialogSelect(groundingChoices, nil)
	for i, v := range groundingValues {
		if v == cur.Grounding {
			ground.SetSelectedIndex(i)
		}
	}
	harOn := NewDialogCheck("Network (HAR)", nil)
	harOn.SetChecked(cur.HAR)
	stores := container.NewBorder(nil, nil, nil, harOn, ground)
	redactField := widget.NewEntry()
	redactField.SetText(cur.Redaction)
	redactField.SetPlaceHolder("default")
	redactField.Validator = func(v string) error {
		_, err := redact.Parse(v)
		return err
	}
	items = []*widget.FormItem{
		{Text: "Annotator name", Widget: name, HintText: "Stored with every episode and review"},
		{Text: "Display", Widget: disp, HintText: "Where the browser runs"},
		{Text: "Action set", Widget: set, HintText: "default = the reference environment's; extended adds drag, goto…"},
		{Text: "Max steps", Widget: steps, HintText: fmt.Sprintf("1–%d actions per episode", engine.MaxMaxSteps)},
		{Text: "Settle wait (s)", Widget: aw, HintText: "Longest wait for the page after an action, 0–10"},
		{Text: "Wait action (s)", Widget: ew, HintText: "How long Wait waits, 0–10"},
		{Text: "Database file", Widget: dbField, HintText: dbHint},
		{Text: "OpenEnv server", Widget: srv, HintText: "Run episodes on an OpenEnv browser server at this URL instead; applies from the next episode"},
		{Text: "Remote browser", Widget: remote, HintText: remoteBrowserHint},
		{Text: "Appearance", Widget: look, HintText: "Theme and zoom of the interface (page pictures keep their pixels); applies at once"},
		{Text: "Each step keeps", Widget: stores, HintText: "Besides the screenshot: the page's elements as BrowserGym sees them, and its network requests (secrets redacted)"},
		{Text: "Redaction", Widget: redactField, HintText: "Blacked out of screenshots, replaced in text: default (contact, name, address, card fields; e-mail, phone, card, IBAN), off, or a policy file"},
		{Text: "Recovery", Widget: rec, HintText: "A page with no visible content is read again (3 times at most); still blank ends the episode"},
	}
	read = func() (Settings, error) {
		s := cur
		s.Annotator = strings.TrimSpace(name.Text)
		if i := disp.SelectedIndex(); i >= 0 {
			s.Display = displayValues[i]
		}
		s.ActionSet, _ = action.ParseSet(set.Selected)
		var errs []error
		n, err := strconv.Atoi(strings.TrimSpace(steps.Text))
		if err != nil {
			errs = append(errs, fmt.Errorf("max steps %q is not a whole number", steps.Text))
		}
		s.MaxSteps = n
		for _, w := range []struct {
			e   *DialogEntry
			dst *time.Duration
		}{{aw, &s.ActionWait}, {ew, &s.ExplicitWait}} {
			f, err := strconv.ParseFloat(strings.TrimSpace(w.e.Text), 64)
			if err != nil {
				errs = append(errs, fmt.Errorf("%q is not a number of seconds", w.e.Text))
				continue
			}
			*w.dst = secs(f)
		}
		s.DBPath = strings.TrimSpace(db.Text)
		s.Server = strings.TrimSpace(srv.Text)
		if base, err := openenv.ServerBase(s.Server); s.Server != "" && err == nil {
			s.Server = base
		}
		s.RemoteBrowser = strings.TrimSpace(remote.Text)
		s.RecoverObservation = rec.Checked
		if i := ground.SelectedIndex(); i >= 0 {
			s.Grounding = groundingValues[i]
		}
		s.HAR = harOn.Checked
		s.Redaction = strings.TrimSpace(redactField.Text)
		if s.Redaction == "" {
			s.Redaction = "default"
		}
		if _, err := redact.Parse(s.Redaction); err != nil {
			errs = append(errs, fmt.Errorf("redaction: %w", err))
		}
		if i := themeSel.SelectedIndex(); i >= 0 {
			s.Theme = themeValues[i]
		}
		if i := zoomSel.SelectedIndex(); i >= 0 {
			s.Zoom = Zooms[i]
		}
		if err := errors.Join(errs...); err != nil {
			return cur, err
		}
		return s, s.Validate()
	}
	return items, read
}

// ShowSettings opens the Settings dialog; onSave gets valid settings. A
// wrong value keeps the dialog's values and says what to fix. Enter in a
// field saves, Escape cancels, as they do outside one.
func ShowSettings(w fyne.Window, cur Settings, onSave func(Settings)) {
	items, read := settingsForm(w, cur)
	ShowForm(w, "Settings", "Save", "Cancel", items, func(ok bool) {
		if !ok {
			return
		}
		s, err := read()
		if err != nil {
			ShowError(fmt.Errorf("settings not saved: %w", err), w)
			return
		}
		onSave(s)
	}, 560)
}

// AskAnnotator asks for the person's name (first start); onName gets it.
func AskAnnotator(w fyne.Window, onName func(string)) {
	name := NewDialogEntry()
	name.SetPlaceHolder("Your name")
	name.Validator = func(s string) error {
		if strings.TrimSpace(s) == "" {
			return errors.New("a name is needed")
		}
		return nil
	}
	ShowForm(w, "Welcome to Waymark", "Continue", "Later",
		[]*widget.FormItem{{Text: "Annotator name", Widget: name, HintText: "Stored with every episode you record; change it in Settings"}},
		func(ok bool) {
			if ok {
				onName(strings.TrimSpace(name.Text))
			}
		}, 480)
}
