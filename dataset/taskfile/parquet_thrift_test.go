package taskfile

import (
	"bytes"
	"compress/gzip"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go/format"
)

// errText is err's message, or "" for nil.
func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// TestThriftWalkerContract pins what the metadata pre-check accepts (with
// the length it consumed) and rejects, from hand-written compact-protocol
// bytes.
func TestThriftWalkerContract(t *testing.T) {
	const bad = "its metadata is damaged"
	const deep = "its metadata is damaged (nested more than 32 levels)"
	rep := strings.Repeat
	for _, c := range []struct {
		name, in string
		n        int
		err      string
	}{
		{"empty", "", 0, bad},
		{"stop only", "\x00", 1, ""},
		{"bool field", "\x11\x00", 2, ""},
		{"byte field", "\x13\x07\x00", 3, ""},
		{"byte field cut", "\x13", 0, bad},
		{"i32 field", "\x15\x96\x01\x00", 4, ""},
		{"i32 cut varint", "\x15\x96", 0, bad},
		// The cut varint's byte must not be read again as a field header
		// (0x9d would be one of unknown type 13).
		{"i32 cut varint 0x9d", "\x15\x9d", 0, bad},
		{"double exactly 8 bytes", "\x17" + rep("\x01", 8) + "\x00", 10, ""},
		{"double 7 bytes", "\x17" + rep("\x01", 7), 0, bad},
		{"binary", "\x18\x03abc\x00", 6, ""},
		{"binary too long", "\x18\x05abc\x00", 0, bad},
		{"long field id", "\x05\x02\x04\x00", 4, ""},
		{"list of 3 i32", "\x19\x35\x01\x02\x03\x00", 6, ""},
		{"list of bools", "\x19\x21\x01\x02\x00", 5, ""},
		{"list of 15 i32 long form", "\x19\xf5\x0f" + rep("\x02", 15) + "\x00", 19, ""},
		{"list longer than data", "\x19\x45\x01\x02\x00", 0, bad},
		{"set of binaries", "\x1a\x28\x01a\x02bc\x00", 8, ""},
		{"empty map", "\x1b\x00\x00", 3, ""},
		{"map i32 to binary", "\x1b\x02\x58\x02\x01x\x04\x02yz\x00", 11, ""},
		{"map cut", "\x1b\x02\x55\x02\x00", 0, bad},
		{"struct in struct", "\x1c\x15\x02\x00\x00", 5, ""},
		{"unknown type 13", "\x1d\x00", 0, "its metadata is damaged (unknown Thrift type 13)"},
		{"32 nested structs", rep("\x1c", 32) + rep("\x00", 33), 65, ""},
		{"33 nested structs", rep("\x1c", 33) + rep("\x00", 34), 0, deep},
		{"32 nested lists", "\x19" + rep("\x19", 32) + "\x05\x00", 35, ""},
		{"33 nested lists", "\x19" + rep("\x19", 33) + "\x05\x00", 0, deep},
		{"32 maps nested as values", "\x1b" + rep("\x01\x3b\x01", 32) + "\x00\x00", 99, ""},
		{"33 maps nested as values", "\x1b" + rep("\x01\x3b\x01", 33) + "\x00\x00", 0, deep},
		{"32 maps nested as keys", "\x1b" + rep("\x01\xb3", 32) + "\x00" + rep("\x01", 32) + "\x00", 99, ""},
		{"33 maps nested as keys", "\x1b" + rep("\x01\xb3", 33) + "\x00" + rep("\x01", 33) + "\x00", 0, deep},
	} {
		n, err := checkThrift([]byte(c.in))
		if n != c.n || errText(err) != c.err {
			t.Errorf("%s: checkThrift = %d, %q; want %d, %q", c.name, n, errText(err), c.n, c.err)
		}
	}
}

// TestThriftWalkerExactFit pins that a value may use up exactly the bytes
// left (checkThrift always needs a stop byte after, so value is called).
func TestThriftWalkerExactFit(t *testing.T) {
	for _, c := range []struct {
		name string
		t    byte
		in   string
		err  string
	}{
		{"double of all bytes left", 7, "12345678", ""},
		{"double one byte short", 7, "1234567", "its metadata is damaged"},
		{"binary of all bytes left", 8, "\x03abc", ""},
		{"binary one over", 8, "\x04abc", "its metadata is damaged"},
		{"list of all bytes left", 9, "\x33\x01\x02\x03", ""},
		{"map of all bytes left", 11, "\x02\x33\x01\x02\x03\x04", ""},
		{"map one entry over", 11, "\x03\x33\x01\x02\x03\x04\x05", "its metadata is damaged"},
	} {
		w := thriftWalker{b: []byte(c.in)}
		err := w.value(c.t, 0, false)
		if errText(err) != c.err || (err == nil && w.pos != len(c.in)) {
			t.Errorf("%s: value = %q at %d; want %q at %d", c.name, errText(err), w.pos, c.err, len(c.in))
		}
	}
	// A map whose double key overruns the data: the walker must stop there,
	// not step past the end and read the i32 value beyond it.
	w := thriftWalker{b: []byte("\x1b\x01\x75\x00\x00\x00\x00")}
	if err := w.structure(0); errText(err) != "its metadata is damaged" {
		t.Errorf("map with cut double key: %q", errText(err))
	}
}

