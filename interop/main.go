// Command interop runs the real Go libraries for kguid's differential
// tests (tests/interop.rs): fogfish/guid v2 and muyo/sno. It reads one
// request a line on standard input and writes one answer a line, in order,
// so that a test sends its cases in one batch. Inputs that may hold any
// byte travel as hex.
//
// Requests and answers:
//
//	g2make NODE T SEQ DRIFT_NS N  id of these parts (DRIFT_NS -1: none given):
//	                              hex string base62 json, then its local cast's
//	                              hex string base62 json, then time node seq,
//	                              then the local id cast back with node N (hex)
//	g2dec FORM HEX                FORM bytes, strg, strl, base62 or json:
//	                              "ok HI LO", "err" or "panic"
//	g2sort HEX...                 the indexes in the order of guid.Before
//	g2clock N                     N ids of a clock of defaults, as hex
//	snomake P MIN MAX META NS...  a generator of partition P and bounds
//	                              MIN, MAX makes an id at each time NS;
//	                              the last: hex string json timestamp meta
//	                              partition sequence; or "err"
//	snonew P MIN MAX DRIFTS META  an id of New (the wall clock) from a generator
//	                              restored with DRIFTS wall clock regressions:
//	                              as snomake, then the tick-tock bit
//	snodec FORM HEX               FORM bytes, string, text or json: "ok HEX",
//	                              "err" or "panic"
//	snosort HEX...                the indexes in the order of ID.Compare
//	snogen N                      N ids of sno's default generator, as hex
package main

import (
	"bufio"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	guid "github.com/fogfish/guid/v2"
	"github.com/muyo/sno"
)

// parts is a guid.Chronos of fixed parts: the library's own clocks draw
// the sequence from a process-wide counter.
type parts struct{ node, t, seq uint64 }

func (p parts) L() uint64           { return p.node }
func (p parts) T() (uint64, uint64) { return p.t, p.seq }

