package hfexport

// An independent reader of an exported folder: it opens every Parquet file
// with parquet-go and applies the checks the datasets library relies on
// (every node OPTIONAL, the `huggingface` features match the Parquet schema
// as pyarrow would see it and the card's YAML, row-group limits, no image
// statistics, PNGs of 800×600).

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image"
	_ "image/png"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"
	"gopkg.in/yaml.v3"
)

// canonJSON re-encodes JSON compactly, keeping object key order.
func canonJSON(t testing.TB, s string) string {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(s))
	var b strings.Builder
	var walk func() error
	walk = func() error {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		switch v := tok.(type) {
		case json.Delim:
			switch v {
			case '{':
				b.WriteByte('{')
				for i := 0; dec.More(); i++ {
					if i > 0 {
						b.WriteByte(',')
					}
					k, err := dec.Token()
					if err != nil {
						return err
					}
					kb, _ := json.Marshal(k)
					b.Write(kb)
					b.WriteByte(':')
					if err := walk(); err != nil {
						return err
					}
				}
				dec.Token()
				b.WriteByte('}')
			case '[':
				b.WriteByte('[')
				for i := 0; dec.More(); i++ {
					if i > 0 {
						b.WriteByte(',')
					}
					if err := walk(); err != nil {
						return err
					}
				}
				dec.Token()
				b.WriteByte(']')
			}
		default:
			vb, _ := json.Marshal(v)
			b.Write(vb)
		}
		return nil
	}
	if err := walk(); err != nil {
		t.Fatalf("bad JSON %q: %v", s, err)
	}
	return b.String()
}

// yamlFeatures ports datasets' Features._from_yaml_list: the YAML list of
// {name, dtype|struct|list} entries becomes the JSON features dict.
func yamlFeatures(t testing.TB, list *yaml.Node) string {
	t.Helper()
	if list.Kind != yaml.SequenceNode {
		t.Fatalf("features: want a YAML list, got kind %v", list.Kind)
	}
	var b strings.Builder
	b.WriteByte('{')
	for i, entry := range list.Content {
		if i > 0 {
			b.WriteByte(',')
		}
		m := mapping(t, entry)
		name, ok := m["name"]
		if !ok {
			t.Fatalf("feature entry without name at line %d", entry.Line)
		}
		nb, _ := json.Marshal(name.Value)
		b.Write(nb)
		b.WriteByte(':')
		// the first key other than name decides the kind
		var kind string
		for j := 0; j < len(entry.Content); j += 2 {
			if k := entry.Content[j].Value; k != "name" {
				kind = k
				break
			}
		}
		v := m[kind]
		switch kind {
		case "dtype":
			if v.Kind == yaml.ScalarNode {
				if v.Value == "image" {
					b.WriteString(`{"_type":"Image"}`)
				} else {
					db, _ := json.Marshal(v.Value)
					fmt.Fprintf(&b, `{"dtype":%s,"_type":"Value"}`, db)
				}
				continue
			}
			cl, ok := mapping(t, v)["class_label"]
			if !ok {
				t.Fatalf("%s: unknown dtype mapping", name.Value)
			}
			names := mapping(t, mapping(t, cl)["names"])
			var ids []int
			for k := range names {
				id, err := strconv.Atoi(k)
				if err != nil {
					t.Fatalf("%s: class id %q is not a number", name.Value, k)
				}
				ids = append(ids, id)
			}
			sort.Ints(ids)
			var ns []string
			for want, id := range ids {
				if id != want {
					t.Fatalf("%s: class ids are not 0..n-1: %v", name.Value, ids)
				}
				ns = append(ns, names[strconv.Itoa(id)].Value)
			}
			nb, _ := json.Marshal(ns)
			fmt.Fprintf(&b, `{"names":%s,"_type":"ClassLabel"}`, nb)
		case "struct":
			b.WriteString(yamlFeatures(t, v))
		case "list":
			if v.Kind == yaml.ScalarNode { // a list of values: "list: string"
				db, _ := json.Marshal(v.Value)
				fmt.Fprintf(&b, `[{"dtype":%s,"_type":"Value"}]`, db)
				continue
			}
			b.WriteString("[" + yamlFeatures(t, v) + "]")
		default:
			t.Fatalf("%s: unknown feature kind %q", name.Value, kind)
		}
	}
	b.WriteByte('}')
	return b.String()
}

