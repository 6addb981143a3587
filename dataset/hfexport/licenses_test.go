package hfexport

import (
	"errors"
	"testing"
)

// CheckLicense accepts the Hub's ids in any case with spaces around, and for
// an id that is one of them written another way (spaces or underscores for
// dashes, a "v" before the version, dashes left out) it names the id meant.
func TestCheckLicenseHints(t *testing.T) {
	for _, id := range []string{"mit", " MIT ", "CC-BY-4.0", "other", "gpl-3.0"} {
		if err := CheckLicense(id); err != nil {
			t.Errorf("CheckLicense(%q): %v", id, err)
		}
	}
	const rest = " is not a Hugging Face licence id (one the Hub accepts in a dataset card)"
	const tail = "; use one such as cc-by-4.0, cc-by-sa-4.0, cc0-1.0, mit, apache-2.0, odc-by, or \"other\" for any other licence"
	for _, c := range []struct{ id, want string }{
		{"CC BY 4.0", `invalid export options: "CC BY 4.0"` + rest + ` (did you mean "cc-by-4.0"?)` + tail},
		{"cc_by_sa_4.0", `invalid export options: "cc_by_sa_4.0"` + rest + ` (did you mean "cc-by-sa-4.0"?)` + tail},
		{" GPL v3.0", `invalid export options: "GPL v3.0"` + rest + ` (did you mean "gpl-3.0"?)` + tail},
		{"ccby4.0", `invalid export options: "ccby4.0"` + rest + ` (did you mean "cc-by-4.0"?)` + tail},
		{"Apache2.0", `invalid export options: "Apache2.0"` + rest + ` (did you mean "apache-2.0"?)` + tail},
		{"my own licence", `invalid export options: "my own licence"` + rest + tail},
		{"apache 2", `invalid export options: "apache 2"` + rest + tail},
		{" ", `invalid export options: choose a licence for the dataset (a Hugging Face licence id such as cc-by-4.0, or "other")`},
	} {
		err := CheckLicense(c.id)
		if err == nil || err.Error() != c.want {
			t.Errorf("CheckLicense(%q):\n got %v\nwant %s", c.id, err, c.want)
		}
		if !errors.Is(err, ErrBadOptions) {
			t.Errorf("CheckLicense(%q) is not ErrBadOptions: %v", c.id, err)
		}
	}
}