func main() {
	// A local id's JSON embeds guid.Clock's node; node 0, as kguid writes.
	guid.Clock = guid.NewClockMock(guid.WithNodeID(0))

	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<26)
	out := bufio.NewWriterSize(os.Stdout, 1<<16)
	defer out.Flush()
	for in.Scan() {
		f := strings.Fields(in.Text())
		if len(f) == 0 {
			continue
		}
		fmt.Fprintln(out, answer(f[0], f[1:]))
	}
	if err := in.Err(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func answer(cmd string, args []string) string {
	switch cmd {
	case "g2make":
		return g2make(args)
	case "g2dec":
		return recovered(func() string { return g2dec(args[0], unhex(args[1])) })
	case "g2sort":
		ids := make([]guid.K, len(args))
		for i, a := range args {
			ids[i], _ = guid.FromBytes(unhex(a))
		}
		return order(len(ids), func(a, b int) bool { return guid.Before(ids[a], ids[b]) })
	case "g2clock":
		clock := guid.NewClock()
		ids := make([]string, num(args[0]))
		for i := range ids {
			ids[i] = hex.EncodeToString(guid.Bytes(guid.G(clock)))
		}
		return strings.Join(ids, " ")
	case "snomake":
		return snomake(args)
	case "snonew":
		return snonew(args)
	case "snodec":
		return recovered(func() string { return snodec(args[0], unhex(args[1])) })
	case "snosort":
		ids := make([]sno.ID, len(args))
		for i, a := range args {
			ids[i], _ = sno.FromBinaryBytes(unhex(a))
		}
		return order(len(ids), func(a, b int) bool { return ids[a].Compare(ids[b]) < 0 })
	case "snogen":
		ids := make([]string, num(args[0]))
		for i := range ids {
			ids[i] = hex.EncodeToString(sno.New(byte(i)).Bytes())
		}
		return strings.Join(ids, " ")
	}
	fmt.Fprintln(os.Stderr, "unknown request:", cmd)
	os.Exit(2)
	return ""
}

func g2make(a []string) string {
	clock := parts{num(a[0]), num(a[1]), num(a[2])}
	var g guid.K
	if a[3] == "-1" {
		g = guid.G(clock)
	} else {
		ns, err := strconv.ParseInt(a[3], 10, 64)
		if err != nil {
			panic(err)
		}
		g = guid.G(clock, time.Duration(ns))
	}
	l := guid.ToL(g)
	return strings.Join([]string{
		forms(g), forms(l),
		strconv.FormatUint(guid.Time(g), 10),
		strconv.FormatUint(guid.Node(g), 10),
		strconv.FormatUint(guid.Seq(g), 10),
		hex.EncodeToString(guid.Bytes(guid.FromL(parts{node: num(a[4])}, l))),
	}, " ")
}

// forms are an id's bytes (hex), string, base62 and JSON (hex).
func forms(k guid.K) string {
	j, err := json.Marshal(k)
	if err != nil {
		panic(err)
	}
	return fmt.Sprintf("%x %s %s %x", guid.Bytes(k), guid.String(k), guid.Base62(k), j)
}

func g2dec(form string, in []byte) string {
	var (
		k   guid.K
		err error
	)
	switch form {
	case "bytes":
		k, err = guid.FromBytes(in)
	case "strg":
		k, err = guid.FromStringG(string(in))
	case "strl":
		k, err = guid.FromStringL(string(in))
	case "base62":
		k, err = guid.FromBase62(string(in))
	case "json":
		err = json.Unmarshal(in, &k)
	default:
		panic("form " + form)
	}
	if err != nil {
		return "err"
	}
	return fmt.Sprintf("ok %x %x", k.Hi, k.Lo)
}

func snomake(a []string) string {
	g, err := sno.NewGenerator(&sno.GeneratorSnapshot{
		Partition:   partition(num(a[0])),
		SequenceMin: uint16(num(a[1])),
		SequenceMax: uint16(num(a[2])),
	}, nil)
	if err != nil {
		return "err"
	}
	meta := byte(num(a[3]))
	var id sno.ID
	for _, ns := range a[4:] {
		id = g.NewWithTime(meta, time.Unix(0, int64(num(ns))))
	}
	return describe(id)
}

func snonew(a []string) string {
	g, err := sno.NewGenerator(&sno.GeneratorSnapshot{
		Partition:   partition(num(a[0])),
		SequenceMin: uint16(num(a[1])),
		SequenceMax: uint16(num(a[2])),
		Drifts:      uint32(num(a[3])),
	}, nil)
	if err != nil {
		return "err"
	}
	id := g.New(byte(num(a[4])))
	return fmt.Sprintf("%s %d", describe(id), id[4]&1)
}

// describe is an id's bytes (hex), string, JSON (hex), Unix time in ns,
// meta, partition and sequence.
func describe(id sno.ID) string {
	j, err := json.Marshal(id)
	if err != nil {
		panic(err)
	}
	return fmt.Sprintf("%x %s %x %d %d %d %d", id.Bytes(), id.String(), j,
		id.Timestamp(), id.Meta(), id.Partition().AsUint16(), id.Sequence())
}

func partition(p uint64) (out sno.Partition) {
	out.PutUint16(uint16(p))
	return
}

func snodec(form string, in []byte) string {
	var (
		id  sno.ID
		err error
	)
	switch form {
	case "bytes":
		id, err = sno.FromBinaryBytes(in)
	case "string":
		id, err = sno.FromEncodedString(string(in))
	case "text":
		err = id.UnmarshalText(in)
	case "json":
		err = json.Unmarshal(in, &id)
	default:
		panic("form " + form)
	}
	if err != nil {
		return "err"
	}
	return fmt.Sprintf("ok %x", id.Bytes())
}

// recovered answers "panic" where a decoder panics (fogfish's JSON decoder
// on an empty string), so that the run goes on.
func recovered(f func() string) (s string) {
	defer func() {
		if recover() != nil {
			s = "panic"
		}
	}()
	return f()
}

func order(n int, less func(a, b int) bool) string {
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return less(idx[a], idx[b]) })
	out := make([]string, n)
	for i, v := range idx {
		out[i] = strconv.Itoa(v)
	}
	return strings.Join(out, " ")
}

func num(s string) uint64 {
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		panic(err)
	}
	return v
}

func unhex(s string) []byte {
	if s == "-" {
		return nil
	}
	b, err := hex.DecodeString(s)
	if err != nil {
		panic(err)
	}
	return b
}