// TestThriftWalkerAllocBound pins the allocation charge: 8 bytes a number,
// 24 a string, 48 a list or map, 640 a struct, 256 MB in all.
func TestThriftWalkerAllocBound(t *testing.T) {
	const over = "its metadata is damaged (its lists would need more than 256 MB)"
	for _, c := range []struct {
		elem byte
		ok   uint64 // the most elements that fit
	}{{5, 33554432}, {8, 11184810}, {9, 5592405}, {11, 5592405}, {12, 419430}} {
		w := thriftWalker{}
		if err := w.charge(c.ok, c.elem); err != nil {
			t.Errorf("type %d: %d elements: %v", c.elem, c.ok, err)
		}
		w = thriftWalker{}
		if err := w.charge(c.ok+1, c.elem); errText(err) != over {
			t.Errorf("type %d: %d elements: %q", c.elem, c.ok+1, errText(err))
		}
	}
	// Charges add up.
	w := thriftWalker{}
	if w.charge(16777216, 5) != nil || errText(w.charge(16777217, 5)) != over {
		t.Error("two charges summing past 256 MB were not refused")
	}
	// A map of 209716 entries is charged as 2×209716 structs: 268436480
	// bytes, over the limit, once its entries fit in the data.
	data := append([]byte("\x1b\xb4\xe6\x0c\x33"), bytes.Repeat([]byte{1}, 2*209716+1)...)
	if _, err := checkThrift(data); errText(err) != over {
		t.Errorf("huge map: %q", errText(err))
	}
	// A map claiming more entries than half the bytes left is refused
	// before it is charged.
	data = append([]byte("\x1b\xe0\xa7\x12\x33"), bytes.Repeat([]byte{1}, 200000)...)
	if _, err := checkThrift(data); errText(err) != "its metadata is damaged" {
		t.Errorf("map of 300000 entries in 200000 bytes: %q", errText(err))
	}
}

func gzipBytes(t *testing.T, s string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if _, err := zw.Write([]byte(s)); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestCheckDecodedSize pins the decompressed-size checks per codec.
func TestCheckDecodedSize(t *testing.T) {
	gz := gzipBytes(t, "hello")
	const zstdMagic = "\x28\xb5\x2f\xfd"
	rle64MB := zstdMagic + "\x00\x00" + rleBlocks(67108864, true)
	for _, c := range []struct {
		name  string
		page  []byte
		codec format.CompressionCodec
		want  int64
		err   string
	}{
		{"uncompressed ignores the data", []byte("xyz"), format.Uncompressed, 1, ""},
		{"snappy empty", nil, format.Snappy, 0, ""},
		{"snappy states exactly", []byte{5, 0, 0}, format.Snappy, 5, ""},
		{"snappy states more", []byte{6, 0, 0}, format.Snappy, 5, "a compressed page unpacks to 6 bytes or more, more than the 5 it states"},
		{"snappy damaged varint", []byte{0x80}, format.Snappy, 5, "a snappy page is damaged"},
		{"snappy huge", []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}, format.Snappy, 5, "a compressed page unpacks to 4611686018427387904 bytes or more, more than the 5 it states"},
		{"gzip exactly", gz, format.Gzip, 5, ""},
		{"gzip more", gz, format.Gzip, 4, "a compressed page unpacks to 5 bytes or more, more than the 4 it states"},
		{"gzip three less", gz, format.Gzip, 2, "a compressed page unpacks to 3 bytes or more, more than the 2 it states"},
		{"gzip bad header", []byte("not gzip at all"), format.Gzip, 5, "a gzip page is damaged: gzip: invalid header"},
		{"gzip cut", gz[:len(gz)-6], format.Gzip, 5, "a gzip page is damaged: unexpected EOF"},
		{"zstd damaged", []byte("zstd"), format.Zstd, 5, "a zstd page is damaged"},
		{"zstd 64 MB", []byte(rle64MB), format.Zstd, 5, ""},
		{"zstd 64 MB and 1", []byte(zstdMagic + "\x00\x00" + rleBlocks(67108865, true)), format.Zstd, 5, "a compressed page unpacks to 67108865 bytes or more, more than the 5 it states"},
	} {
		if err := checkDecodedSize(c.page, c.codec, c.want); errText(err) != c.err {
			t.Errorf("%s: %q; want %q", c.name, errText(err), c.err)
		}
	}
}

