package applets

import (
	"bufio"
	"io"
)

// tailApplet prints the last lines (or bytes) of its inputs, or everything
// from line (byte) N on with +N.
func tailApplet(p *Proc, args []string) int {
	return headTail(p, "tail", args, func(out *bufio.Writer, r io.Reader, count countArg, byBytes bool) error {
		return tailOne(p, out, r, count, byBytes)
	})
}

func tailOne(p *Proc, out *bufio.Writer, r io.Reader, count countArg, byBytes bool) error {
	if byBytes {
		data, err := io.ReadAll(r)
		if err != nil {
			return err
		}
		start := int64(len(data)) - count.n
		if count.plus {
			start = count.n - 1
		}
		start = min(max(start, 0), int64(len(data)))
		_, err = out.Write(data[start:])
		return err
	}
	br := bufio.NewReader(r)
	if count.plus {
		for n := int64(1); ; n++ {
			line, err := br.ReadString('\n')
			if n >= count.n {
				if _, werr := out.WriteString(line); werr != nil {
					return werr
				}
			}
			if err == io.EOF {
				return nil
			}
			if err != nil {
				return err
			}
			if n%4096 == 0 && p.cancelled() {
				return p.ctx().Err()
			}
		}
	}
	if count.n == 0 {
		_, err := io.Copy(io.Discard, br)
		return err
	}
	ring := make([]string, 0, min(count.n, 4096))
	start := 0
	for {
		line, err := br.ReadString('\n')
		if line != "" {
			if int64(len(ring)) < count.n {
				ring = append(ring, line)
			} else {
				ring[start] = line
				start = (start + 1) % len(ring)
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
	}
	for i := range ring {
		if _, err := out.WriteString(ring[(start+i)%len(ring)]); err != nil {
			return err
		}
	}
	return nil
}
