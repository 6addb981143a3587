package ui

import (
	"fmt"
	"image/color"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
)

// Appearance choices. The theme follows the system's light or dark
// setting (the desktop's colour scheme, or FYNE_THEME) unless Settings
// choose one; the zoom multiplies every size of the interface (text,
// padding, icons) on top of Fyne's scale (FYNE_SCALE or the desktop's),
// while pictures of pages (the live view, the Review player) keep their
// pixels.
const (
	ThemeSystem = ""
	ThemeLight  = "light"
	ThemeDark   = "dark"
)

// Zooms are the interface zooms Settings offer.
// Past 150 % the Record screen no longer fits a 1360-wide window.
var Zooms = []float64{0.8, 0.9, 1, 1.1, 1.25, 1.5}

// ZoomText writes a zoom as a percentage ("125 %").
func ZoomText(z float64) string { return fmt.Sprintf("%d %%", int(z*100+0.5)) }

// AppTheme is Fyne's default theme with the Settings' variant (when one is
// chosen) and zoom.
type AppTheme struct {
	base    fyne.Theme
	variant string
	zoom    float32
}

// NewAppTheme is the theme for a variant (ThemeSystem, ThemeLight or
// ThemeDark) and zoom (0 or 1: none).
func NewAppTheme(variant string, zoom float64) *AppTheme {
	if zoom <= 0 {
		zoom = 1
	}
	return &AppTheme{base: theme.DefaultTheme(), variant: variant, zoom: float32(zoom)}
}

// Color implements fyne.Theme.
func (t *AppTheme) Color(n fyne.ThemeColorName, v fyne.ThemeVariant) color.Color {
	switch t.variant {
	case ThemeLight:
		v = theme.VariantLight
	case ThemeDark:
		v = theme.VariantDark
	}
	if v == theme.VariantLight {
		// Fyne's bright green and orange are for dark backgrounds; on white
		// they are hard to read ("Automatic check: passed", warnings).
		switch n {
		case theme.ColorNameSuccess:
			return color.NRGBA{0x1b, 0x7a, 0x2e, 0xff}
		case theme.ColorNameWarning:
			return color.NRGBA{0xa8, 0x56, 0x00, 0xff}
		}
	}
	return t.base.Color(n, v)
}

// Font implements fyne.Theme.
func (t *AppTheme) Font(s fyne.TextStyle) fyne.Resource { return t.base.Font(s) }

// Icon implements fyne.Theme.
func (t *AppTheme) Icon(n fyne.ThemeIconName) fyne.Resource { return t.base.Icon(n) }

// Size implements fyne.Theme.
func (t *AppTheme) Size(n fyne.ThemeSizeName) float32 { return t.base.Size(n) * t.zoom }

// ApplyAppearance sets the app's theme from the settings.
func ApplyAppearance(a fyne.App, s Settings) {
	a.Settings().SetTheme(NewAppTheme(s.Theme, s.Zoom))
}
