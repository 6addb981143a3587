package app

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"waymark/engine/action"
)

// The input side of play, shared by its three modes (Waymark actions,
// BrowserGym action strings, --attach): one action a line, every line
// answered with one line.

// playRefusal answers a line that is not a valid action.
type playRefusal struct {
	Line   int                 `json:"line"`
	Error  string              `json:"error"`
	Errors []action.FieldError `json:"errors,omitempty"`
}

// actionRefusal refuses line n, whose action did not parse (err), with
// the fields at fault when err names them.
func actionRefusal(n int, err error) *playRefusal {
	ref := &playRefusal{Line: n, Error: err.Error()}
	var ve *action.ValidationError
	if errors.As(err, &ve) {
		ref.Errors = ve.Errors
	}
	return ref
}

// maxPlayLine bounds one line of play's input. Longer lines are refused one
// by one; the episode goes on.
const maxPlayLine = 1 << 20

var errPlayDone = errors.New("episode done")

// playStep performs line n of the input (without its line ending) and
// prints its answer, or returns the refusal to print instead; done says
// the episode is over.
type playStep func(n int, line []byte) (refusal *playRefusal, done bool, err error)

// answerLines answers every line of in, in order, on out: a line over
// maxPlayLine bytes is refused (what says what an action is, for the
// refusal), every other line goes to step. It returns at the end of the
// input, at the end of the episode (done), at step's error, or with
// "interrupted" when ctx ends while a line is performed.
func answerLines(ctx context.Context, in io.Reader, out *json.Encoder, what string, step playStep) (done bool, err error) {
	err = readActionLines(in, maxPlayLine, func(n int, line []byte, size int) error {
		if line == nil {
			return out.Encode(playRefusal{Line: n, Error: fmt.Sprintf("line %d has %d bytes, more than the %d a line may have%s; it was skipped", n, size, maxPlayLine, what)})
		}
		ref, done, err := step(n, line)
		switch {
		case err != nil:
			return err
		case ref != nil:
			return out.Encode(ref)
		case done:
			return errPlayDone
		case ctx.Err() != nil:
			return errors.New("interrupted")
		}
		return nil
	})
	if errors.Is(err, errPlayDone) {
		return true, nil
	}
	return false, err
}

// readActionLines calls fn for each line of r, numbered from 1, without its
// line ending. A line longer than max bytes is read through without being
// kept: fn gets nil and the line's size. fn's error stops the reading.
func readActionLines(r io.Reader, max int, fn func(n int, line []byte, size int) error) error {
	br := bufio.NewReaderSize(r, 64<<10)
	var buf []byte
	for n := 1; ; n++ {
		buf = buf[:0]
		size, over := 0, false
		var err error
		for {
			var chunk []byte
			chunk, err = br.ReadSlice('\n')
			size += len(chunk)
			if !over {
				if ended := len(chunk) > 0 && chunk[len(chunk)-1] == '\n'; size-1 > max || (size > max && !ended) {
					over = true
				} else {
					buf = append(buf, chunk...)
				}
			}
			if err != bufio.ErrBufferFull {
				break
			}
		}
		if err != nil && err != io.EOF {
			return fmt.Errorf("reading actions: %w", err)
		}
		if size == 0 && err == io.EOF {
			return nil
		}
		var line []byte
		if !over {
			line = bytes.TrimSuffix(bytes.TrimSuffix(buf, []byte("\n")), []byte("\r"))
			if line == nil {
				line = []byte{}
			}
		} else if size > 0 && err == nil {
			size-- // the line ending
		}
		if ferr := fn(n, line, size); ferr != nil {
			return ferr
		}
		if err == io.EOF {
			return nil
		}
	}
}
