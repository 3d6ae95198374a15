package fixgw

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/quickfixgo/quickfix"
	"github.com/quickfixgo/quickfix/config"
	"github.com/quickfixgo/quickfix/store/file"
)

// The store of docs/spec/adapters.md §4.1: a directory holding the
// quickfixgo file store (sequence numbers and sent messages per session,
// synced on every write) under sessions/, one output cursor per session
// under cursors/, and the LOCK file one process holds exclusively.

// ErrLocked: another process holds the store.
type ErrLocked struct{ PID int }

func (e ErrLocked) Error() string {
	if e.PID > 0 {
		return "store locked by pid " + strconv.Itoa(e.PID)
	}
	return "store locked by another process"
}

// Lock is the store's exclusive lock.
type Lock struct{ f *os.File }

// LockStore takes the store's exclusive lock (flock on DIR/LOCK, which
// names the holder's pid), creating DIR; ErrLocked when another process
// holds it.
func LockStore(dir string) (*Lock, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("--store: %v", err)
	}
	f, err := os.OpenFile(filepath.Join(dir, "LOCK"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("--store: %v", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		b := make([]byte, 32)
		n, _ := f.ReadAt(b, 0)
		f.Close()
		pid, _ := strconv.Atoi(strings.TrimSpace(string(b[:n])))
		return nil, ErrLocked{PID: pid}
	}
	f.Truncate(0)
	f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	f.Sync()
	return &Lock{f: f}, nil
}

// Release drops the lock.
func (l *Lock) Release() {
	if l != nil && l.f != nil {
		syscall.Flock(int(l.f.Fd()), syscall.LOCK_UN)
		l.f.Close()
		l.f = nil
	}
}

func inode(fi os.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Ino)
	}
	return 0
}

func sessionsDir(store string) string { return filepath.Join(store, "sessions") }
func cursorsDir(store string) string  { return filepath.Join(store, "cursors") }

// canonical is the store's session of id: (FIX.4.4, comp-id, BIC) — SubID
// and LocationID fields are ignored (§4.2), so they never make a session of
// their own.
func canonical(id quickfix.SessionID) quickfix.SessionID {
	return quickfix.SessionID{BeginString: id.BeginString, SenderCompID: id.SenderCompID, TargetCompID: id.TargetCompID}
}

// storeFactory makes the sessions' stores: quickfixgo's file store under
// DIR/sessions (FileStoreSync=Y), one per canonical session, and a
// suppressible increment of the inbound sequence number (the ack point,
// §4.4: a message whose records the brokers did not acknowledge is not
// consumed). The listener's placeholder session gets a memory store.
type storeFactory struct {
	inner       quickfix.MessageStoreFactory
	placeholder quickfix.SessionID

	mu     sync.Mutex
	stores map[quickfix.SessionID]*sessionStore
}

func newStoreFactory(dir string, placeholder quickfix.SessionID) *storeFactory {
	s := quickfix.NewSettings()
	g := s.GlobalSettings()
	g.Set(config.FileStorePath, sessionsDir(dir))
	g.Set(config.FileStoreSync, "Y")
	g.Set(config.DynamicSessions, "Y")
	return &storeFactory{inner: file.NewStoreFactory(s), placeholder: placeholder, stores: map[quickfix.SessionID]*sessionStore{}}
}

func (f *storeFactory) Create(id quickfix.SessionID) (quickfix.MessageStore, error) {
	if id == f.placeholder {
		return quickfix.NewMemoryStoreFactory().Create(id)
	}
	c := canonical(id)
	f.mu.Lock()
	defer f.mu.Unlock()
	// One session per BIC runs at a time (the front lets one connection
	// through per BIC): a store left by an ended session is closed first.
	if old := f.stores[c]; old != nil {
		old.Close()
		delete(f.stores, c)
	}
	inner, err := f.inner.Create(c)
	if err != nil {
		return nil, err
	}
	s := &sessionStore{MessageStore: inner}
	f.stores[c] = s
	return s, nil
}

// store is the live store of a BIC's session, if any.
func (f *storeFactory) store(id quickfix.SessionID) *sessionStore {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.stores[canonical(id)]
}

func (f *storeFactory) closeAll() {
	f.mu.Lock()
	defer f.mu.Unlock()
	for k, s := range f.stores {
		s.Close()
		delete(f.stores, k)
	}
}

// sessionStore is a file store whose inbound increment can be held back
// for the message being processed.
type sessionStore struct {
	quickfix.MessageStore
	mu       sync.Mutex
	suppress bool
	closed   bool
}

// holdNext makes the next IncrNextTargetMsgSeqNum (the one that follows the
// application callback that calls it) do nothing.
func (s *sessionStore) holdNext() {
	s.mu.Lock()
	s.suppress = true
	s.mu.Unlock()
}

