package hfexport

import (
	"fmt"
	"slices"
	"strings"
)

// HubLicenses are the licence identifiers the Hugging Face Hub accepts in a
// dataset card's `license:` field (its documented list, "Licenses" in the Hub
// documentation), "other" included.
var HubLicenses = []string{
	"apache-2.0", "mit", "openrail", "bigscience-openrail-m", "creativeml-openrail-m",
	"bigscience-bloom-rail-1.0", "bigcode-openrail-m", "afl-3.0", "artistic-2.0", "bsl-1.0",
	"bsd", "bsd-2-clause", "bsd-3-clause", "bsd-3-clause-clear", "c-uda", "cc", "cc0-1.0",
	"cc-by-2.0", "cc-by-2.5", "cc-by-3.0", "cc-by-4.0", "cc-by-sa-3.0", "cc-by-sa-4.0",
	"cc-by-nc-2.0", "cc-by-nc-3.0", "cc-by-nc-4.0", "cc-by-nd-4.0", "cc-by-nc-nd-3.0",
	"cc-by-nc-nd-4.0", "cc-by-nc-sa-2.0", "cc-by-nc-sa-3.0", "cc-by-nc-sa-4.0",
	"cdla-sharing-1.0", "cdla-permissive-1.0", "cdla-permissive-2.0", "wtfpl", "ecl-2.0",
	"epl-1.0", "epl-2.0", "etalab-2.0", "eupl-1.1", "eupl-1.2", "agpl-3.0", "gfdl", "gpl",
	"gpl-2.0", "gpl-3.0", "lgpl", "lgpl-2.1", "lgpl-3.0", "isc", "h-research", "intel-research",
	"lppl-1.3c", "ms-pl", "apple-ascl", "apple-amlr", "mpl-2.0", "odc-by", "odbl", "openrail++",
	"osl-3.0", "postgresql", "ofl-1.1", "ncsa", "unlicense", "zlib", "pddl", "lgpl-lr",
	"deepfloyd-if-license", "fair-noncommercial-research-license", "llama2", "llama3",
	"llama3.1", "llama3.2", "llama3.3", "llama4", "gemma", "unknown", "other",
}

// CheckLicense says whether id (case and surrounding spaces ignored) is one of
// HubLicenses, and if not, what to give instead.
func CheckLicense(id string) error {
	l := strings.ToLower(strings.TrimSpace(id))
	if l == "" {
		return fmt.Errorf("%w: choose a licence for the dataset (a Hugging Face licence id such as cc-by-4.0, or \"other\")", ErrBadOptions)
	}
	if slices.Contains(HubLicenses, l) {
		return nil
	}
	hint := ""
	squash := strings.NewReplacer(" ", "-", "_", "-", "v", "")
	for _, h := range HubLicenses {
		if squash.Replace(l) == squash.Replace(h) || strings.ReplaceAll(squash.Replace(l), "-", "") == strings.ReplaceAll(h, "-", "") {
			hint = fmt.Sprintf(" (did you mean %q?)", h)
			break
		}
	}
	return fmt.Errorf("%w: %q is not a Hugging Face licence id (one the Hub accepts in a dataset card)%s; use one such as cc-by-4.0, cc-by-sa-4.0, cc0-1.0, mit, apache-2.0, odc-by, or \"other\" for any other licence", ErrBadOptions, strings.TrimSpace(id), hint)
}
