package ingest

import (
	"context"
	"slices"
	"time"

	"github.com/google/uuid"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/ste-utility/ste/analytics/rows"
)

// sink buffers one topic's rows for its table, per partition, so that the
// rows of a partition the group takes away can be dropped alone.
type sink interface {
	topic() string
	table() string
	// add decodes a record into the batch; a bad record still counts (its
	// offset is committed with the batch) but adds no row.
	add(r *kgo.Record, src rows.Source) (rows int, err error)
	records() int
	rows() int
	since() time.Time // when the batch's first record was buffered
	epoch(p int32) int32
	// batch freezes the buffered rows into the next insert.
	batch(ns string, id uuid.UUID) Batch
	insert(ctx context.Context, token string) error
	reset()
	drop(partitions []int32)
}

type part[T any] struct {
	first, last int64
	epoch       int32
	records     int
	rows        []T
}

type typedSink[T any] struct {
	topicName, tableName string
	decode               func(dst []T, src rows.Source, value []byte) ([]T, error)
	write                func(ctx context.Context, token string, rs []T) error

	parts   map[int32]*part[T]
	nrec    int
	nrows   int
	first   time.Time
	pending []T // the frozen batch
}

func newSink[T any](topic, table string, decode func([]T, rows.Source, []byte) ([]T, error),
	write func(context.Context, string, []T) error) sink {
	return &typedSink[T]{topicName: topic, tableName: table, decode: decode, write: write, parts: map[int32]*part[T]{}}
}

// one adapts a decoder of one row per record.
func one[T any](f func(rows.Source, []byte) (T, error)) func([]T, rows.Source, []byte) ([]T, error) {
	return func(dst []T, src rows.Source, v []byte) ([]T, error) {
		r, err := f(src, v)
		if err != nil {
			return dst, err
		}
		return append(dst, r), nil
	}
}

func (s *typedSink[T]) topic() string    { return s.topicName }
func (s *typedSink[T]) table() string    { return s.tableName }
func (s *typedSink[T]) records() int     { return s.nrec }
func (s *typedSink[T]) rows() int        { return s.nrows }
func (s *typedSink[T]) since() time.Time { return s.first }

func (s *typedSink[T]) epoch(p int32) int32 {
	if pt := s.parts[p]; pt != nil {
		return pt.epoch
	}
	return -1
}

func (s *typedSink[T]) add(r *kgo.Record, src rows.Source) (int, error) {
	pt := s.parts[r.Partition]
	if pt == nil {
		pt = &part[T]{first: r.Offset}
		s.parts[r.Partition] = pt
	}
	if s.nrec == 0 {
		s.first = time.Now()
	}
	pt.last, pt.epoch = r.Offset, r.LeaderEpoch
	pt.records++
	s.nrec++
	before := len(pt.rows)
	var err error
	pt.rows, err = s.decode(pt.rows, src, r.Value)
	n := len(pt.rows) - before
	s.nrows += n
	return n, err
}

func (s *typedSink[T]) batch(ns string, id uuid.UUID) Batch {
	ps := make([]int32, 0, len(s.parts))
	for p := range s.parts {
		ps = append(ps, p)
	}
	slices.Sort(ps)
	b := Batch{Table: s.tableName, Rows: s.nrows}
	s.pending = make([]T, 0, s.nrows)
	for _, p := range ps {
		pt := s.parts[p]
		b.Ranges = append(b.Ranges, Range{Topic: s.topicName, Partition: p, First: pt.first, Last: pt.last})
		s.pending = append(s.pending, pt.rows...)
	}
	b.Token = batchToken(ns, s.tableName, id, b.Ranges)
	return b
}

func (s *typedSink[T]) insert(ctx context.Context, token string) error {
	if len(s.pending) == 0 {
		return nil // only bad records: nothing to write, offsets to commit
	}
	return s.write(ctx, token, s.pending)
}

func (s *typedSink[T]) reset() {
	s.parts = map[int32]*part[T]{}
	s.nrec, s.nrows, s.pending = 0, 0, nil
}

func (s *typedSink[T]) drop(partitions []int32) {
	for _, p := range partitions {
		if pt := s.parts[p]; pt != nil {
			s.nrec -= pt.records
			s.nrows -= len(pt.rows)
			delete(s.parts, p)
		}
	}
}