// zstdBlock is a 3-byte zstd block header.
func zstdBlock(last bool, typ, size int) string {
	v := size<<3 | typ<<1
	if last {
		v |= 1
	}
	return string([]byte{byte(v), byte(v >> 8), byte(v >> 16)})
}

// rleBlocks is RLE blocks (each with its one byte) unpacking to total bytes.
func rleBlocks(total int, last bool) string {
	var b strings.Builder
	for total > 0 {
		n := min(total, 2097151)
		total -= n
		b.WriteString(zstdBlock(last && total == 0, 1, n) + "z")
	}
	return b.String()
}

// TestZstdDecodedBound pins the zstd frame walk from hand-built frames.
func TestZstdDecodedBound(t *testing.T) {
	const magic = "\x28\xb5\x2f\xfd"
	const skip = "\x5a\x2a\x4d\x18"
	const bad = "a zstd page is damaged"
	raw3 := zstdBlock(true, 0, 3) + "abc"
	for _, c := range []struct {
		name, in string
		n        int64
		err      string
	}{
		{"empty", "", 0, ""},
		{"3 bytes", "\x28\xb5\x2f", 0, bad},
		{"magic only", magic, 0, bad},
		{"not zstd", "\x28\xb5\x2f\xfe\x20\x00" + raw3, 0, bad},
		{"skippable empty", skip + "\x00\x00\x00\x00", 0, ""},
		{"skippable 3", skip + "\x03\x00\x00\x00xyz", 0, ""},
		{"skippable then frame", skip + "\x03\x00\x00\x00xyz" + magic + "\x20\x03" + raw3, 3, ""},
		{"skippable over", skip + "\x04\x00\x00\x00xyz", 0, bad},
		{"skippable 7 bytes", skip + "\x00\x00\x00", 0, bad},
		{"single segment, 1-byte size", magic + "\x20\x03" + raw3, 3, ""},
		{"window descriptor", magic + "\x00\x00" + raw3, 3, ""},
		{"window and 1-byte dict id", magic + "\x01\x00\x07" + raw3, 3, ""},
		{"2-byte dict id, 2-byte size", magic + "\x62\x07\x07\x00\x01" + raw3, 3, ""},
		{"4-byte dict id", magic + "\x03\x00\x01\x02\x03\x04" + raw3, 3, ""},
		{"4-byte size over 64 MB", magic + "\xa0\x01\x00\x00\x05", 83886081, ""},
		{"4-byte size 64 MB, cut", magic + "\xa0\x00\x00\x00\x04", 0, bad},
		{"4-byte size 64 MB - 100, cut", magic + "\xa0\x9c\xff\xff\x03", 0, bad},
		{"8-byte size", magic + "\xe0\x00\x00\x00\x00\x00\x01\x00\x00", 1 << 40, ""},
		{"8-byte size max", magic + "\xe0" + strings.Repeat("\xff", 8), 1 << 62, ""},
		{"header cut", magic + "\xe0\x00\x00", 0, bad},
		{"empty raw block", magic + "\x00\x00" + zstdBlock(true, 0, 0), 0, ""},
		{"block header cut", magic + "\x00\x00\x01\x00", 0, bad},
		{"raw block over", magic + "\x00\x00" + zstdBlock(true, 0, 4) + "abc", 0, bad},
		{"rle block", magic + "\x00\x00" + zstdBlock(true, 1, 1000) + "z", 1000, ""},
		{"rle block without its byte", magic + "\x00\x00" + zstdBlock(true, 1, 1000), 0, bad},
		{"compressed block", magic + "\x00\x00" + zstdBlock(true, 2, 2) + "ab", 131072, ""},
		{"compressed block over", magic + "\x00\x00" + zstdBlock(true, 2, 3) + "ab", 0, bad},
		{"reserved block", magic + "\x00\x00" + zstdBlock(true, 3, 0), 0, bad},
		{"two blocks", magic + "\x00\x00" + zstdBlock(false, 0, 2) + "ab" + raw3, 5, ""},
		{"not last, then nothing", magic + "\x00\x00" + zstdBlock(false, 0, 2) + "ab", 0, bad},
		{"checksum", magic + "\x04\x00" + raw3 + "1234", 3, ""},
		{"checksum cut", magic + "\x04\x00" + raw3 + "123", 0, bad},
		{"two frames", magic + "\x00\x00" + raw3 + magic + "\x00\x00" + zstdBlock(true, 1, 7) + "z", 10, ""},
		{"exactly 64 MB then a cut block", magic + "\x00\x00" + rleBlocks(67108864, false) + "\x00", 0, bad},
		{"64 MB and 1 stops early", magic + "\x00\x00" + rleBlocks(67108865, false) + "\x00", 67108865, ""},
	} {
		n, err := zstdDecodedBound([]byte(c.in))
		if n != c.n || errText(err) != c.err {
			t.Errorf("%s: zstdDecodedBound = %d, %q; want %d, %q", c.name, n, errText(err), c.n, c.err)
		}
	}
}
