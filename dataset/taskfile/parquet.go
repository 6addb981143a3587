package taskfile

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

// Every size a Parquet file states about itself (the footer's length, the
// lengths and counts inside its Thrift metadata, the page sizes, the row
// count) is checked against the file's size and against the limits below
// before parquet-go sees the file: parquet-go allocates what these numbers
// say before it reads, so a 1 KB file claiming a 4 GB footer would make it
// allocate 4 GB.
const (
	// MaxRows is the most rows a Parquet task file may have.
	MaxRows = 1_000_000
	// maxParquetFooter bounds the file's metadata (real task files have a
	// few kilobytes).
	maxParquetFooter = 64 << 20
	// maxParquetPage bounds one page once decompressed.
	maxParquetPage = 64 << 20
	// maxParquetDecoded bounds all pages once decompressed.
	maxParquetDecoded = 512 << 20
	// maxParquetValues bounds the values of one column chunk.
	maxParquetValues = 8_000_000
	// maxThriftAlloc bounds what decoding the metadata may allocate: the
	// sum over its lists of count × the largest Go struct the decoder makes
	// (format.ColumnChunk is 560 bytes).
	maxThriftAlloc   = 256 << 20
	thriftStructCost = 640
	maxThriftDepth   = 32
)

// openParquet checks a Parquet file's stated sizes against its real size and
// the limits above, then opens it. Errors say what is wrong in words.
func openParquet(data []byte) (*parquet.File, error) {
	size := int64(len(data))
	notParquet := func(why string, a ...any) error {
		return fmt.Errorf("the file is truncated or not a Parquet file: "+why, a...)
	}
	if size < 12 {
		return nil, notParquet("it has %d bytes, fewer than the 12 of an empty Parquet file", size)
	}
	head, tail := string(data[:4]), string(data[size-4:])
	if head == "PARE" || tail == "PARE" {
		return nil, errors.New("the Parquet file is encrypted; save it without encryption and import again")
	}
	if head != "PAR1" {
		return nil, notParquet("it does not start with PAR1")
	}
	if tail != "PAR1" {
		return nil, notParquet("it does not end with PAR1 (a file cut short, or another format)")
	}
	footer := int64(binary.LittleEndian.Uint32(data[size-8:]))
	if footer > size-12 {
		return nil, notParquet("its footer says %d bytes of metadata, but the file has only %d bytes", footer, size)
	}
	if footer > maxParquetFooter {
		return nil, fmt.Errorf("its metadata takes %d MB; Waymark reads task files with at most %d MB of metadata", footer>>20, maxParquetFooter>>20)
	}
	meta := data[size-8-footer : size-8]
	if n, err := checkThrift(meta); err != nil {
		return nil, notParquet("%v", err)
	} else if int64(n) != footer {
		return nil, notParquet("its metadata ends %d bytes before the footer", footer-int64(n))
	}
	var md format.FileMetaData
	if err := thrift.Unmarshal(new(thrift.CompactProtocol), meta, &md); err != nil {
		return nil, notParquet("its metadata cannot be read: %v", err)
	}
	if err := checkParquetSchema(&md); err != nil {
		return nil, notParquet("%v", err)
	}
	if err := checkParquetLayout(data, &md, size-8-footer); err != nil {
		return nil, err
	}
	return parquet.OpenFile(bytes.NewReader(data), size, parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true))
}

// checkParquetSchema checks that the schema is a tree in depth-first order:
// the root and every group have children and no type, every other element
// is a leaf with a type, the children counts use up exactly the elements,
// and every row group has one column chunk per leaf.
func checkParquetSchema(md *format.FileMetaData) error {
	schema := md.Schema
	if len(schema) < 2 {
		return errors.New("its schema has no column")
	}
	const maxDepth = 64
	var open []int32 // children still to come, per open group
	leaves := 0
	for i, e := range schema {
		if i > 0 && len(open) == 0 {
			return fmt.Errorf("its schema has %d elements after the last column", len(schema)-i)
		}
		group := e.NumChildren.Valid && e.NumChildren.V > 0
		switch {
		case e.NumChildren.Valid && e.NumChildren.V < 0:
			return fmt.Errorf("schema element %d has %d children", i, e.NumChildren.V)
		case group && e.Type.Valid:
			return fmt.Errorf("schema element %d is both a group and a typed column", i)
		case !group && !e.Type.Valid, i == 0 && !group:
			return fmt.Errorf("schema element %d is neither a group nor a typed column", i)
		}
		if i > 0 {
			open[len(open)-1]--
		}
		if group {
			if int(e.NumChildren.V) > len(schema)-i-1 {
				return fmt.Errorf("schema element %d says it has %d children, but only %d elements follow", i, e.NumChildren.V, len(schema)-i-1)
			}
			if open = append(open, e.NumChildren.V); len(open) > maxDepth {
				return fmt.Errorf("its schema is nested more than %d levels", maxDepth)
			}
		} else {
			leaves++
		}
		for len(open) > 0 && open[len(open)-1] == 0 {
			open = open[:len(open)-1]
		}
	}
	if len(open) > 0 {
		return errors.New("its schema ends before the last group's columns")
	}
	for i, g := range md.RowGroups {
		if len(g.Columns) != leaves {
			return fmt.Errorf("row group %d has %d column chunks for %d columns", i+1, len(g.Columns), leaves)
		}
	}
	return nil
}