func mapping(t testing.TB, n *yaml.Node) map[string]*yaml.Node {
	t.Helper()
	if n == nil || n.Kind != yaml.MappingNode {
		t.Fatalf("want a YAML mapping")
	}
	m := map[string]*yaml.Node{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		m[n.Content[i].Value] = n.Content[i+1]
	}
	return m
}

// card is the parsed front matter of README.md.
type card struct {
	raw      map[string]any
	features map[string]string // config → canonical features JSON
	splits   map[string]map[string]int
	body     string
}

func readCard(t testing.TB, dir string) card {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	if !strings.HasPrefix(s, "---\n") {
		t.Fatalf("README.md does not start with YAML front matter")
	}
	end := strings.Index(s[4:], "\n---\n")
	if end < 0 {
		t.Fatalf("README.md front matter not closed")
	}
	front := s[4 : 4+end]
	c := card{features: map[string]string{}, splits: map[string]map[string]int{}, body: s[4+end+5:]}
	if err := yaml.Unmarshal([]byte(front), &c.raw); err != nil {
		t.Fatalf("card YAML: %v\n%s", err, front)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(front), &doc); err != nil {
		t.Fatal(err)
	}
	info := mapping(t, doc.Content[0])["dataset_info"]
	if info == nil || info.Kind != yaml.SequenceNode {
		t.Fatalf("card has no dataset_info list")
	}
	for _, e := range info.Content {
		m := mapping(t, e)
		cfg := m["config_name"].Value
		c.features[cfg] = yamlFeatures(t, m["features"])
		c.splits[cfg] = map[string]int{}
		if sp := m["splits"]; sp != nil {
			for _, s := range sp.Content {
				sm := mapping(t, s)
				n, _ := strconv.Atoi(sm["num_examples"].Value)
				c.splits[cfg][sm["name"].Value] = n
			}
		}
	}
	return c
}

// arrowOfSchema gives the pyarrow type of each column, walking the flat
// schema element list; it fails on any REQUIRED node (the repeated middle
// level of a LIST is the one allowed non-optional node).
func arrowOfSchema(t testing.TB, els []format.SchemaElement) (names []string, types map[string]string) {
	t.Helper()
	types = map[string]string{}
	i := 1
	var node func(path string) string
	node = func(path string) string {
		el := els[i]
		i++
		p := path + "/" + el.Name
		rep, _ := el.RepetitionType.Get()
		lt := el.LogicalType.String()
		nc, isGroup := el.NumChildren.Get()
		if !isGroup {
			if rep != format.Optional {
				t.Errorf("%s: repetition %v, want OPTIONAL", p, rep)
			}
			typ, _ := el.Type.Get()
			switch {
			case typ == format.ByteArray && strings.HasPrefix(lt, "STRING"):
				return "string"
			case typ == format.ByteArray && lt == "":
				return "binary"
			case typ == format.Int64 && lt == "TIMESTAMP(isAdjustedToUTC=true,unit=MILLIS)":
				return "timestamp[ms, tz=UTC]"
			case typ == format.Int64 && (lt == "" || lt == "INT(64,true)"):
				return "int64"
			case typ == format.Boolean:
				return "bool"
			case typ == format.Double:
				return "float64"
			case typ == format.Float:
				return "float32"
			}
			t.Errorf("%s: unexpected physical type %v with logical type %q", p, typ, lt)
			return "?"
		}
		if rep != format.Optional {
			t.Errorf("%s: group repetition %v, want OPTIONAL", p, rep)
		}
		if lt == "LIST" {
			if nc != 1 {
				t.Fatalf("%s: LIST with %d children", p, nc)
			}
			mid := els[i]
			i++
			if r, _ := mid.RepetitionType.Get(); r != format.Repeated {
				t.Errorf("%s/%s: want the repeated level of a LIST", p, mid.Name)
			}
			if n, _ := mid.NumChildren.Get(); n != 1 {
				t.Fatalf("%s/%s: %d children", p, mid.Name, n)
			}
			return "list<" + node(p+"/"+mid.Name) + ">"
		}
		var parts []string
		for k := int32(0); k < nc; k++ {
			name := els[i].Name
			parts = append(parts, name+": "+node(p))
		}
		return "struct<" + strings.Join(parts, ", ") + ">"
	}
	root := els[0]
	n, _ := root.NumChildren.Get()
	for k := int32(0); k < n; k++ {
		name := els[i].Name
		names = append(names, name)
		types[name] = node("")
	}
	return names, types
}

