package hfexport

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/parquet-go/parquet-go"
)

// The Parquet files a config's split is written to: rows go to the
// current shard, a row group is flushed at maxGroupRows rows or
// maxGroupImageBytes of images, a shard is closed after the episode that
// takes it to MaxShardBytes, and the shards get their final names at the
// end.

// shard is one Parquet file being written.
type shard[T any] struct {
	f         *os.File
	cw        *countingWriter
	w         *parquet.GenericWriter[T]
	tmpName   string
	groupRows int
	groupImg  int64
}

// shardSet writes one config's split as a series of shards.
type shardSet[T any] struct {
	x        *exporter
	config   string // folder: steps or episodes
	split    string
	imageCol string
	meta     string
	cur      *shard[T]
	done     []string // temporary names of closed shards, in order
	rows     int
}

func newShardSet[T any](x *exporter, config, split, imageCol string, fs []feature) *shardSet[T] {
	return &shardSet[T]{x: x, config: config, split: split, imageCol: imageCol, meta: featuresJSON(fs)}
}

func (s *shardSet[T]) open() error {
	dir := filepath.Join(s.x.root, s.config)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	name := fmt.Sprintf("%s.partial-%05d.parquet", s.split, len(s.done))
	f, err := os.Create(filepath.Join(dir, name))
	if err != nil {
		return err
	}
	cw := &countingWriter{w: f, total: &s.x.bytes}
	if wrapFile != nil {
		cw.w = wrapFile(f)
	}
	w := parquet.NewGenericWriter[T](cw,
		parquet.KeyValueMetadata("huggingface", s.meta),
		parquet.CreatedBy("waymark", "1", "hfexport"),
		parquet.MaxRowsPerRowGroup(maxGroupRows),
		parquet.Compression(&parquet.Snappy),
		parquet.DefaultEncodingFor(parquet.ByteArray, &parquet.Plain),
		parquet.SkipPageBounds(s.imageCol, "bytes"),
		parquet.SkipPageStatistics(s.imageCol, "bytes"),
	)
	s.cur = &shard[T]{f: f, cw: cw, w: w, tmpName: name}
	return nil
}

// write adds a row; imgBytes is the size of its image, for the row-group cap.
func (s *shardSet[T]) write(row T, imgBytes int) error {
	if s.cur == nil {
		if err := s.open(); err != nil {
			return err
		}
	}
	c := s.cur
	if _, err := c.w.Write([]T{row}); err != nil {
		return err
	}
	s.rows++
	c.groupRows++
	c.groupImg += int64(imgBytes)
	if c.groupRows >= maxGroupRows || c.groupImg >= maxGroupImageBytes {
		if err := c.w.Flush(); err != nil {
			return err
		}
		c.groupRows, c.groupImg = 0, 0
	}
	return nil
}

// endEpisode closes the shard when it has reached the size limit, so shards
// hold whole episodes.
func (s *shardSet[T]) endEpisode() error {
	if s.cur != nil && s.cur.w.Size() >= s.x.o.MaxShardBytes {
		return s.closeShard()
	}
	return nil
}

func (s *shardSet[T]) closeShard() error {
	c := s.cur
	if c == nil {
		return nil
	}
	s.cur = nil
	err := c.w.Close()
	if err == nil {
		err = c.f.Sync()
	}
	if cerr := c.f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	s.done = append(s.done, c.tmpName)
	return nil
}

// finish closes the last shard and gives the shards their final names
// (split-00000-of-00003.parquet).
func (s *shardSet[T]) finish() error {
	if err := s.closeShard(); err != nil {
		return err
	}
	dir := filepath.Join(s.x.root, s.config)
	for i, tmp := range s.done {
		final := fmt.Sprintf("%s-%05d-of-%05d.parquet", s.split, i, len(s.done))
		if err := os.Rename(filepath.Join(dir, tmp), filepath.Join(dir, final)); err != nil {
			return err
		}
		s.x.files = append(s.x.files, s.config+"/"+final)
	}
	return nil
}

func (s *shardSet[T]) abort() {
	if s.cur != nil {
		s.cur.f.Close()
		s.cur = nil
	}
}