// checkParquetLayout checks the row counts, the column chunks' places and
// every page header against the data before them (dataEnd is where the
// metadata starts).
func checkParquetLayout(data []byte, md *format.FileMetaData, dataEnd int64) error {
	if md.NumRows < 0 || md.NumRows > MaxRows {
		return fmt.Errorf("the file says it has %d rows; Waymark imports at most %d tasks from one Parquet file: split it", md.NumRows, MaxRows)
	}
	var rows, decoded int64
	for gi, g := range md.RowGroups {
		if g.NumRows < 0 || g.NumRows > MaxRows-rows {
			return fmt.Errorf("the file's row groups hold more than %d rows (or a negative count); Waymark imports at most %d tasks from one Parquet file", MaxRows, MaxRows)
		}
		rows += g.NumRows
		for ci, c := range g.Columns {
			where := fmt.Sprintf("row group %d, column %d", gi+1, ci+1)
			if c.FilePath != "" {
				return fmt.Errorf("%s is stored in another file (%q); Waymark imports self-contained Parquet files", where, c.FilePath)
			}
			m := c.MetaData
			switch m.Codec {
			case format.Uncompressed, format.Snappy, format.Gzip, format.Zstd:
			default:
				return fmt.Errorf("%s uses the %s compression, which Waymark does not import; save the file with snappy, zstd, gzip or no compression", where, m.Codec)
			}
			start := m.DataPageOffset
			if m.DictionaryPageOffset != 0 {
				start = m.DictionaryPageOffset
			}
			if start < 4 || m.TotalCompressedSize < 0 || m.TotalCompressedSize > dataEnd-start {
				return fmt.Errorf("the file is truncated or not a Parquet file: %s says its data is at bytes %d–%d, outside the file's %d bytes of data", where, start, start+m.TotalCompressedSize, dataEnd)
			}
			if m.NumValues < 0 || m.NumValues > maxParquetValues {
				return fmt.Errorf("%s says it has %d values; Waymark reads at most %d per column chunk", where, m.NumValues, maxParquetValues)
			}
			n, err := checkPages(data[start:start+m.TotalCompressedSize], m.Codec)
			if err != nil {
				return fmt.Errorf("the file is truncated or not a valid Parquet file: %s: %v", where, err)
			}
			if decoded += n; decoded > maxParquetDecoded {
				return fmt.Errorf("the file's pages hold more than %d MB once decompressed; Waymark imports smaller task files: split it", maxParquetDecoded>>20)
			}
		}
	}
	return nil
}

// checkPages walks a column chunk's pages and returns the bytes they take
// once decompressed.
func checkPages(chunk []byte, codec format.CompressionCodec) (int64, error) {
	var total int64
	for pos := 0; pos < len(chunk); {
		n, err := checkThrift(chunk[pos:])
		if err != nil {
			return 0, fmt.Errorf("page header at byte %d: %v", pos, err)
		}
		var h format.PageHeader
		if err := thrift.Unmarshal(new(thrift.CompactProtocol), chunk[pos:pos+n], &h); err != nil {
			return 0, fmt.Errorf("page header at byte %d: %v", pos, err)
		}
		pos += n
		if h.CompressedPageSize < 0 || int(h.CompressedPageSize) > len(chunk)-pos {
			return 0, fmt.Errorf("a page says it has %d bytes, but %d remain", h.CompressedPageSize, len(chunk)-pos)
		}
		if h.UncompressedPageSize < 0 || h.UncompressedPageSize > maxParquetPage {
			return 0, fmt.Errorf("a page says it holds %d bytes; Waymark reads pages of at most %d MB", h.UncompressedPageSize, maxParquetPage>>20)
		}
		values := int32(0)
		page := chunk[pos : pos+int(h.CompressedPageSize)]
		switch {
		case h.DataPageHeader.Valid:
			values = h.DataPageHeader.V.NumValues
		case h.DictionaryPageHeader.Valid:
			values = h.DictionaryPageHeader.V.NumValues
		case h.DataPageHeaderV2.Valid:
			v := h.DataPageHeaderV2.V
			values = v.NumValues
			levels := int64(v.RepetitionLevelsByteLength) + int64(v.DefinitionLevelsByteLength)
			if v.RepetitionLevelsByteLength < 0 || v.DefinitionLevelsByteLength < 0 || levels > int64(len(page)) || v.NumNulls < 0 || v.NumRows < 0 {
				return 0, errors.New("a page's level lengths do not fit in it")
			}
			if v.NumNulls > v.NumValues {
				return 0, fmt.Errorf("a page says %d of its %d values are null", v.NumNulls, v.NumValues)
			}
			page = page[levels:]
		}
		if values < 0 || values > maxParquetValues {
			return 0, fmt.Errorf("a page says it has %d values; Waymark reads at most %d", values, maxParquetValues)
		}
		if err := checkDecodedSize(page, codec, int64(h.UncompressedPageSize)); err != nil {
			return 0, err
		}
		total += int64(h.UncompressedPageSize)
		pos += int(h.CompressedPageSize)
	}
	return total, nil
}

