package session

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// Every stored event carries a link of its session's event chain:
//
//	chain(seq) = SHA-256(chain(seq-1) ‖ seq ‖ len(type) ‖ type ‖ time ‖ payload)[:16]
//
// with chain(0) empty. A damaged payload, a changed or missing event in
// the middle of a history, or events from another history no longer
// verify. The chain does not name the session, so a fork copies its
// parent's links unchanged.
//
// Truncation of a history's tail (what a damaged WAL leaves: SQLite drops
// every frame from the first bad one on) is caught by the head: after each
// durable commit (see journal.commit) the journal writes the sequence
// number and chain link of its last event to locks/<id>.head beside the
// database. A store whose session ends before its head, or whose event at
// the head carries another link, lost acknowledged events; Open refuses it.

// chainSize is the length of a stored link.
const chainSize = 16

// link computes the chain link of an event that follows prev.
func link(prev []byte, seq int64, typ string, t int64, payload []byte) []byte {
	var l linker
	return l.link(nil, prev, seq, []byte(typ), t, payload)
}

// linker computes links with one reusable hash state: verifying a
// 10,000-event session allocates nothing per event.
type linker struct {
	h   hash.Hash
	buf [sha256.Size]byte
	hdr [24 + 64]byte
}

// link appends the link of an event that follows prev to dst.
func (l *linker) link(dst, prev []byte, seq int64, typ []byte, t int64, payload []byte) []byte {
	if l.h == nil {
		l.h = sha256.New()
	}
	l.h.Reset()
	l.h.Write(prev)
	hdr := binary.BigEndian.AppendUint64(l.hdr[:0], uint64(seq))
	hdr = binary.BigEndian.AppendUint64(hdr, uint64(len(typ)))
	hdr = append(hdr, typ...)
	hdr = binary.BigEndian.AppendUint64(hdr, uint64(t))
	l.h.Write(hdr)
	l.h.Write(payload)
	return append(dst, l.h.Sum(l.buf[:0])[:chainSize]...)
}

// head is the last durable event of a session as its journal recorded it
// outside the database.
type head struct {
	seq   int64
	chain []byte
}

// headPath is the head file of session id for the database at dbPath.
func headPath(dbPath, id string) string {
	return filepath.Join(filepath.Dir(dbPath), "locks", id+".head")
}

// headLine formats a head as its file holds it: one fixed-length line
// (so a rewrite in place needs no truncation) naming the store it belongs
// to, with a CRC, so that a torn or stale-block read (a power cut during
// the write) is told from a real head and ignored.
func headLine(store string, h head) []byte {
	body := fmt.Sprintf("rein-head 1 %s %020d %s", store, h.seq, hex.EncodeToString(h.chain))
	return fmt.Appendf(nil, "%s %08x\n", body, crc32.ChecksumIEEE([]byte(body)))
}

// errNoHead is a head file that is missing or does not parse.
var errNoHead = errors.New("no usable head")

// parseHead decodes a head file's content and the store it names;
// errNoHead for anything that is not exactly one well-formed line with
// its CRC.
func parseHead(data []byte) (string, head, error) {
	line, rest, ok := strings.Cut(string(data), "\n")
	if !ok || rest != "" {
		return "", head{}, errNoHead
	}
	i := strings.LastIndexByte(line, ' ')
	if i < 0 {
		return "", head{}, errNoHead
	}
	body, sum := line[:i], line[i+1:]
	want, err := strconv.ParseUint(sum, 16, 32)
	if err != nil || len(sum) != 8 || uint32(want) != crc32.ChecksumIEEE([]byte(body)) {
		return "", head{}, errNoHead
	}
	f := strings.Split(body, " ")
	if len(f) != 5 || f[0] != "rein-head" || f[1] != "1" || f[2] == "" {
		return "", head{}, errNoHead
	}
	seq, err := strconv.ParseInt(f[3], 10, 64)
	chain, herr := hex.DecodeString(f[4])
	if err != nil || herr != nil || seq < 1 || len(chain) != chainSize {
		return "", head{}, errNoHead
	}
	return f[2], head{seq: seq, chain: chain}, nil
}

// headFiles are the well-formed head files beside a database, by session
// id, with the store each names. Files that do not parse are left out, and
// of names only the store's own (not those of one moved aside and
// replaced): a head is evidence of what was committed, and a file without
// one is no evidence.
type headFiles map[string]storeHead

type storeHead struct {
	store string
	head
}

// of returns the heads that belong to store.
func (f headFiles) of(store string) map[string]head {
	if f == nil {
		return nil
	}
	heads := map[string]head{}
	for id, sh := range f {
		if sh.store == store {
			heads[id] = sh.head
		}
	}
	return heads
}

// readHeadFiles reads every well-formed head file beside the database at
// dbPath, of whatever store.
func readHeadFiles(dbPath string) (headFiles, error) {
	dir := filepath.Join(filepath.Dir(dbPath), "locks")
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	files := headFiles{}
	for _, e := range entries {
		id, ok := strings.CutSuffix(e.Name(), ".head")
		if !ok || !e.Type().IsRegular() || validID(id) != nil {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			continue
		}
		if st, h, err := parseHead(data); err == nil {
			files[id] = storeHead{store: st, head: h}
		}
	}
	return files, nil
}

// anyHead returns the id of a session with a well-formed head file beside
// the database at dbPath, of whatever store, or "".
func anyHead(dbPath string) string {
	if ids := headIDs(dbPath, 1); len(ids) > 0 {
		return ids[0]
	}
	return ""
}

// headIDs returns the ids of up to max sessions with a well-formed head
// file beside the database at dbPath (of whatever store), most recently
// written first: the sessions a damaged store held, for its error.
func headIDs(dbPath string, max int) []string {
	dir := filepath.Join(filepath.Dir(dbPath), "locks")
	entries, _ := os.ReadDir(dir)
	type found struct {
		id string
		at int64
	}
	var all []found
	for _, e := range entries {
		id, ok := strings.CutSuffix(e.Name(), ".head")
		if !ok || !e.Type().IsRegular() || validID(id) != nil {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			continue
		}
		if _, _, err := parseHead(data); err != nil {
			continue
		}
		at := int64(0)
		if fi, err := e.Info(); err == nil {
			at = fi.ModTime().UnixNano()
		}
		all = append(all, found{id, at})
	}
	sort.Slice(all, func(i, j int) bool { return all[i].at > all[j].at || all[i].at == all[j].at && all[i].id < all[j].id })
	var ids []string
	for i := 0; i < len(all) && i < max; i++ {
		ids = append(ids, all[i].id)
	}
	return ids
}

// removeHeads deletes the head files beside the database at dbPath: a
// store being created or migrated to chains has none of its own, and
// those of a store it replaced would stand for a history it never had.
func removeHeads(dbPath string) error {
	dir := filepath.Join(filepath.Dir(dbPath), "locks")
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".head") && e.Type().IsRegular() {
			if err := os.Remove(filepath.Join(dir, e.Name())); err != nil && !errors.Is(err, os.ErrNotExist) {
				return err
			}
		}
	}
	return nil
}
