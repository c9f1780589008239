package applets

import (
	"bytes"
	"io"
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
)

// wholeInputChunk is the size of the buffer wholeInput reads through; a
// chunk of lines is about this long unless a single line is longer.
const wholeInputChunk = 256 << 10

// wholeInput holds an applet's whole input (sort's, say) as a few large
// strings of complete lines, so that keeping n lines costs their bytes
// and not an allocation per line; each line the applet keeps is a
// substring of a chunk. Lines are split as eachLine splits them: on "\n",
// which they do not include, and a last line without one is still a line.
type wholeInput struct {
	// chunks each end with "\n", except that one input's last chunk
	// may end in a line without it.
	chunks []string
	lines  int    // how many lines the chunks hold
	buf    []byte // the read buffer, reused across inputs
}

// readFrom appends the lines of r.
func (w *wholeInput) readFrom(r io.Reader) error {
	if w.buf == nil {
		w.buf = make([]byte, 0, wholeInputChunk)
	}
	buf := w.buf[:0]
	for {
		if len(buf) == cap(buf) {
			i := bytes.LastIndexByte(buf, '\n')
			if i < 0 {
				// One line longer than the buffer: make room for it.
				bigger := make([]byte, len(buf), 2*cap(buf))
				copy(bigger, buf)
				buf = bigger
				w.buf = bigger
				continue
			}
			w.add(string(buf[:i+1]))
			buf = buf[:copy(buf, buf[i+1:])]
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			if len(buf) > 0 {
				w.add(string(buf))
			}
			return nil
		}
		if err != nil {
			return err
		}
	}
}

func (w *wholeInput) add(chunk string) {
	w.chunks = append(w.chunks, chunk)
	w.lines += strings.Count(chunk, "\n")
	if !strings.HasSuffix(chunk, "\n") {
		w.lines++
	}
}

// each calls fn with every line, in input order.
func (w *wholeInput) each(fn func(line string)) {
	for _, c := range w.chunks {
		for len(c) > 0 {
			i := strings.IndexByte(c, '\n')
			if i < 0 {
				fn(c)
				break
			}
			fn(c[:i])
			c = c[i+1:]
		}
	}
}

// strings returns every line, in a slice of exactly their number.
func (w *wholeInput) strings() []string {
	lines := make([]string, 0, w.lines)
	w.each(func(l string) { lines = append(lines, l) })
	return lines
}

// held estimates the memory an applet holds for this input while it
// works: the lines' bytes and a string header beside each.
func (w *wholeInput) held() int64 {
	n := int64(w.lines) * 16
	for _, c := range w.chunks {
		n += int64(len(c))
	}
	return n
}

// collectAfter runs the collector once an applet that held held bytes for
// its whole input has let go of them, when that is more than an eighth of
// the heap's soft limit. The guest collects only near that limit
// (cmd/guest), so without this a loop of large sorts piles up each one's
// input and arrays as garbage and the next sort's arrays must fit beside
// them; a collection of a heap that is mostly garbage costs little next
// to reading and sorting that much.
func collectAfter(held int64) {
	if lim := debug.SetMemoryLimit(-1); lim != math.MaxInt64 && held > lim/8 {
		runtime.GC()
	}
}

// readWhole reads r to its end. A regular file is read into a buffer of
// its size, so reading it does not leave the copies that growing one
// would.
func readWhole(r io.Reader) ([]byte, error) {
	size := 512
	if f, ok := r.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode().IsRegular() && st.Size() < 1<<40 {
			// One byte more, so that the read that finds the end
			// does not grow the buffer.
			size = int(st.Size()) + 1
		}
	}
	data := make([]byte, 0, size)
	for {
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)]
		}
		n, err := r.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if err == io.EOF {
			return data, nil
		}
		if err != nil {
			return data, err
		}
	}
}
