package practice

import (
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// The forms site's JSON API, used by its own pages (static/forms.js). Like
// the shop's, every answer follows from the request alone: no server state,
// no random ids, no clock.
//
//	POST /api/signin    sign in (JSON email, password) → 200
//	POST /api/bookings  book a workshop (JSON body) → 201

func (f *forms) serveAPI(w http.ResponseWriter, r *http.Request, path string) bool {
	switch path {
	case "/api/signin":
		if allow(w, r, http.MethodPost) {
			apiSignin(w, r)
		}
	case "/api/bookings":
		if allow(w, r, http.MethodPost) {
			apiBooking(w, r)
		}
	default:
		return false
	}
	return true
}

var emailRE = regexp.MustCompile(`^[^@\s]+@[^@\s]+\.[^@\s]+$`)

// apiSignin accepts any well-formed email with any non-empty password (a
// practice site has no accounts); the password is never echoed or kept.
func apiSignin(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Email    string `json:"email"`
		Password string `json:"password"`
		Remember bool   `json:"remember"`
	}
	if msg := readJSON(r, &req); msg != "" {
		apiError(w, http.StatusBadRequest, msg)
		return
	}
	if !emailRE.MatchString(strings.TrimSpace(req.Email)) || req.Password == "" {
		apiError(w, http.StatusUnauthorized, "enter your email address and your password")
		return
	}
	writeJSON(w, map[string]any{"email": strings.TrimSpace(req.Email), "remember": req.Remember, "signedIn": true})
}

// bookingRequest is the body of POST /api/bookings. Seq is the number of
// bookings this browser made before: the reference follows from it.
type bookingRequest struct {
	Seq          int    `json:"seq"`
	Workshop     string `json:"workshop"`
	Date         string `json:"date"`
	Participants int    `json:"participants"`
	FullName     string `json:"fullName"`
	Email        string `json:"email"`
	Phone        string `json:"phone"`
	Diet         string `json:"diet"`
}

func apiBooking(w http.ResponseWriter, r *http.Request) {
	var req bookingRequest
	if msg := readJSON(r, &req); msg != "" {
		apiError(w, http.StatusBadRequest, msg)
		return
	}
	var ws *workshop
	for i := range workshops {
		if workshops[i].ID == req.Workshop {
			ws = &workshops[i]
		}
	}
	day, err := time.Parse("2006-01-02", req.Date)
	var msg string
	switch {
	case ws == nil:
		msg = fmt.Sprintf("no workshop %q: choose one of the workshops on the booking page", req.Workshop)
	case err != nil:
		msg = "the date must be YYYY-MM-DD"
	case day.Weekday() != time.Saturday:
		msg = "workshops run on Saturdays only: pick a Saturday"
	case req.Participants < 1 || req.Participants > 8:
		msg = "participants must be between 1 and 8"
	case len(strings.TrimSpace(req.FullName)) < 2 || !emailRE.MatchString(req.Email):
		msg = "a full name and a valid email address are needed"
	case req.Seq < 0 || req.Seq > 100000:
		msg = "seq must be the number of earlier bookings (0 or more)"
	}
	if msg != "" {
		apiError(w, http.StatusUnprocessableEntity, msg)
		return
	}
	writeJSONStatus(w, http.StatusCreated, map[string]any{
		"ref": "BK-" + strconv.Itoa(5038+req.Seq), "workshop": ws.ID, "workshopName": ws.Name, "date": req.Date,
		"participants": req.Participants, "total": ws.Price * req.Participants, "status": "confirmed",
	})
}
