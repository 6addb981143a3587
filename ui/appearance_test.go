package ui

import (
	"image/color"
	"math"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

func luminance(c color.Color) float64 {
	r, g, b, _ := c.RGBA()
	lin := func(v uint32) float64 {
		x := float64(v>>8) / 255
		if x <= 0.03928 {
			return x / 12.92
		}
		return math.Pow((x+0.055)/1.055, 2.4)
	}
	return 0.2126*lin(r) + 0.7152*lin(g) + 0.0722*lin(b)
}

// contrast is the WCAG contrast ratio of two colours.
func contrast(a, b color.Color) float64 {
	la, lb := luminance(a), luminance(b)
	return (max(la, lb) + 0.05) / (min(la, lb) + 0.05)
}

// Settings choose the theme (the system's, light or dark) and a zoom of
// the interface; both are kept, applied at once, and every variant keeps
// text readable on its background.
func TestAppearanceThemeAndZoom(t *testing.T) {
	app := test.NewTempApp(t)
	p := app.Preferences()
	s := DefaultSettings()
	s.Annotator = "Ada"
	s.Theme, s.Zoom = ThemeLight, 1.25
	s.Save(p)
	got := LoadSettings(p)
	if got.Theme != ThemeLight || got.Zoom != 1.25 {
		t.Fatalf("loaded theme %q zoom %v", got.Theme, got.Zoom)
	}

	label := widget.NewLabel("Step 3 / 20")
	w := test.NewTempWindow(t, label)
	ApplyAppearance(app, Settings{Zoom: 1})
	plain := label.MinSize()
	ApplyAppearance(app, got)
	zoomed := label.MinSize()
	if zoomed.Height < plain.Height*1.2 || zoomed.Width < plain.Width*1.2 {
		t.Errorf("zoom 125 %%: label %v, at 100 %% %v", zoomed, plain)
	}
	th := app.Settings().Theme()
	bg := func(v fyne.ThemeVariant) color.Color { return th.Color(theme.ColorNameBackground, v) }
	if luminance(bg(theme.VariantDark)) < 0.5 {
		t.Errorf("Light chosen: the background is dark %v", bg(theme.VariantDark))
	}
	ApplyAppearance(app, Settings{Theme: ThemeDark, Zoom: 1})
	th = app.Settings().Theme()
	if luminance(bg(theme.VariantLight)) > 0.5 {
		t.Errorf("Dark chosen: the background is light %v", bg(theme.VariantLight))
	}
	ApplyAppearance(app, Settings{Zoom: 1})
	th = app.Settings().Theme()
	if luminance(bg(theme.VariantLight)) < 0.5 || luminance(bg(theme.VariantDark)) > 0.5 {
		t.Error("the system's theme is not followed")
	}
	for _, v := range []fyne.ThemeVariant{theme.VariantLight, theme.VariantDark} {
		back := th.Color(theme.ColorNameBackground, v)
		for _, n := range []fyne.ThemeColorName{theme.ColorNameForeground, theme.ColorNameError, theme.ColorNameSuccess, theme.ColorNameWarning, theme.ColorNamePrimary} {
			if c := contrast(th.Color(n, v), back); c < 3 {
				t.Errorf("variant %d: %s on the background has contrast %.1f", v, n, c)
			}
		}
		for _, c := range []string{"information", "navigation", "interaction", ""} {
			if r := contrast(CategoryColor(c), back); r < 2 {
				t.Errorf("variant %d: the %q category colour has contrast %.1f", v, c, r)
			}
		}
	}
	_ = w

	// The form offers and reads the choices.
	items, read := settingsForm(nil, got)
	var look *widget.FormItem
	for _, it := range items {
		if it.Text == "Appearance" {
			look = it
		}
	}
	if look == nil {
		t.Fatal("no Appearance in Settings")
	}
	var sels []*DialogSelect
	for _, o := range test.LaidOutObjects(look.Widget) {
		if s, ok := o.(*DialogSelect); ok {
			sels = append(sels, s)
		}
	}
	if len(sels) != 2 || sels[0].Selected != "Light" || sels[1].Selected != "125 %" {
		t.Fatalf("appearance choices %v", sels)
	}
	sels[0].SetSelected("Theme of the system")
	sels[1].SetSelected("150 %")
	if s, err := read(); err != nil || s.Theme != ThemeSystem || s.Zoom != 1.5 {
		t.Fatalf("read %q %v %v", s.Theme, s.Zoom, err)
	}
}
