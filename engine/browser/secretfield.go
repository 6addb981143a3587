package browser

import "strings"

// The rule that makes a field secret (text typed into it is a password or
// card data), in the two forms the engine needs: secretFieldJS for scripts
// that look at live elements (the focus walk of secret.go, the marking of
// marks.js) and secretField for what the engine reads back from Chromium
// (DOM snapshots, DOM nodes). Both say the same: an <input type=password>,
// or an input or textarea whose autocomplete attribute has a token ending
// in "password" (current-password, new-password), or cc-number, or cc-csc.

// secretFieldJS is a JavaScript function of an element answering whether
// it is a secret field.
const secretFieldJS = `(el) => {
  const tag = el.localName;
  if (tag !== 'input' && tag !== 'textarea') return false;
  const ac = (el.getAttribute('autocomplete') || '').toLowerCase().split(/\s+/)
    .some(t => t.endsWith('password') || t === 'cc-number' || t === 'cc-csc');
  return ac || (tag === 'input' && String(el.type).toLowerCase() === 'password');
}`

// secretField is secretFieldJS for an element given by its tag name and
// the values of its type and autocomplete attributes ("" when absent). An
// input's type property is its type attribute lowercased when that names a
// known type, so only "password" in any case makes a password field.
func secretField(tag, typeAttr, autocomplete string) bool {
	tag = strings.ToLower(tag)
	if tag != "input" && tag != "textarea" {
		return false
	}
	for _, t := range strings.Fields(strings.ToLower(autocomplete)) {
		if strings.HasSuffix(t, "password") || t == "cc-number" || t == "cc-csc" {
			return true
		}
	}
	return tag == "input" && strings.ToLower(typeAttr) == "password"
}
