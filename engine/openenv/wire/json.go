package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// Field is one key of an ordered JSON object. It is an unnamed struct type,
// so that every package may write its literals unkeyed (Field{"url", u}).
type Field = struct {
	Key string
	Val any // json.RawMessage for pre-encoded values
}

// Obj encodes fields as a compact JSON object in the given order. Values are
// encoded without HTML escaping, as Python's json module does.
func Obj(fields ...Field) json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, f := range fields {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(Enc(f.Key))
		b.WriteByte(':')
		b.Write(Enc(f.Val))
	}
	b.WriteByte('}')
	return b.Bytes()
}

// Enc encodes v compactly without HTML escaping; a json.RawMessage is
// written as it is.
func Enc(v any) []byte {
	if r, ok := v.(json.RawMessage); ok {
		return r
	}
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	if err := e.Encode(v); err != nil {
		// Only unsupported values (NaN, channels) land here; never on our data.
		return []byte("null")
	}
	return bytes.TrimRight(b.Bytes(), "\n")
}

// Decode decodes one JSON value with numbers kept as json.Number, and
// explains a syntax error the way Python's json module does ("Expecting
// value: line 1 column 1 (char 0)"), since OpenEnv clients may show it.
func Decode(data []byte) (any, error) {
	// encoding/json would turn invalid UTF-8 into U+FFFD, and a type
	// action would then type characters nobody sent.
	if !utf8.Valid(data) {
		off := 0
		for off < len(data) {
			r, n := utf8.DecodeRune(data[off:])
			if r == utf8.RuneError && n <= 1 {
				break
			}
			off += n
		}
		return nil, pyJSONError(fmt.Sprintf("the message is not valid UTF-8 (byte 0x%02x)", data[off]), data, off)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	if err == nil {
		// Anything but whitespace after the value is "Extra data".
		off := int(dec.InputOffset())
		rest := data[off:]
		trimmed := bytes.TrimLeft(rest, " \t\r\n")
		if len(trimmed) == 0 {
			return v, nil
		}
		return nil, pyJSONError("Extra data", data, off+len(rest)-len(trimmed))
	}
	var se *json.SyntaxError
	switch {
	case errors.As(err, &se):
		msg := se.Error()
		pos := int(se.Offset) - 1
		if pos < 0 {
			pos = 0
		}
		switch {
		case strings.Contains(msg, "looking for beginning of object key"):
			return nil, pyJSONError("Expecting property name enclosed in double quotes", data, pos)
		case strings.Contains(msg, "after object key:value pair"), strings.Contains(msg, "after array element"):
			return nil, pyJSONError("Expecting ',' delimiter", data, pos)
		case strings.Contains(msg, "after object key"):
			return nil, pyJSONError("Expecting ':' delimiter", data, pos)
		case strings.Contains(msg, "after top-level value"):
			return nil, pyJSONError("Extra data", data, pos)
		case strings.Contains(msg, "exceeded max depth"):
			return nil, pyJSONError(fmt.Sprintf("JSON nested too deeply (more than %d levels of arrays and objects)", MaxJSONDepth), data, pos)
		case strings.Contains(msg, "in string"):
			return nil, pyJSONError("Invalid control character at", data, pos)
		}
		return nil, pyJSONError("Expecting value", data, pos)
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return nil, pyJSONError("Expecting value", data, len(data))
	}
	return nil, pyJSONError("Expecting value", data, 0)
}

// MaxJSONDepth is encoding/json's nesting limit.
const MaxJSONDepth = 10000

// pyJSONError formats "<msg>: line L column C (char N)" with N counted in
// characters, as Python does.
func pyJSONError(msg string, data []byte, byteOff int) error {
	if byteOff > len(data) {
		byteOff = len(data)
	}
	prefix := data[:byteOff]
	char := utf8.RuneCount(prefix)
	line := bytes.Count(prefix, []byte("\n")) + 1
	col := char + 1
	if i := bytes.LastIndexByte(prefix, '\n'); i >= 0 {
		col = utf8.RuneCount(prefix[i+1:]) + 1
	}
	return fmt.Errorf("%s: line %d column %d (char %d)", msg, line, col, char)
}
