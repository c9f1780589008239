package applets

import (
	"io"
)

// teeApplet copies stdin to stdout and to each file; -a appends.
func teeApplet(p *Proc, args []string) int {
	spec := flagSpec{short: "ai", long: map[string]string{"append": "a"}}
	opts, files, err := spec.parse(args[1:])
	if err != nil {
		return p.usage("tee", err.Error(), "tee [-a] [FILE]...")
	}
	appendTo := false
	for _, o := range opts {
		if o.name == "a" {
			appendTo = true
		}
	}
	status := 0
	writers := []io.Writer{p.Stdout}
	for _, name := range files {
		f, err := p.Create(name, appendTo)
		if err != nil {
			status = p.fileErr("tee", name, err)
			continue
		}
		defer f.Close()
		writers = append(writers, f)
	}
	// Keep copying to the files even if stdout's reader goes away.
	stdoutOK := true
	buf := make([]byte, 32*1024)
	for {
		n, rerr := p.Stdin.Read(buf)
		if n > 0 {
			for i, w := range writers {
				if i == 0 && !stdoutOK {
					continue
				}
				if _, err := w.Write(buf[:n]); err != nil {
					if i == 0 {
						stdoutOK = false
						if !brokenPipe(err) {
							p.errorf("tee", "standard output: %s", ErrText(err))
						}
						status = 1
						continue
					}
					p.errorf("tee", "%s: %s", files[i-1], ErrText(err))
					status = 1
				}
			}
		}
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			p.errorf("tee", "read error: %s", ErrText(rerr))
			return 1
		}
	}
	return status
}
