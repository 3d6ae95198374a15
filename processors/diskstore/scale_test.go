package diskstore_test

import (
	"encoding/binary"
	"errors"
	"io"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ste-utility/ste/processors/diskstore"
	"github.com/ste-utility/ste/processors/envelope"
	"github.com/ste-utility/ste/processors/matching"
	"github.com/ste-utility/ste/processors/memstore"
	"github.com/ste-utility/ste/processors/validation"
	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/schemas/msgset"
	"github.com/ste-utility/ste/schemas/refdata"
	"github.com/ste-utility/ste/testgate"
	"github.com/ste-utility/ste/topology"
)

// TestHoldAtScale is a measurement, not a check (docs/benchmarks.md): it
// fills one instance's tables from a real message set the way the identity
// and match stages do — decode and validate without the signature, read
// the identity and the trade, apply the message, write both back, each
// write acknowledged at once — then reports the process's RSS holding that
// state and how long the tables take to be ready again after a reopen.
// Nothing of Kafka runs; a 7 M-message run's broker log would not fit on
// this machine's disk.
//
//	DISKSTORE_SCALE_SET=set.zst DISKSTORE_SCALE_REFDATA=dir go test -run TestHoldAtScale -v -timeout 2h ./processors/diskstore
func TestHoldAtScale(t *testing.T) {
	testgate.Opt(t, "hold-at-scale")
	set := os.Getenv("DISKSTORE_SCALE_SET")
	ref := refdata.Default()
	if dir := os.Getenv("DISKSTORE_SCALE_REFDATA"); dir != "" {
		var err error
		if ref, err = refdata.LoadDir(dir); err != nil {
			t.Fatal(err)
		}
	}
	const parts = 8
	n := topology.Names{NS: "scale"}
	idTable, matchTable := topology.Table(n.IdentityGroup()), topology.Table(n.MatchGroup())
	retention := int64(72 * time.Hour)
	idIndex := func(v []byte) (int64, int64, bool) {
		if len(v) != 33 {
			return 0, 0, false
		}
		c := int64(binary.BigEndian.Uint64(v[17:25]))
		return c + retention + int64(24*time.Hour), c, true
	}
	matchIndex := func(v []byte) (int64, int64, bool) {
		tomb, at, ok := matching.Header(v)
		if !ok {
			return 0, 0, false
		}
		if tomb {
			return at + int64(30*24*time.Hour), at, true
		}
		return at + retention, at, true
	}
	dir := t.TempDir()
	open := func() (*diskstore.DB, [2][parts]*diskstore.Store, time.Duration) {
		start := time.Now()
		db, err := diskstore.Open(diskstore.Options{Dir: dir, Logger: quiet})
		if err != nil {
			t.Fatal(err)
		}
		var stores [2][parts]*diskstore.Store
		var wg sync.WaitGroup
		for i, tb := range []struct {
			topic string
			index memstore.Index
		}{{idTable, idIndex}, {matchTable, matchIndex}} {
			build := db.Builder(tb.index, func(_ string, p int32, s *diskstore.Store) { stores[i][p] = s })
			for p := range int32(parts) {
				wg.Add(1)
				go func() { // goka opens and recovers partitions in parallel
					defer wg.Done()
					st, err := build(tb.topic, p)
					if err == nil {
						err = st.MarkRecovered()
					}
					if err != nil {
						t.Error(err)
					}
				}()
			}
		}
		wg.Wait()
		return db, stores, time.Since(start)
	}
	db, stores, _ := open()

	r, err := msgset.Open(set)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	v := validation.New(ref, validation.WithoutSignatureVerification())
	var dec schemas.Decoder
	cfg := matching.Config{ReemitHistory: true}
	it := matching.Interner{}
	offsets := map[*diskstore.Store]int64{}
	write := func(s *diskstore.Store, key string, val []byte) {
		if err := s.Set(key, val); err != nil {
			t.Fatal(err)
		}
		diskstore.Ack(s, key, offsets[s])
		offsets[s]++
	}
	start := time.Now()
	msgs, skipped := 0, 0
	for {
		rec, _, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		vd := v.Inspect(&dec, rec)
		if vd.Rej != nil {
			skipped++
			continue
		}
		msgs++
		idKey := envelope.IdentityKey(vd.Msg.Sender, vd.Msg.MsgId)
		ids := stores[0][topology.Fnv32a([]byte(idKey))%parts]
		if old, _ := ids.Get(idKey); old == nil {
			iv := append([]byte{1}, vd.Digest[:]...)
			iv = binary.BigEndian.AppendUint64(iv, uint64(vd.Msg.Created))
			write(ids, idKey, binary.BigEndian.AppendUint64(iv, uint64(vd.Msg.Key.TradeKey())))
			ids.DropDue(ids.Clock() - 1)
		}
		tk := vd.Msg.Key.TradeKey()
		ms := stores[1][topology.Fnv32a([]byte(tk.String()))%parts]
		tr := matching.NewTrade(tk, nil)
		if old, _ := ms.Get(tk.String()); old != nil {
			if tr, err = matching.UnmarshalTrade(old, it); err != nil {
				t.Fatal(err)
			}
		}
		if _, res := tr.Apply(&matching.Inbound{Msg: vd.Msg, Digest: vd.Digest, NetUnits: vd.NetUnits}, &cfg, it); res == matching.Applied {
			b, _ := tr.MarshalBinary()
			write(ms, tk.String(), b)
		}
		ms.Due(ms.Clock() - 1)
		if msgs%1_000_000 == 0 {
			t.Logf("%d messages, %.0f s", msgs, time.Since(start).Seconds())
		}
	}
	fill := time.Since(start)
	keys := [2]int{}
	for i := range stores {
		for _, s := range stores[i] {
			keys[i] += s.Len()
		}
	}
	time.Sleep(time.Second) // the committer's last round
	rssFilled := settledRSS()
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	rssClosed := settledRSS()
	db, stores, ready := open()
	rssReady := settledRSS()
	// A trade read back (from Pebble now) and a second time (kept hot).
	for _, s := range stores[1] {
		itr, _ := s.Iterator()
		for i := 0; i < 1000 && itr.Next(); i++ {
			s.Get(string(itr.Key()))
		}
		itr.Release()
	}
	rssRead := settledRSS()
	var restored int64
	for i := range stores {
		for _, s := range stores[i] {
			restored += s.Restored()
		}
	}
	db.Close()
	du, _ := exec.Command("du", "-sm", dir).Output()
	t.Logf("%d messages (%d rejected) into %d identities and %d trades in %.0f s (%.1f µs per message)",
		msgs, skipped, keys[0], keys[1], fill.Seconds(), fill.Seconds()/float64(msgs)*1e6)
	t.Logf("RSS holding them: %d MB; after closing the database %d MB; reopened (16 partitions, %d records restored) in %.2f s: %d MB; after reading 8,000 trades: %d MB; on disk %s MB",
		rssFilled, rssClosed, restored, ready.Seconds(), rssReady, rssRead, strings.Fields(string(du))[0])
}

// settledRSS is the process's RSS in MB after the garbage is collected and
// returned: what the process holds, not what the collector has yet to free.
func settledRSS() int {
	runtime.GC()
	debug.FreeOSMemory()
	b, _ := os.ReadFile("/proc/self/status")
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "VmRSS:") {
			kb, _ := strconv.Atoi(strings.Fields(l)[1])
			return kb / 1024
		}
	}
	panic("no VmRSS in /proc/self/status")
}
