package practice

import (
	"html/template"
	"net/http"
	"strings"
)

type workshop struct {
	ID, Name, Duration, Host, Blurb, Color string
	Price                                  int // dollars per person
}

var workshops = []workshop{
	{"bread", "Bread Baking", "3 hours", "Anna Berg", "Sourdough, rye and a braided loaf to take home.", "#d9822b", 45},
	{"pottery", "Pottery for Beginners", "2.5 hours", "Jon Ek", "Throw your first bowls on the wheel.", "#a0522d", 60},
	{"watercolour", "Watercolour Landscapes", "2 hours", "Mira Sol", "Skies, hills and water in three washes.", "#2f6fb3", 38},
	{"knife", "Knife Skills", "1.5 hours", "Chef Ravi Das", "Dice, julienne and sharpen like a pro.", "#6b7280", 52},
	{"foraging", "Wild Foraging Walk", "4 hours", "Ella Moss", "Find and cook mushrooms and greens.", "#3f8f4f", 25},
}

type helpArticle struct {
	Slug, Title string
	Body        []string
}

var helpArticles = []helpArticle{
	{"reset-password", "How to reset your password", []string{
		"If you forgot your password, click “Forgot password?” on the sign-in page and enter the email address of your account.",
		"We send a reset link that is valid for 30 minutes. Open it, choose a new password of at least 12 characters and sign in again.",
		"If the email does not arrive, check your spam folder or contact support."}},
	{"two-factor", "Turning on two-factor authentication", []string{
		"Two-factor authentication (2FA) protects your account with a second code from an authenticator app.",
		"Go to Settings → Security, switch on “Two-factor authentication” and press Save. You can also choose how long you stay signed in with the session timeout."}},
	{"export-data", "Exporting your data", []string{
		"You can download a copy of everything stored in your Nimbus account as a ZIP file.",
		"Exports are prepared within 48 hours and the download link stays valid for 7 days."}},
	{"cancel-booking", "Cancelling a workshop booking", []string{
		"You can cancel a workshop booking free of charge up to 7 days before the workshop and receive a full refund.",
		"Cancellations made later than that are refunded at 50%. No-shows are not refunded."}},
	{"delete-account", "Deleting your account", []string{
		"Deleting your account removes all your data after a 14-day grace period. During that period you can sign in again to undo the deletion."}},
}

type forms struct {
	pages  map[string]*template.Template
	static http.Handler
}

func newForms() (*forms, error) {
	funcs := template.FuncMap{"lower": strings.ToLower}
	pages, err := parsePages("forms", funcs, "home", "profile", "security", "notifications", "preferences", "book", "confirmed", "help", "signin", "notfound")
	return &forms{pages: pages, static: staticHandler("forms")}, err
}

func (f *forms) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b := base(r)
	path := strings.TrimSuffix(r.URL.Path, "/")
	settings := map[string]string{
		"/settings/profile":       "Profile",
		"/settings/security":      "Security",
		"/settings/notifications": "Notifications",
		"/settings/preferences":   "Preferences",
	}
	switch {
	case strings.HasPrefix(r.URL.Path, "/static/"):
		f.static.ServeHTTP(w, r)
	case strings.HasPrefix(path, "/api/") && f.serveAPI(w, r, path):
	case path == "":
		render(w, f.pages["home"], 200, page{Base: b, Title: "Account overview — Nimbus", Data: map[string]any{"Nav": "home"}})
	case settings[path] != "":
		name := strings.TrimPrefix(path, "/settings/")
		render(w, f.pages[name], 200, page{Base: b, Title: settings[path] + " settings — Nimbus", Data: map[string]any{"Nav": name}})
	case path == "/settings":
		http.Redirect(w, r, b+"/settings/profile", http.StatusFound)
	case path == "/book":
		render(w, f.pages["book"], 200, page{Base: b, Title: "Book a workshop — Nimbus", Data: map[string]any{"Nav": "book", "Workshops": workshops}})
	case path == "/book/confirmed":
		render(w, f.pages["confirmed"], 200, page{Base: b, Title: "Booking confirmed — Nimbus", Data: map[string]any{"Nav": "book", "Ref": r.URL.Query().Get("ref")}})
	case path == "/signin":
		render(w, f.pages["signin"], 200, page{Base: b, Title: "Sign in — Nimbus", Data: map[string]any{"Nav": ""}})
	case path == "/help":
		render(w, f.pages["help"], 200, page{Base: b, Title: "Help centre — Nimbus", Data: map[string]any{"Nav": "help", "Articles": helpArticles}})
	case strings.HasPrefix(path, "/help/"):
		slug := strings.TrimPrefix(path, "/help/")
		for _, a := range helpArticles {
			if a.Slug == slug {
				render(w, f.pages["help"], 200, page{Base: b, Title: a.Title + " — Nimbus help", Data: map[string]any{"Nav": "help", "Articles": helpArticles, "Article": a}})
				return
			}
		}
		render(w, f.pages["notfound"], 404, page{Base: b, Title: "Not found — Nimbus", Data: map[string]any{"Nav": "help"}})
	default:
		render(w, f.pages["notfound"], 404, page{Base: b, Title: "Not found — Nimbus", Data: map[string]any{"Nav": ""}})
	}
}
