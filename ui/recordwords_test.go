package ui

// The words the Record screen shows for observation errors, refused steps
// and answer checks.

import (
	"strings"
	"testing"

	"waymark/engine/action"
)

func TestObservationErrorsInWords(t *testing.T) {
	for _, code := range []action.Code{action.ErrPageLoadTimeout, action.ErrRendererTimeout, action.ErrRendererCrashed, action.ErrBotVerification, "net::ERR_NAME_NOT_RESOLVED"} {
		msg := ObservationError(code)
		if msg == "" || msg == string(code) || !strings.HasSuffix(msg, ".") {
			t.Errorf("%q → %q", code, msg)
		}
	}
	if StepError(&action.ValidationError{Errors: []action.FieldError{{Msg: "Value error, unsupported key"}}}) == "" {
		t.Error("validation error not explained")
	}
}

func TestExpectedAnswersInWords(t *testing.T) {
	for in, want := range map[string]string{
		"7|7 days|seven|seven days": "“7”, “7 days”, “seven” or “seven days”",
		"12,400":                    "“12,400”",
		"Tobias Quell| Quell ":      "“Tobias Quell” or “Quell”",
		"|":                         "",
		"":                          "",
	} {
		if got := ExpectedAnswers(in); got != want {
			t.Errorf("ExpectedAnswers(%q) = %q, want %q", in, got, want)
		}
	}
}
