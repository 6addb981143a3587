package taskfile

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// The check of a Parquet file's Thrift metadata before parquet-go decodes it
// (see parquet.go): every length and count must fit in the bytes that remain
// and in maxThriftAlloc.

var errThriftBad = errors.New("its metadata is damaged")

// thriftWalker checks compact-protocol Thrift data without allocating: every
// length and count must fit in the bytes that remain.
type thriftWalker struct {
	b     []byte
	pos   int
	alloc int64
}

func (w *thriftWalker) byte1() (byte, error) {
	if w.pos >= len(w.b) {
		return 0, errThriftBad
	}
	c := w.b[w.pos]
	w.pos++
	return c, nil
}

func (w *thriftWalker) uvarint() (uint64, error) {
	v, n := binary.Uvarint(w.b[w.pos:])
	if n <= 0 {
		return 0, errThriftBad
	}
	w.pos += n
	return v, nil
}

func (w *thriftWalker) left() uint64 { return uint64(len(w.b) - w.pos) }

func (w *thriftWalker) charge(count uint64, elem byte) error {
	cost := int64(8)
	switch elem {
	case 8:
		cost = 24
	case 9, 10, 11:
		cost = 48
	case 12:
		cost = thriftStructCost
	}
	w.alloc += int64(count) * cost
	if w.alloc > maxThriftAlloc {
		return fmt.Errorf("%w (its lists would need more than %d MB)", errThriftBad, maxThriftAlloc>>20)
	}
	return nil
}

// value skips one value of compact type t.
func (w *thriftWalker) value(t byte, depth int, inList bool) error {
	if depth > maxThriftDepth {
		return fmt.Errorf("%w (nested more than %d levels)", errThriftBad, maxThriftDepth)
	}
	switch t {
	case 1, 2: // booleans: in a struct the type is the value; in a list, one byte
		if inList {
			_, err := w.byte1()
			return err
		}
		return nil
	case 3:
		_, err := w.byte1()
		return err
	case 4, 5, 6:
		_, err := w.uvarint()
		return err
	case 7:
		if w.left() < 8 {
			return errThriftBad
		}
		w.pos += 8
		return nil
	case 8:
		n, err := w.uvarint()
		if err != nil || n > w.left() {
			return errThriftBad
		}
		w.pos += int(n)
		return nil
	case 9, 10:
		h, err := w.byte1()
		if err != nil {
			return err
		}
		n, et := uint64(h>>4), h&0x0f
		if n == 15 {
			if n, err = w.uvarint(); err != nil {
				return err
			}
		}
		if n > w.left() { // every element takes at least one byte
			return errThriftBad
		}
		if err := w.charge(n, et); err != nil {
			return err
		}
		for range n {
			if err := w.value(et, depth+1, true); err != nil {
				return err
			}
		}
		return nil
	case 11:
		n, err := w.uvarint()
		if err != nil {
			return err
		}
		if n == 0 {
			return nil
		}
		kv, err := w.byte1()
		if err != nil || n > w.left()/2 {
			return errThriftBad
		}
		if err := w.charge(2*n, 12); err != nil {
			return err
		}
		for range n {
			if err := w.value(kv>>4, depth+1, true); err != nil {
				return err
			}
			if err := w.value(kv&0x0f, depth+1, true); err != nil {
				return err
			}
		}
		return nil
	case 12:
		return w.structure(depth + 1)
	}
	return fmt.Errorf("%w (unknown Thrift type %d)", errThriftBad, t)
}

func (w *thriftWalker) structure(depth int) error {
	if depth > maxThriftDepth {
		return fmt.Errorf("%w (nested more than %d levels)", errThriftBad, maxThriftDepth)
	}
	for {
		h, err := w.byte1()
		if err != nil {
			return err
		}
		if h == 0 {
			return nil
		}
		if h>>4 == 0 { // the field id follows as a zigzag varint
			if _, err := w.uvarint(); err != nil {
				return err
			}
		}
		if err := w.value(h&0x0f, depth, false); err != nil {
			return err
		}
	}
}

// checkThrift checks one Thrift struct at the start of b and returns its length.
func checkThrift(b []byte) (int, error) {
	w := thriftWalker{b: b}
	if err := w.structure(0); err != nil {
		return 0, err
	}
	return w.pos, nil
}