// arrowOfFeatures gives the storage type datasets expects for each feature,
// in the JSON's key order.
func arrowOfFeatures(t testing.TB, featuresJSON string) (names []string, types map[string]string) {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(featuresJSON))
	var typeOf func() string
	object := func() ([]string, []string) {
		var ks, ts []string
		for dec.More() {
			k, _ := dec.Token()
			ks = append(ks, k.(string))
			ts = append(ts, typeOf())
		}
		dec.Token() // }
		return ks, ts
	}
	typeOf = func() string {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		switch tok {
		case json.Delim('['): // a list of one feature: a value or a struct
			elem := typeOf()
			dec.Token() // ]
			return "list<" + elem + ">"
		case json.Delim('{'):
		default:
			t.Fatalf("unexpected token %v", tok)
		}
		// an object: a feature (has _type) or a struct of features
		var ks []string
		var raw []json.RawMessage
		for dec.More() {
			k, _ := dec.Token()
			var r json.RawMessage
			if err := dec.Decode(&r); err != nil {
				t.Fatal(err)
			}
			ks = append(ks, k.(string))
			raw = append(raw, r)
		}
		dec.Token()
		m := map[string]json.RawMessage{}
		for i, k := range ks {
			m[k] = raw[i]
		}
		var typ string
		if r, ok := m["_type"]; ok && json.Unmarshal(r, &typ) == nil {
			switch typ {
			case "Value":
				var d string
				json.Unmarshal(m["dtype"], &d)
				return d
			case "ClassLabel":
				return "int64"
			case "Image":
				return "struct<bytes: binary, path: string>"
			}
			t.Fatalf("unknown feature _type %q", typ)
		}
		var ts []string
		for _, r := range raw {
			_, ct := arrowOfFeatures(t, `{"x":`+string(r)+`}`)
			ts = append(ts, ct["x"])
		}
		return structType(ks, ts)
	}
	types = map[string]string{}
	if tok, _ := dec.Token(); tok != json.Delim('{') {
		t.Fatalf("features are not an object")
	}
	ks, ts := object()
	for i, k := range ks {
		types[k] = ts[i]
	}
	return ks, types
}

func structType(ks, ts []string) string {
	parts := make([]string, len(ks))
	for i := range ks {
		parts[i] = ks[i] + ": " + ts[i]
	}
	return "struct<" + strings.Join(parts, ", ") + ">"
}

// fileCheck is what checkParquet learned from one file.
type fileCheck struct {
	rows      int64
	features  string // canonical features JSON
	groupRows []int64
}

