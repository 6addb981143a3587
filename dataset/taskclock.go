package dataset

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"
	_ "time/tzdata" // time zone names validate the same on every machine

	"waymark/engine"
	"waymark/engine/redact"
)

// ParseReferenceTime reads a task's reference time: ISO 8601 / RFC 3339
// with an explicit UTC offset ("2024-03-15T10:30:00+01:00" or
// "2024-03-15T09:30:00Z"). A time without an offset is refused, since it
// names no instant. The offset is kept as written.
func ParseReferenceTime(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, nil
	}
	// A space between date and time is common in spreadsheets.
	if len(s) > 10 && s[10] == ' ' {
		if t, err := time.Parse(time.RFC3339Nano, s[:10]+"T"+s[11:]); err == nil {
			return t, nil
		}
	}
	for _, layout := range []string{"2006-01-02T15:04:05", "2006-01-02T15:04", "2006-01-02 15:04:05", "2006-01-02 15:04", "2006-01-02"} {
		if _, err := time.Parse(layout, s); err == nil {
			return time.Time{}, fmt.Errorf("the reference time %q has no UTC offset, so it names no instant; write it with one, e.g. 2024-03-15T10:30:00+01:00 or 2024-03-15T09:30:00Z", s)
		}
	}
	return time.Time{}, fmt.Errorf("the reference time %q is not an ISO 8601 date and time; write it like 2024-03-15T10:30:00+01:00 or 2024-03-15T09:30:00Z", s)
}

// FormatReferenceTime writes a reference time as ParseReferenceTime reads
// it, with its own offset.
func FormatReferenceTime(t time.Time) string { return t.Format(time.RFC3339Nano) }

// ValidateTimezone checks an IANA time zone name ("Europe/Berlin", "UTC");
// empty is allowed (the browser's own).
func ValidateTimezone(name string) error {
	if name == "" {
		return nil
	}
	if name == "Local" || strings.ContainsAny(name, " \\") {
		return fmt.Errorf("the time zone %q is not an IANA time zone name; write one like Europe/Berlin, America/New_York or UTC", name)
	}
	if _, err := time.LoadLocation(name); err != nil {
		return fmt.Errorf("the time zone %q is not an IANA time zone name; write one like Europe/Berlin, America/New_York or UTC", name)
	}
	return nil
}

// bcp47 is the shape of a language tag: language, optional script, region
// and variants (en, en-US, zh-Hant-TW, de-CH-1996, es-419).
var bcp47 = regexp.MustCompile(`^[A-Za-z]{2,3}(-[A-Za-z]{4})?(-(?:[A-Za-z]{2}|[0-9]{3}))?(-(?:[A-Za-z0-9]{5,8}|[0-9][A-Za-z0-9]{3}))*$`)

// ValidateLocale checks the shape of a BCP 47 language tag ("en-US",
// "de-DE"); empty is allowed (the browser's own).
func ValidateLocale(tag string) error {
	if tag == "" || bcp47.MatchString(tag) {
		return nil
	}
	hint := ""
	if strings.Contains(tag, "_") {
		hint = fmt.Sprintf(" (use a hyphen: %s)", strings.ReplaceAll(tag, "_", "-"))
	}
	return fmt.Errorf("the locale %q is not a BCP 47 language tag%s; write one like en-US or de-DE", tag, hint)
}

// validateClock tidies and checks a task's time zone and locale.
func validateClock(t *Task) error {
	t.Timezone = strings.TrimSpace(t.Timezone)
	t.Locale = strings.TrimSpace(t.Locale)
	return errors.Join(ValidateTimezone(t.Timezone), ValidateLocale(t.Locale))
}

// refTimeValue is the reference_time column's value.
func refTimeValue(t *time.Time) string {
	if t == nil {
		return ""
	}
	return FormatReferenceTime(*t)
}

// parseRefTimeColumn reads the reference_time column; a value this program
// did not write is ignored.
func parseRefTimeColumn(s string) *time.Time {
	if s == "" {
		return nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return nil
	}
	return &t
}

// TaskResetOptions fills the reset options' reference time, time zone and
// locale from the task, where they are not set already.
func TaskResetOptions(t Task, opts *engine.ResetOptions) {
	if opts.ReferenceTime == nil && t.ReferenceTime != nil {
		rt := *t.ReferenceTime
		opts.ReferenceTime = &rt
	}
	if opts.Timezone == "" {
		opts.Timezone = t.Timezone
	}
	if opts.Locale == "" {
		opts.Locale = t.Locale
	}
	if p, set, err := TaskPolicy(t); err == nil && set && !opts.RedactSet {
		opts.Redact, opts.RedactSet = p, true
	}
}

// TaskPolicy reads a task's own redaction policy: set is false when the
// task leaves it to the recording ("").
func TaskPolicy(t Task) (p *redact.Policy, set bool, err error) {
	v := strings.TrimSpace(t.Redact)
	switch strings.ToLower(v) {
	case "":
		return nil, false, nil
	case "off", "none":
		return nil, true, nil
	case "default":
		return redact.Default(), true, nil
	}
	if !strings.HasPrefix(v, "{") {
		return nil, false, fmt.Errorf("%q is not off, default or a policy (a JSON object with input_types, autocomplete, patterns, regexps, selectors)", clipText(v, 60))
	}
	p, err = redact.FromJSON([]byte(v))
	if err != nil {
		return nil, false, fmt.Errorf("the policy %s: %v", clipText(v, 60), err)
	}
	if p.Name == "" {
		p.Name = "the task's"
	}
	return p, true, nil
}

func clipText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
