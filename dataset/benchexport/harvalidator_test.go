package benchexport

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// validateHARFile checks a HAR file with the npm package har-validator
// (5.1.5, HAR 1.2's JSON Schema), installed once into the temp folder;
// skipped when npm or the registry is not there.
func validateHARFile(t *testing.T, p string) {
	t.Helper()
	if _, err := exec.LookPath("npm"); err != nil {
		t.Skip("npm is not installed: install Node.js and npm (apt-get install npm) to validate HAR files with har-validator")
	}
	dir := filepath.Join(os.TempDir(), "waymark-har-validator-5.1.5")
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "har-validator", "package.json")); err != nil {
		cmd := exec.Command("npm", "install", "--no-audit", "--no-fund", "--silent", "--prefix", dir, "har-validator@5.1.5")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Skipf("npm could not install har-validator (no registry?): %v\n%s", err, out)
		}
	}
	script := `const v = require(process.argv[1] + '/node_modules/har-validator');
const har = JSON.parse(require('fs').readFileSync(process.argv[2], 'utf8'));
v.har(har).then(() => console.log('ok')).catch(e => { console.log(JSON.stringify(e.errors || e.message)); process.exit(1); });`
	out, err := exec.Command("node", "-e", script, dir, p).CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "ok" {
		t.Errorf("har-validator refused %s: %v\n%s", p, err, out)
	}
}
