package endpoints

import (
	"context"
	"encoding/json"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The validators, pinned: @seriousme/openapi-schema-validator checks the
// document against the official OpenAPI 3.1 JSON Schema; @readme/openapi-parser
// (the maintained fork of swagger-parser) adds the checks the schema
// cannot make (path parameters declared, unique operationIds); Ajv's JSON
// Schema 2020-12 mode compiles every inferred schema strictly and checks
// that every request and response body recorded in the HARs is valid
// against the schema inferred for it.
const validatorPackages = "@seriousme/openapi-schema-validator@2.11.0 @readme/openapi-parser@9.0.0 ajv@8"

const checkScript = `
import { Validator } from "@seriousme/openapi-schema-validator";
import { validate } from "@readme/openapi-parser";
import Ajv2020 from "ajv/dist/2020.js";
import { readFileSync } from "node:fs";

const out = [];
for (const file of ["catalogue.yaml", "catalogue.json"]) {
  const r = await new Validator().validate(file);
  out.push({ check: "seriousme " + file, valid: r.valid, errors: r.errors || null });
}
const doc = JSON.parse(readFileSync("catalogue.json", "utf8"));
const rr = await validate(structuredClone(doc));
out.push({ check: "readme", valid: rr.valid, errors: rr.valid ? null : rr.errors });

const ajv = new Ajv2020({ strict: true, allowUnionTypes: true });
for (const s of JSON.parse(readFileSync("samples.json", "utf8"))) {
  let fn;
  try { fn = ajv.compile(s.schema); } catch (e) { out.push({ check: "compile " + s.where, valid: false, errors: String(e) }); continue; }
  const ok = fn(s.instance);
  out.push({ check: "sample " + s.where, valid: ok, errors: ok ? null : fn.errors });
}
console.log(JSON.stringify(out));
`

func installValidators(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("npm"); err != nil {
		t.Skip("npm is not installed: the OpenAPI validators (" + validatorPackages + ") are npm packages; install Node.js and npm to run this test")
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed: install Node.js to run this test")
	}
	// Installed once per machine (the user cache dir), then reused.
	base, err := os.UserCacheDir()
	if err != nil {
		base = os.TempDir()
	}
	dir := filepath.Join(base, "waymark-test", "openapi-validators")
	marker := filepath.Join(dir, "installed.txt")
	if b, err := os.ReadFile(marker); err == nil && string(b) == validatorPackages {
		return dir
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "npm", append([]string{"install", "--no-audit", "--no-fund", "--silent", "--prefix", dir}, strings.Fields(validatorPackages)...)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Skipf("could not install the OpenAPI validators from npm (no network to the npm registry?): %v\n%s", err, out)
	}
	if err := os.WriteFile(marker, []byte(validatorPackages), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

type sample struct {
	Where    string `json:"where"`
	Schema   omap   `json:"schema"`
	Instance any    `json:"instance"`
}

// matchPath says whether a request path fits an endpoint's template.
func matchPath(tmpl, path string) bool {
	ts, ps := splitPath(tmpl), splitPath(path)
	if len(ts) != len(ps) {
		return false
	}
	for i := range ts {
		if !strings.HasPrefix(ts[i], "{") && ts[i] != ps[i] {
			return false
		}
	}
	return true
}

// bodySamples pairs every JSON body of the logs' API calls with the schema
// inferred for it, and every example with its schema.
func bodySamples(t *testing.T, c *Catalogue, logs [][]byte) []sample {
	var out []sample
	hosts := map[string]bool{"127.0.0.1:7770": true}
	for _, data := range logs {
		f, err := parseHAR(data)
		if err != nil {
			t.Fatal(err)
		}
		for i := range f.Log.Entries {
			e := &f.Log.Entries[i]
			u, _ := url.Parse(e.Request.URL)
			if skipReason(e, u, hosts) != "" {
				continue
			}
			var ep *Endpoint
			for _, cand := range c.Endpoints {
				if cand.Method == e.Request.Method && matchPath(cand.Path, u.Path) {
					ep = cand
				}
			}
			if ep == nil {
				t.Fatalf("no endpoint for %s %s", e.Request.Method, u.Path)
			}
			var v any
			if json.Unmarshal([]byte(responseText(e)), &v) == nil {
				for _, r := range ep.Responses {
					if r.Status == e.Response.Status {
						out = append(out, sample{Where: ep.Method + " " + u.Path + " response", Schema: r.Schema.doc(), Instance: v})
					}
				}
			}
			if pd := e.Request.PostData; pd != nil && json.Unmarshal([]byte(pd.Text), &v) == nil {
				out = append(out, sample{Where: ep.Method + " " + u.Path + " request", Schema: ep.RequestBody.Schema.doc(), Instance: v})
			}
		}
	}
	if len(out) < 20 {
		t.Fatalf("only %d body samples", len(out))
	}
	return out
}

func TestOpenAPIValidates(t *testing.T) {
	dir := installValidators(t)
	c := shopCatalogue(t)
	samples, err := json.Marshal(bodySamples(t, c, shopLogs(t)))
	if err != nil {
		t.Fatal(err)
	}
	dir = filepath.Join(dir, "run-"+strconv.Itoa(os.Getpid()))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	for name, data := range map[string][]byte{
		"catalogue.yaml": c.OpenAPI(), "catalogue.json": c.OpenAPIJSON(), "samples.json": samples, "check.mjs": []byte(checkScript),
	} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command("node", "check.mjs")
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node check.mjs: %v\n%s", err, out)
	}
	var results []struct {
		Check  string
		Valid  bool
		Errors any
	}
	if err := json.Unmarshal(out, &results); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if len(results) < 23 {
		t.Fatalf("only %d checks ran: %s", len(results), out)
	}
	for _, r := range results {
		if !r.Valid {
			t.Errorf("%s: invalid: %v", r.Check, r.Errors)
		}
	}
	t.Logf("%d checks passed (OpenAPI 3.1 schema in YAML and JSON, readme's semantic checks, %d bodies against their inferred schemas)", len(results), len(results)-3)
}
