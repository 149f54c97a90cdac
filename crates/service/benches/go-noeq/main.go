// go-noeq: a minimal blocking server of noeqd's protocol, the reference
// floor that bench-serve measures guid-serve against.
//
// One goroutine per connection reads request bytes (N in 1..=255; 0
// closes) and answers each with N 64-bit big-endian ids in noeqd's layout,
// ((ms - 1288834974657) << 22) | (datacenter << 17) | (worker << 12) | seq,
// from a mutex-guarded generator that waits for the next millisecond when
// its 4,096 sequence numbers run out, as noeqd does. Requests that arrive
// together are answered in one write. No auth frame, no clock-step
// handling: only the hot path.
//
//	go build -o go-noeq . && ./go-noeq 127.0.0.1:4444
package main

import (
	"encoding/binary"
	"fmt"
	"net"
	"os"
	"sync"
	"time"
)

const (
	epoch      = 1288834974657
	datacenter = 1
	worker     = 7
	seqBits    = 12
	seqMask    = 1<<seqBits - 1
)

type generator struct {
	mu   sync.Mutex
	last int64 // ms since epoch of the last id
	seq  int64
}

func millis() int64 { return time.Now().UnixNano()/1e6 - epoch }

// fill writes n ids to out, 8 bytes each.
func (g *generator) fill(out []byte, n int) {
	g.mu.Lock()
	for i := 0; i < n; i++ {
		ms := millis()
		if ms < g.last {
			ms = g.last
		}
		if ms == g.last {
			g.seq = (g.seq + 1) & seqMask
			if g.seq == 0 {
				for ms <= g.last {
					ms = millis()
				}
			}
		} else {
			g.seq = 0
		}
		g.last = ms
		id := ms<<22 | datacenter<<17 | worker<<12 | g.seq
		binary.BigEndian.PutUint64(out[i*8:], uint64(id))
	}
	g.mu.Unlock()
}

func serve(c net.Conn, g *generator) {
	defer c.Close()
	if tc, ok := c.(*net.TCPConn); ok {
		tc.SetNoDelay(true)
	}
	in := make([]byte, 256)
	out := make([]byte, 0, 256*255*8)
	for {
		k, err := c.Read(in)
		if err != nil || k == 0 {
			return
		}
		out = out[:0]
		for _, n := range in[:k] {
			if n == 0 {
				c.Write(out)
				return
			}
			at := len(out)
			out = out[:at+int(n)*8]
			g.fill(out[at:], int(n))
		}
		if _, err := c.Write(out); err != nil {
			return
		}
	}
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: go-noeq ADDR")
		os.Exit(2)
	}
	l, err := net.Listen("tcp", os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	// bench-serve reads the address from this line.
	fmt.Fprintf(os.Stderr, "go-noeq listening on %s\n", l.Addr())
	g := &generator{last: -1}
	for {
		c, err := l.Accept()
		if err != nil {
			continue
		}
		go serve(c, g)
	}
}
