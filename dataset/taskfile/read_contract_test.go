package taskfile

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
)

// A JSON array element's line is the line of its first character: the
// comma, spaces, tabs and carriage returns before it are skipped, whatever
// their order (a comma followed by a space at the end of a line is common).
func TestReadJSONArrayElementLines(t *testing.T) {
	for _, c := range []struct {
		content string
		rows    []string
	}{
		{"[ \n{\"goal\":\"a\"}]", []string{"1/2:goal=a"}},
		{"[{\"goal\":\"a\"} ,\n  {\"goal\":\"b\"}]", []string{"1/1:goal=a", "2/2:goal=b"}},
		{"[{\"goal\":\"a\"}, \n{\"goal\":\"b\"},\t\r\n{\"goal\":\"c\"}]", []string{"1/1:goal=a", "2/2:goal=b", "3/3:goal=c"}},
		{"[\t\r\n \n\t{\"goal\":\"a\"},\r\n \"s\"]", []string{"1/3:goal=a", "2/4!element 2 is a JSON string, not an object"}},
	} {
		tab, err := Read([]byte(c.content), "t.json", "")
		if err != nil {
			t.Errorf("%q: %v", c.content, err)
			continue
		}
		if got := rowsOf(tab); !slices.Equal(got, c.rows) {
			t.Errorf("%q:\n got %q\nwant %q", c.content, got, c.rows)
		}
	}
}

// An empty JSON array (or an object holding one) is a file with no task in
// it, not an error: the importer then says there is nothing to import.
func TestReadEmptyJSONArray(t *testing.T) {
	for _, content := range []string{"[]", "[ \n ]", `{"data": []}`, `{"tasks": []}`} {
		tab, err := Read([]byte(content), "t.json", "")
		if err != nil {
			t.Errorf("%q: %v", content, err)
			continue
		}
		if tab.Format != "json" || len(tab.Rows) != 0 || len(tab.Issues) != 0 || len(tab.Columns) != 0 {
			t.Errorf("%q: %s, %d columns, %d rows, %d issues; want json and nothing",
				content, tab.Format, len(tab.Columns), len(tab.Rows), len(tab.Issues))
		}
	}
}

// A CSV line holding only spaces is skipped like an empty one and does not
// use up a row number; a one-column file's rows are kept (a single field is
// blank only when it holds nothing but spaces).
func TestReadCSVBlankRecords(t *testing.T) {
	for _, c := range []struct {
		name, content string
		rows          []string
	}{
		{"t.csv", "goal,url\na,http://a.test/\n   \nb,http://b.test/\n", []string{"1/2:goal=a,url=http://a.test/", "2/4:goal=b,url=http://b.test/"}},
		{"t.csv", "goal\nfirst\n \t \nsecond\n", []string{"1/2:goal=first", "2/4:goal=second"}},
		{"t.tsv", "goal\turl\n  \na\tb\n", []string{"1/3:goal=a,url=b"}},
	} {
		tab, err := Read([]byte(c.content), c.name, "")
		if err != nil {
			t.Errorf("%q: %v", c.content, err)
			continue
		}
		if got := rowsOf(tab); !slices.Equal(got, c.rows) {
			t.Errorf("%q:\n got %q\nwant %q", c.content, got, c.rows)
		}
	}
}

// A Parquet file whose metadata is sound but whose data page is damaged
// (here one byte of a value, caught by the page's CRC-32) is refused with
// the reader's error, not read as a file with no rows.
func TestReadParquetDamagedPage(t *testing.T) {
	type task struct {
		Goal string `parquet:"goal,plain"`
	}
	var buf bytes.Buffer
	if err := parquet.Write(&buf, []task{{"Open the page about Lisbon"}}, parquet.Compression(&parquet.Uncompressed)); err != nil {
		t.Fatal(err)
	}
	good := buf.Bytes()
	if tab, err := Read(good, "t.parquet", ""); err != nil || len(tab.Rows) != 1 {
		t.Fatalf("the sound file: %v, %d rows", err, len(tab.Rows))
	}
	// The value in the page: PLAIN (the tag asks for it) byte array, a
	// 4-byte little-endian length (26) and the bytes (the statistics hold
	// it with a varint length).
	i := bytes.Index(good, []byte("\x1a\x00\x00\x00Open the page about Lisbon"))
	if i < 0 {
		t.Fatal("the value is not in the file as a PLAIN byte array")
	}
	bad := bytes.Clone(good)
	bad[i+4+20] = 'l' // "Lisbon" → "lisbon"
	tab, err := Read(bad, "t.parquet", "")
	if !errors.Is(err, ErrImportFile) || !strings.Contains(err.Error(), "t.parquet: cannot read its rows (the file is damaged or not a valid Parquet file): ") ||
		!strings.Contains(err.Error(), "checksum") {
		t.Fatalf("damaged page: %v (%d rows); want an ErrImportFile saying its rows cannot be read (checksum)", err, len(tab.Rows))
	}
}
