package app

import (
	"flag"

	"waymark/engine/redact"
)

// redactHelp is the --redact flag's help.
const redactHelp = "what is blacked out of stored screenshots and replaced in stored text, trees and traffic: default (form fields for contact, name, address, " +
	"birthday, card or one-time code; e-mail addresses, phone numbers, card numbers passing Luhn and IBANs in any text; elements marked data-private or data-pii), " +
	"off, or a policy file (JSON: input_types, autocomplete, patterns, regexps, selectors). Without it: default"

// redactFlag is --redact: a policy, default when the flag is not given.
type redactFlag struct {
	v     string
	given bool
	p     *redact.Policy
}

func (f *redactFlag) String() string { return f.v }

func (f *redactFlag) Set(v string) error {
	p, err := redact.Parse(v)
	if err != nil {
		return err
	}
	f.v, f.given, f.p = v, true, p
	return nil
}

// policy is the policy chosen (nil: off), default when none was.
func (f *redactFlag) policy() *redact.Policy {
	if !f.given {
		return redact.Default()
	}
	return f.p
}

// addRedactFlag adds --redact to fs.
func addRedactFlag(fs *flag.FlagSet) *redactFlag {
	f := &redactFlag{}
	fs.Var(f, "redact", redactHelp)
	return f
}
