package taskfile

import (
	"bytes"
	"encoding/binary"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

func group(n int32) format.SchemaElement {
	return format.SchemaElement{Name: "g", NumChildren: thrift.New(n)}
}

func leaf() format.SchemaElement {
	return format.SchemaElement{Name: "c", Type: thrift.New(format.ByteArray)}
}

// TestCheckParquetSchema pins the schema tree checks.
func TestCheckParquetSchema(t *testing.T) {
	typedGroup := group(1)
	typedGroup.Type = thrift.New(format.Int32)
	untyped := format.SchemaElement{Name: "u"}
	zeroKids := format.SchemaElement{Name: "z", NumChildren: thrift.New(int32(0))}
	deep := func(levels int) []format.SchemaElement {
		s := []format.SchemaElement{}
		for range levels {
			s = append(s, group(1))
		}
		return append(s, leaf())
	}
	cols := func(n int) format.RowGroup { return format.RowGroup{Columns: make([]format.ColumnChunk, n)} }
	for _, c := range []struct {
		name   string
		schema []format.SchemaElement
		groups []format.RowGroup
		err    string
	}{
		{"root only", []format.SchemaElement{group(1)}, nil, "its schema has no column"},
		{"one column", []format.SchemaElement{group(1), leaf()}, []format.RowGroup{cols(1)}, ""},
		{"element after the last column", []format.SchemaElement{group(1), leaf(), leaf()}, nil, "its schema has 1 elements after the last column"},
		{"negative children", []format.SchemaElement{group(-1), leaf()}, nil, "schema element 0 has -1 children"},
		{"typed group", []format.SchemaElement{typedGroup, leaf()}, nil, "schema element 0 is both a group and a typed column"},
		{"untyped leaf", []format.SchemaElement{group(1), untyped}, nil, "schema element 1 is neither a group nor a typed column"},
		{"zero children, no type", []format.SchemaElement{group(1), zeroKids}, nil, "schema element 1 is neither a group nor a typed column"},
		{"root is a column", []format.SchemaElement{leaf(), leaf()}, nil, "schema element 0 is neither a group nor a typed column"},
		{"children exactly", []format.SchemaElement{group(2), leaf(), leaf()}, nil, ""},
		{"children past the end", []format.SchemaElement{group(3), leaf(), leaf()}, nil, "schema element 0 says it has 3 children, but only 2 elements follow"},
		{"inner group past the end", []format.SchemaElement{group(2), leaf(), group(2), leaf()}, nil, "schema element 2 says it has 2 children, but only 1 elements follow"},
		{"nested group", []format.SchemaElement{group(2), group(2), leaf(), leaf(), leaf()}, []format.RowGroup{cols(3)}, ""},
		{"ends inside a group", []format.SchemaElement{group(2), group(1), leaf()}, nil, "its schema ends before the last group's columns"},
		{"64 levels", deep(64), nil, ""},
		{"65 levels", deep(65), nil, "its schema is nested more than 64 levels"},
		{"row group short of a chunk", []format.SchemaElement{group(2), leaf(), leaf()}, []format.RowGroup{cols(2), cols(1)}, "row group 2 has 1 column chunks for 2 columns"},
	} {
		md := format.FileMetaData{Schema: c.schema, RowGroups: c.groups}
		if err := checkParquetSchema(&md); errText(err) != c.err {
			t.Errorf("%s: %q; want %q", c.name, errText(err), c.err)
		}
	}
}

// pageHeader is a Thrift-encoded data page header.
func pageHeader(t *testing.T, h format.PageHeader) []byte {
	t.Helper()
	b, err := thrift.Marshal(new(thrift.CompactProtocol), &h)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func dataPage(t *testing.T, size, unpacked, values int32) []byte {
	return pageHeader(t, format.PageHeader{Type: format.DataPage, CompressedPageSize: size, UncompressedPageSize: unpacked,
		DataPageHeader: thrift.New(format.DataPageHeader{NumValues: values})})
}

func v2Page(t *testing.T, size int32, v format.DataPageHeaderV2) []byte {
	return pageHeader(t, format.PageHeader{Type: format.DataPageV2, CompressedPageSize: size, UncompressedPageSize: size,
		DataPageHeaderV2: thrift.New(v)})
}

func cat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

// TestCheckPages pins the page header checks of one column chunk.
func TestCheckPages(t *testing.T) {
	abc := []byte("abc")
	v2 := func(values, nulls, rows, rep, def int32) format.DataPageHeaderV2 {
		return format.DataPageHeaderV2{NumValues: values, NumNulls: nulls, NumRows: rows,
			RepetitionLevelsByteLength: rep, DefinitionLevelsByteLength: def}
	}
	const levels = "a page's level lengths do not fit in it"
	dict := pageHeader(t, format.PageHeader{Type: format.DictionaryPage, CompressedPageSize: 0, UncompressedPageSize: 0,
		DictionaryPageHeader: thrift.New(format.DictionaryPageHeader{NumValues: 8000001})})
	for _, c := range []struct {
		name  string
		chunk []byte
		codec format.CompressionCodec
		n     int64
		err   string
	}{
		{"empty chunk", nil, format.Uncompressed, 0, ""},
		{"two pages", cat(dataPage(t, 3, 3, 1), abc, dataPage(t, 0, 4, 0)), format.Uncompressed, 7, ""},
		{"page uses the rest exactly", cat(dataPage(t, 3, 10, 1), abc), format.Uncompressed, 10, ""},
		{"page past the end", cat(dataPage(t, 5, 10, 1), abc), format.Uncompressed, 0, "a page says it has 5 bytes, but 3 remain"},
		{"negative page size", dataPage(t, -1, 10, 1), format.Uncompressed, 0, "a page says it has -1 bytes, but 0 remain"},
		{"negative unpacked size", dataPage(t, 0, -1, 1), format.Uncompressed, 0, "a page says it holds -1 bytes; Waymark reads pages of at most 64 MB"},
		{"64 MB page", dataPage(t, 0, 64<<20, 1), format.Uncompressed, 64 << 20, ""},
		{"64 MB and 1 page", dataPage(t, 0, 64<<20+1, 1), format.Uncompressed, 0, "a page says it holds 67108865 bytes; Waymark reads pages of at most 64 MB"},
		{"8000000 values", dataPage(t, 0, 0, 8000000), format.Uncompressed, 0, ""},
		{"8000001 values", dataPage(t, 0, 0, 8000001), format.Uncompressed, 0, "a page says it has 8000001 values; Waymark reads at most 8000000"},
		{"negative values", dataPage(t, 0, 0, -1), format.Uncompressed, 0, "a page says it has -1 values; Waymark reads at most 8000000"},
		{"dictionary values", dict, format.Uncompressed, 0, "a page says it has 8000001 values; Waymark reads at most 8000000"},
		{"v2 levels fill the page", cat(v2Page(t, 3, v2(2, 0, 0, 1, 2)), abc), format.Uncompressed, 3, ""},
		{"v2 levels past the page", cat(v2Page(t, 3, v2(2, 0, 1, 2, 2)), abc), format.Uncompressed, 0, levels},
		{"v2 negative repetition", cat(v2Page(t, 3, v2(2, 0, 1, -1, 2)), abc), format.Uncompressed, 0, levels},
		{"v2 negative definition", cat(v2Page(t, 3, v2(2, 0, 1, 2, -1)), abc), format.Uncompressed, 0, levels},
		{"v2 negative nulls", cat(v2Page(t, 3, v2(2, -1, 1, 0, 0)), abc), format.Uncompressed, 0, levels},
		{"v2 negative rows", cat(v2Page(t, 3, v2(2, 0, -1, 0, 0)), abc), format.Uncompressed, 0, levels},
		{"v2 all null", cat(v2Page(t, 3, v2(2, 2, 1, 0, 0)), abc), format.Uncompressed, 3, ""},
		{"v2 more nulls than values", cat(v2Page(t, 3, v2(2, 3, 1, 0, 0)), abc), format.Uncompressed, 0, "a page says 3 of its 2 values are null"},
		{"v2 negative values", cat(v2Page(t, 3, v2(-1, -2, 1, 0, 0)), abc), format.Uncompressed, 0, levels},
		// The snappy length after the two level bytes says 1 byte: the
		// levels are not part of the compressed data.
		{"v2 snappy after levels", cat(v2Page(t, 3, v2(1, 0, 1, 1, 1)), []byte{0xff, 0xff, 1}), format.Snappy, 3, ""},
		{"snappy states too much", cat(dataPage(t, 1, 3, 1), []byte{9}), format.Snappy, 0, "a compressed page unpacks to 9 bytes or more, more than the 3 it states"},
		{"damaged header", []byte{0x15}, format.Uncompressed, 0, "page header at byte 0: its metadata is damaged"},
		{"damaged second header", cat(dataPage(t, 3, 3, 1), abc, []byte{0x15}), format.Uncompressed, 0, "page header at byte 24: its metadata is damaged"},
	} {
		n, err := checkPages(c.chunk, c.codec)
		if n != c.n || errText(err) != c.err {
			t.Errorf("%s: checkPages = %d, %q; want %d, %q", c.name, n, errText(err), c.n, c.err)
		}
	}
}

// column is a column chunk of the given place in an uncompressed file.
func column(offset, size, values int64) format.ColumnChunk {
	return format.ColumnChunk{MetaData: format.ColumnMetaData{Codec: format.Uncompressed,
		DataPageOffset: offset, TotalCompressedSize: size, NumValues: values}}
}

// TestCheckParquetLayout pins the row, place and size checks of the row
// groups and column chunks.
func TestCheckParquetLayout(t *testing.T) {
	const rowsErr = "the file's row groups hold more than 1000000 rows (or a negative count); Waymark imports at most 1000000 tasks from one Parquet file"
	big := bytes.Repeat(dataPage(t, 0, 64<<20, 0), 8)
	small := dataPage(t, 0, 1, 0)
	data := cat([]byte("PAR1\x15"), big, small, []byte("0123456789"))
	dataEnd := int64(len(data) - 10)
	smallAt := 5 + int64(len(big))
	rg := func(rows int64, cs ...format.ColumnChunk) format.RowGroup {
		return format.RowGroup{NumRows: rows, Columns: cs}
	}
	lzo := column(4, 0, 0)
	lzo.MetaData.Codec = format.LZO
	elsewhere := column(4, 0, 0)
	elsewhere.FilePath = "x.parquet"
	dictAt3 := column(4, 0, 0)
	dictAt3.MetaData.DictionaryPageOffset = 3
	for _, c := range []struct {
		name   string
		rows   int64
		groups []format.RowGroup
		err    string
	}{
		{"no rows", 0, nil, ""},
		{"1000000 rows", 1000000, nil, ""},
		{"1000001 rows", 1000001, nil, "the file says it has 1000001 rows; Waymark imports at most 1000000 tasks from one Parquet file: split it"},
		{"negative rows", -1, nil, "the file says it has -1 rows; Waymark imports at most 1000000 tasks from one Parquet file: split it"},
		{"groups of 0 and 1000000 rows", 0, []format.RowGroup{rg(0), rg(1000000)}, ""},
		{"groups of 500000 and 500001 rows", 0, []format.RowGroup{rg(500000), rg(500001)}, rowsErr},
		{"group of -1 rows", 0, []format.RowGroup{rg(-1)}, rowsErr},
		{"chunk in another file", 0, []format.RowGroup{rg(1), rg(1, column(4, 0, 0), elsewhere)}, `row group 2, column 2 is stored in another file ("x.parquet"); Waymark imports self-contained Parquet files`},
		{"lzo", 0, []format.RowGroup{rg(1, lzo)}, "row group 1, column 1 uses the LZO compression, which Waymark does not import; save the file with snappy, zstd, gzip or no compression"},
		{"data at byte 3", 0, []format.RowGroup{rg(1, column(3, 0, 0))}, "the file is truncated or not a Parquet file: row group 1, column 1 says its data is at bytes 3–3, outside the file's 218 bytes of data"},
		{"dictionary at byte 3", 0, []format.RowGroup{rg(1, dictAt3)}, "the file is truncated or not a Parquet file: row group 1, column 1 says its data is at bytes 3–3, outside the file's 218 bytes of data"},
		{"negative size", 0, []format.RowGroup{rg(1, column(4, -1, 0))}, "the file is truncated or not a Parquet file: row group 1, column 1 says its data is at bytes 4–3, outside the file's 218 bytes of data"},
		{"chunk to the end of the data", 0, []format.RowGroup{rg(1, column(smallAt, dataEnd-smallAt, 0))}, ""},
		{"chunk one byte past the data", 0, []format.RowGroup{rg(1, column(smallAt, dataEnd-smallAt+1, 0))}, "the file is truncated or not a Parquet file: row group 1, column 1 says its data is at bytes 197–219, outside the file's 218 bytes of data"},
		{"8000000 values", 0, []format.RowGroup{rg(1, column(4, 0, 8000000))}, ""},
		{"8000001 values", 0, []format.RowGroup{rg(1, column(4, 0, 8000001))}, "row group 1, column 1 says it has 8000001 values; Waymark reads at most 8000000 per column chunk"},
		{"negative values", 0, []format.RowGroup{rg(1, column(4, 0, -1))}, "row group 1, column 1 says it has -1 values; Waymark reads at most 8000000 per column chunk"},
		{"512 MB of pages", 0, []format.RowGroup{rg(1, column(5, int64(len(big)), 0))}, ""},
		{"512 MB and 1 byte of pages", 0, []format.RowGroup{rg(1, column(5, int64(len(big)), 0)), rg(1, column(smallAt, int64(len(small)), 0))},
			"the file's pages hold more than 512 MB once decompressed; Waymark imports smaller task files: split it"},
		{"bad page", 0, []format.RowGroup{rg(1, column(4, 1, 0))}, "the file is truncated or not a valid Parquet file: row group 1, column 1: page header at byte 0: its metadata is damaged"},
	} {
		md := format.FileMetaData{NumRows: c.rows, RowGroups: c.groups}
		if err := checkParquetLayout(data, &md, dataEnd); errText(err) != c.err {
			t.Errorf("%s: %q; want %q", c.name, errText(err), c.err)
		}
	}
}

// parquetFile frames meta as a Parquet file with data before it.
func parquetFile(data, meta []byte) []byte {
	out := cat([]byte("PAR1"), data, meta)
	out = binary.LittleEndian.AppendUint32(out, uint32(len(meta)))
	return append(out, "PAR1"...)
}

// TestOpenParquetFraming pins the checks of the file's frame and footer.
func TestOpenParquetFraming(t *testing.T) {
	const np = "the file is truncated or not a Parquet file: "
	md := format.FileMetaData{Version: 1, NumRows: 0, Schema: []format.SchemaElement{group(1), leaf()},
		RowGroups: []format.RowGroup{{NumRows: 0, Columns: []format.ColumnChunk{column(4, 1, 0)}}}}
	meta, err := thrift.Marshal(new(thrift.CompactProtocol), &md)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		in   []byte
		err  string
	}{
		{"11 bytes", []byte("PAR1\x00\x00\x00PAR1"), np + "it has 11 bytes, fewer than the 12 of an empty Parquet file"},
		{"12 bytes", []byte("PAR1\x00\x00\x00\x00PAR1"), np + "its metadata is damaged"},
		{"encrypted head", []byte("PARE\x00\x00\x00\x00PAR1"), "the Parquet file is encrypted; save it without encryption and import again"},
		{"encrypted tail", []byte("PAR1\x00\x00\x00\x00PARE"), "the Parquet file is encrypted; save it without encryption and import again"},
		{"bad head", []byte("PAR2\x00\x00\x00\x00PAR1"), np + "it does not start with PAR1"},
		{"bad tail", []byte("PAR1\x00\x00\x00\x00PAR2"), np + "it does not end with PAR1 (a file cut short, or another format)"},
		{"footer one byte too long", []byte("PAR1\x00\x02\x00\x00\x00PAR1"), np + "its footer says 2 bytes of metadata, but the file has only 13 bytes"},
		{"footer takes all the rest", []byte("PAR1\x00\x01\x00\x00\x00PAR1"), np + "its metadata cannot be read: missing required field: 1:FIELD<I32>"},
		{"metadata shorter than the footer", parquetFile(nil, []byte("\x00\x00\x00\x00")), np + "its metadata ends 3 bytes before the footer"},
		{"metadata a Thrift struct of the wrong kind", parquetFile(nil, []byte("\x15\x02\x00")), np + "its metadata cannot be read: missing required field: 2:FIELD<LIST>"},
		{"bad schema", parquetFile(nil, mustMeta(t, format.FileMetaData{Schema: []format.SchemaElement{group(2), leaf()}})), np + "schema element 0 says it has 2 children, but only 1 elements follow"},
		{"chunk into the metadata", parquetFile(nil, meta), np + "row group 1, column 1 says its data is at bytes 4–5, outside the file's 4 bytes of data"},
	} {
		_, err := openParquet(c.in)
		if errText(err) != c.err {
			t.Errorf("%s: %q; want %q", c.name, errText(err), c.err)
		}
	}
	// The 64 MB metadata limit, on one 64 MB buffer.
	buf := make([]byte, 64<<20+13)
	copy(buf, "PAR1")
	copy(buf[len(buf)-4:], "PAR1")
	binary.LittleEndian.PutUint32(buf[len(buf)-8:], 64<<20+1)
	if _, err := openParquet(buf); errText(err) != "its metadata takes 64 MB; Waymark reads task files with at most 64 MB of metadata" {
		t.Errorf("64 MB + 1 of metadata: %q", errText(err))
	}
	binary.LittleEndian.PutUint32(buf[len(buf)-8:], 64<<20)
	if _, err := openParquet(buf); errText(err) != np+"its metadata ends 67108863 bytes before the footer" {
		t.Errorf("64 MB of metadata: %q", errText(err))
	}
}

func mustMeta(t *testing.T, md format.FileMetaData) []byte {
	t.Helper()
	b, err := thrift.Marshal(new(thrift.CompactProtocol), &md)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestOpenParquetCodecs opens real files written by parquet-go with each
// codec the reader takes, page versions 1 and 2, nulls, lists and several
// row groups, and reads their rows back.
func TestOpenParquetCodecs(t *testing.T) {
	type row struct {
		Goal    string   `parquet:"goal"`
		URL     *string  `parquet:"url,optional"`
		Answers []string `parquet:"answers,list"`
		Score   float64  `parquet:"score"`
	}
	site := "https://example.com/"
	var rows []row
	for i := range 40 {
		r := row{Goal: "goal " + strings.Repeat("x", i), Score: float64(i) / 4}
		if i%3 == 0 {
			r.URL = &site
			r.Answers = []string{"a", "b"}
		}
		rows = append(rows, r)
	}
	for _, c := range []struct {
		name  string
		codec parquet.WriterOption
	}{
		{"none", parquet.Compression(&parquet.Uncompressed)},
		{"snappy", parquet.Compression(&parquet.Snappy)},
		{"gzip", parquet.Compression(&parquet.Gzip)},
		{"zstd", parquet.Compression(&parquet.Zstd)},
	} {
		for _, v := range []int{1, 2} {
			var buf bytes.Buffer
			if err := parquet.Write(&buf, rows, c.codec, parquet.DataPageVersion(v), parquet.MaxRowsPerRowGroup(16)); err != nil {
				t.Fatal(err)
			}
			f, err := openParquet(buf.Bytes())
			if err != nil {
				t.Errorf("%s v%d: %v", c.name, v, err)
				continue
			}
			if f.NumRows() != 40 || len(f.RowGroups()) != 3 {
				t.Errorf("%s v%d: %d rows in %d groups; want 40 in 3", c.name, v, f.NumRows(), len(f.RowGroups()))
			}
			tab, err := Read(buf.Bytes(), "t.parquet", "parquet")
			if err != nil || len(tab.Rows) != 40 || strings.Join(tab.Columns, ",") != "goal,url,answers,score" {
				t.Errorf("%s v%d: Read = %v %v, %d rows", c.name, v, err, tab.Columns, len(tab.Rows))
			}
		}
	}
}