// checkDecodedSize bounds what decompressing a page produces: the codecs
// allocate what the compressed data says it will produce.
func checkDecodedSize(page []byte, codec format.CompressionCodec, want int64) error {
	tooBig := func(n int64) error {
		return fmt.Errorf("a compressed page unpacks to %d bytes or more, more than the %d it states", n, want)
	}
	switch codec {
	case format.Snappy:
		if len(page) == 0 {
			return nil
		}
		n, k := binary.Uvarint(page)
		if k <= 0 {
			return errors.New("a snappy page is damaged")
		}
		if n > uint64(want) {
			return tooBig(int64(min(n, 1<<62)))
		}
	case format.Gzip:
		zr, err := gzip.NewReader(bytes.NewReader(page))
		if err != nil {
			return fmt.Errorf("a gzip page is damaged: %v", err)
		}
		n, err := io.Copy(io.Discard, io.LimitReader(zr, want+1))
		if err != nil {
			return fmt.Errorf("a gzip page is damaged: %v", err)
		}
		if n > want {
			return tooBig(n)
		}
	case format.Zstd:
		n, err := zstdDecodedBound(page)
		if err != nil {
			return err
		}
		if n > maxParquetPage {
			return tooBig(n)
		}
	}
	return nil
}

// zstdDecodedBound walks zstd frames and blocks and returns an upper bound of
// the decoded size (each compressed block yields at most 128 KiB).
func zstdDecodedBound(b []byte) (int64, error) {
	bad := errors.New("a zstd page is damaged")
	var total int64
	for len(b) > 0 {
		if len(b) < 4 {
			return 0, bad
		}
		magic := binary.LittleEndian.Uint32(b)
		if magic&0xfffffff0 == 0x184d2a50 { // skippable frame
			if len(b) < 8 {
				return 0, bad
			}
			n := uint64(binary.LittleEndian.Uint32(b[4:]))
			if n > uint64(len(b)-8) {
				return 0, bad
			}
			b = b[8+n:]
			continue
		}
		if magic != 0xfd2fb528 || len(b) < 5 {
			return 0, bad
		}
		fhd := b[4]
		single := fhd>>5&1 == 1
		hdr := 5
		if !single {
			hdr++ // window descriptor
		}
		hdr += []int{0, 1, 2, 4}[fhd&3]
		fcsSize := []int{0, 2, 4, 8}[fhd>>6]
		if fhd>>6 == 0 && single {
			fcsSize = 1
		}
		hdr += fcsSize
		if len(b) < hdr {
			return 0, bad
		}
		if fcsSize > 0 {
			var fcs uint64
			for i := fcsSize - 1; i >= 0; i-- {
				fcs = fcs<<8 | uint64(b[hdr-fcsSize+i])
			}
			if fcsSize == 2 {
				fcs += 256
			}
			if fcs > maxParquetPage {
				return int64(min(fcs, 1<<62)), nil
			}
		}
		b = b[hdr:]
		for {
			if len(b) < 3 {
				return 0, bad
			}
			bh := uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16
			last, typ, size := bh&1 == 1, bh>>1&3, int64(bh>>3)
			b = b[3:]
			switch typ {
			case 0: // raw
				if size > int64(len(b)) {
					return 0, bad
				}
				b = b[size:]
				total += size
			case 1: // RLE: one byte repeated size times
				if len(b) < 1 {
					return 0, bad
				}
				b = b[1:]
				total += size
			case 2: // compressed
				if size > int64(len(b)) {
					return 0, bad
				}
				b = b[size:]
				total += 128 << 10
			default:
				return 0, bad
			}
			if total > maxParquetPage {
				return total, nil
			}
			if last {
				break
			}
		}
		if fhd>>2&1 == 1 { // content checksum
			if len(b) < 4 {
				return 0, bad
			}
			b = b[4:]
		}
	}
	return total, nil
}