func (s *sessionStore) IncrNextTargetMsgSeqNum() error {
	s.mu.Lock()
	hold := s.suppress
	s.suppress = false
	s.mu.Unlock()
	if hold {
		return nil
	}
	return s.MessageStore.IncrNextTargetMsgSeqNum()
}

func (s *sessionStore) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	return s.MessageStore.Close()
}

// Cursor is a session's output cursor (§4.7): where in its partition of
// <ns>.outbound delivery stands, and where it stood when delivery last
// resumed after an accepted Logon (what a sequence reset rewinds to).
type Cursor struct {
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"`
	// Next is the offset of the next record to handle; -1: the oldest
	// retained (a session's first Logon).
	Next int64 `json:"next"`
	// Resume is Next when delivery last resumed.
	Resume  int64     `json:"resume"`
	Updated time.Time `json:"updated"`
}

func cursorPath(store, bic string) string { return filepath.Join(cursorsDir(store), bic+".json") }

// LoadCursor reads bic's cursor; a session without one starts at the
// oldest record.
func LoadCursor(store, bic string) (Cursor, error) {
	b, err := os.ReadFile(cursorPath(store, bic))
	if errors.Is(err, os.ErrNotExist) {
		return Cursor{Partition: -1, Next: -1, Resume: -1}, nil
	}
	if err != nil {
		return Cursor{}, err
	}
	var c Cursor
	if err := json.Unmarshal(b, &c); err != nil {
		return Cursor{}, fmt.Errorf("%s: %v", cursorPath(store, bic), err)
	}
	return c, nil
}

// SaveCursor writes bic's cursor (a temporary file synced, then renamed
// over the old one). The directory is not synced: a rename lost with the
// machine leaves the previous cursor, whose outputs are sent again — a
// repeat, never a loss.
func SaveCursor(store, bic string, c Cursor) error {
	dir := cursorsDir(store)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	c.Updated = time.Now().UTC()
	b, _ := json.Marshal(c)
	tmp, err := os.CreateTemp(dir, "."+bic+"-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), cursorPath(store, bic))
}

// rewind is what a sequence reset does to the cursor (§4.2): back to where
// delivery last resumed, so the outputs the client may not have received
// under the discarded numbers are translated and sent again.
func rewind(c Cursor) Cursor {
	if c.Resume >= 0 || c.Next >= 0 {
		c.Next = c.Resume
	}
	return c
}

// ResetSeq is `ste fixgw reset-seq` (§4.1): under the store's lock, both
// sequence numbers of bic's session(s) to 1 (their stored messages
// discarded) and its output cursor rewound. It says which sessions it reset.
func ResetSeq(dir, bic string) ([]string, error) {
	lock, err := LockStore(dir)
	if err != nil {
		return nil, err
	}
	defer lock.Release()
	ids, err := sessionsOf(dir, bic)
	if err != nil {
		return nil, err
	}
	if len(ids) == 0 {
		return nil, fmt.Errorf("no session of %s in %s", bic, dir)
	}
	f := newStoreFactory(dir, quickfix.SessionID{})
	var done []string
	for _, id := range ids {
		s, err := f.inner.Create(id)
		if err != nil {
			return done, err
		}
		err = s.Reset()
		s.Close()
		if err != nil {
			return done, err
		}
		done = append(done, id.String())
	}
	c, err := LoadCursor(dir, bic)
	if err != nil {
		return done, err
	}
	if err := SaveCursor(dir, bic, rewind(c)); err != nil {
		return done, err
	}
	return done, nil
}

// sessionsOf are the sessions of bic in the store (whatever comp-id they
// were made under).
func sessionsOf(dir, bic string) ([]quickfix.SessionID, error) {
	files, err := filepath.Glob(filepath.Join(sessionsDir(dir), "FIX.4.4-*-"+bic+".session"))
	if err != nil {
		return nil, err
	}
	var out []quickfix.SessionID
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".session")
		rest := strings.TrimPrefix(name, "FIX.4.4-")
		comp := strings.TrimSuffix(rest, "-"+bic)
		if comp == "" || strings.Contains(comp, "-") {
			continue
		}
		out = append(out, quickfix.SessionID{BeginString: quickfix.BeginStringFIX44, SenderCompID: comp, TargetCompID: bic})
	}
	return out, nil
}

// SeqNums are a session's next sequence numbers as the store holds them.
func SeqNums(dir string, id quickfix.SessionID) (sender, target int, err error) {
	f := newStoreFactory(dir, quickfix.SessionID{})
	s, err := f.inner.Create(canonical(id))
	if err != nil {
		return 0, 0, err
	}
	defer s.Close()
	return s.NextSenderMsgSeqNum(), s.NextTargetMsgSeqNum(), nil
}