// checkParquet applies every structural check to one file.
func checkParquet(t testing.TB, path, imageCol string) fileCheck {
	t.Helper()
	fh, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	st, _ := fh.Stat()
	f, err := parquet.OpenFile(fh, st.Size())
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	var fc fileCheck
	fc.rows = f.NumRows()
	meta, ok := f.Lookup("huggingface")
	if !ok {
		t.Fatalf("%s: no huggingface key-value metadata", path)
	}
	var parsed struct {
		Info struct {
			Features json.RawMessage `json:"features"`
		} `json:"info"`
	}
	if err := json.Unmarshal([]byte(meta), &parsed); err != nil || len(parsed.Info.Features) == 0 {
		t.Fatalf("%s: huggingface metadata does not parse as {info:{features}}: %v", path, err)
	}
	fc.features = canonJSON(t, string(parsed.Info.Features))

	sn, stypes := arrowOfSchema(t, f.Metadata().Schema)
	fn, ftypes := arrowOfFeatures(t, string(parsed.Info.Features))
	if strings.Join(sn, ",") != strings.Join(fn, ",") {
		t.Errorf("%s: columns %v, features %v", path, sn, fn)
	}
	for _, n := range sn {
		if stypes[n] != ftypes[n] {
			t.Errorf("%s: column %s is %s in Parquet but %s in the features", path, n, stypes[n], ftypes[n])
		}
	}

	imgLeaf := imageCol + ".bytes"
	for gi, rg := range f.Metadata().RowGroups {
		fc.groupRows = append(fc.groupRows, rg.NumRows)
		if rg.NumRows > maxGroupRows {
			t.Errorf("%s: row group %d has %d rows (> %d)", path, gi, rg.NumRows, maxGroupRows)
		}
		if rg.TotalByteSize > 100<<20 {
			t.Errorf("%s: row group %d is %d bytes", path, gi, rg.TotalByteSize)
		}
		for _, c := range rg.Columns {
			p := strings.Join(c.MetaData.PathInSchema, ".")
			s := c.MetaData.Statistics
			if n := max(len(s.Min), len(s.Max), len(s.MinValue), len(s.MaxValue)); n > 1024 {
				t.Errorf("%s: column %s carries %d-byte statistics", path, p, n)
			}
			if c.ColumnIndexOffset == 0 || c.OffsetIndexOffset == 0 {
				t.Errorf("%s: column %s has no page index", path, p)
			}
			wantCodec := format.Snappy
			if p == imgLeaf {
				wantCodec = format.Uncompressed
			}
			if c.MetaData.Codec != wantCodec {
				t.Errorf("%s: column %s compressed with %v, want %v", path, p, c.MetaData.Codec, wantCodec)
			}
		}
	}
	return fc
}

// isPNG800x600 checks the signature and decodes the header.
func isPNG800x600(b []byte) error {
	if !bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")) {
		return fmt.Errorf("not a PNG (starts %x)", b[:min(8, len(b))])
	}
	cfg, format, err := image.DecodeConfig(bytes.NewReader(b))
	if err != nil {
		return err
	}
	if format != "png" || cfg.Width != 800 || cfg.Height != 600 {
		return fmt.Errorf("%s %dx%d, want png 800x600", format, cfg.Width, cfg.Height)
	}
	return nil
}

// readRows reads every row of a file with parquet-go's generic reader.
func readRows[T any](t testing.TB, path string) []T {
	t.Helper()
	fh, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	r := parquet.NewGenericReader[T](fh)
	defer r.Close()
	out := make([]T, r.NumRows())
	n, err := r.Read(out)
	if err != nil && err != io.EOF {
		t.Fatalf("%s: %v", path, err)
	}
	if n != len(out) {
		t.Fatalf("%s: read %d of %d rows", path, n, len(out))
	}
	return out
}

// checkFolder runs every check on an export and returns the rows by config
// and split.
type folder struct {
	steps    map[string][]stepRow    // split → rows, shards in order
	episodes map[string][]episodeRow // split → rows
	shards   map[string][]string     // "steps/train" → file names
	card     card
}

func checkFolder(t testing.TB, dir string) folder {
	t.Helper()
	fo := folder{steps: map[string][]stepRow{}, episodes: map[string][]episodeRow{}, shards: map[string][]string{}}
	fo.card = readCard(t, dir)
	if replace, err := exportKind.Check(dir, true); err != nil || !replace {
		t.Errorf("the export is not one --force replaces: %v", err)
	}
	// configs in the YAML: steps is the default, globs match files
	cfgs, _ := fo.card.raw["configs"].([]any)
	if len(cfgs) != 2 {
		t.Fatalf("card declares %d configs, want 2", len(cfgs))
	}
	declared := map[string]bool{}
	for i, c := range cfgs {
		m := c.(map[string]any)
		name := m["config_name"].(string)
		if (name == "steps") != (m["default"] == true) {
			t.Errorf("config %s: default=%v", name, m["default"])
		}
		if i == 0 && name != "steps" {
			t.Errorf("first config is %s", name)
		}
		for _, df := range m["data_files"].([]any) {
			d := df.(map[string]any)
			if len(d) != 2 {
				t.Errorf("data_files entry %v must have exactly split and path", d)
			}
			matches, _ := filepath.Glob(filepath.Join(dir, d["path"].(string)))
			if len(matches) == 0 {
				t.Errorf("config %s split %s: glob %s matches no file", name, d["split"], d["path"])
			}
			declared[name+"/"+d["split"].(string)] = true
		}
	}
	for _, cfg := range []string{"steps", "episodes"} {
		imageCol := map[string]string{"steps": "screenshot", "episodes": "final_screenshot"}[cfg]
		files, _ := filepath.Glob(filepath.Join(dir, cfg, "*.parquet"))
		sort.Strings(files)
		for _, p := range files {
			base := filepath.Base(p)
			split := base[:strings.Index(base, "-")]
			if !declared[cfg+"/"+split] {
				t.Errorf("%s/%s is not declared in the card", cfg, base)
			}
			fo.shards[cfg+"/"+split] = append(fo.shards[cfg+"/"+split], base)
			fc := checkParquet(t, p, imageCol)
			if fc.features != canonJSON(t, fo.card.features[cfg]) {
				t.Errorf("%s: features differ from the card's dataset_info:\nparquet: %s\ncard:    %s", p, fc.features, fo.card.features[cfg])
			}
			if cfg == "steps" {
				rows := readRows[stepRow](t, p)
				for _, r := range rows {
					if r.Screenshot != nil {
						if err := isPNG800x600(r.Screenshot.Bytes); err != nil {
							t.Errorf("%s step %s/%d: %v", p, *r.EpisodeID, *r.StepIndex, err)
						}
					}
				}
				fo.steps[split] = append(fo.steps[split], rows...)
			} else {
				rows := readRows[episodeRow](t, p)
				for _, r := range rows {
					if r.FinalScreenshot != nil {
						if err := isPNG800x600(r.FinalScreenshot.Bytes); err != nil {
							t.Errorf("%s episode %s: %v", p, *r.EpisodeID, err)
						}
					}
				}
				fo.episodes[split] = append(fo.episodes[split], rows...)
			}
		}
		// shard names: split-0000i-of-0000n
		for key, names := range fo.shards {
			if !strings.HasPrefix(key, cfg+"/") {
				continue
			}
			split := strings.TrimPrefix(key, cfg+"/")
			for i, n := range names {
				want := fmt.Sprintf("%s-%05d-of-%05d.parquet", split, i, len(names))
				if n != want {
					t.Errorf("%s: shard %d named %s, want %s", key, i, n, want)
				}
			}
		}
	}
	// split counts in the card are exact
	for cfg, m := range fo.card.splits {
		for split, n := range m {
			got := len(fo.steps[split])
			if cfg == "episodes" {
				got = len(fo.episodes[split])
			}
			if got != n {
				t.Errorf("card says %s/%s has %d rows; files hold %d", cfg, split, n, got)
			}
		}
	}
	return fo
}
