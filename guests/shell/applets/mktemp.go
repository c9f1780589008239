package applets

import (
	"amlasandbox/guests/shell/hostcall"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"strings"
)

// mktempApplet creates a unique file (or with -d a directory) from a
// template ending in X's, under /tmp by default, and prints its name.
func mktempApplet(p *Proc, args []string) int {
	spec := flagSpec{short: "dqup:t", long: map[string]string{"directory": "d", "tmpdir:": "p", "quiet": "q", "dry-run": "u", "suffix:": "suffix"}}
	opts, operands, err := spec.parse(args[1:])
	usage := "mktemp [-d] [-p DIR] [TEMPLATE]"
	if err != nil {
		return p.usage("mktemp", err.Error(), usage)
	}
	dir, isDir, dry, quiet, suffix := "", false, false, false, ""
	for _, o := range opts {
		switch o.name {
		case "d":
			isDir = true
		case "p":
			dir = o.val
		case "u":
			dry = true
		case "q":
			quiet = true
		case "suffix":
			if strings.Contains(o.val, "/") {
				p.errorf("mktemp", "invalid suffix '%s', contains directory separator", o.val)
				return 1
			}
			suffix = o.val
		case "t":
			if dir == "" {
				dir = "/tmp"
			}
		}
	}
	tmpl := "tmp.XXXXXXXXXX"
	if len(operands) > 1 {
		return p.usage("mktemp", "too many templates", usage)
	}
	if len(operands) == 1 {
		tmpl = operands[0]
		// X's followed by other text: that text is the suffix (GNU).
		if i := strings.LastIndex(tmpl, "XXX"); i >= 0 && !strings.HasSuffix(tmpl, "X") && suffix == "" {
			suffix, tmpl = tmpl[i+3:], tmpl[:i+3]
			suffix = strings.TrimLeft(suffix, "X")
		}
	}
	if dir == "" && (len(operands) == 0 || !strings.Contains(tmpl, "/")) {
		dir = p.Env["TMPDIR"]
		if dir == "" {
			dir = "/tmp"
		}
	}
	xs := len(tmpl) - len(strings.TrimRight(tmpl, "X"))
	if xs < 3 {
		p.errorf("mktemp", "too few X's in template '%s'", tmpl)
		return 1
	}
	for try := 0; try < 100; try++ {
		b := make([]byte, xs)
		rand.Read(b)
		name := tmpl[:len(tmpl)-xs] + hex.EncodeToString(b)[:xs] + suffix
		if dir != "" {
			name = strings.TrimSuffix(dir, "/") + "/" + name
		}
		full := p.Path(name)
		var err error
		switch {
		case dry:
			_, err = os.Lstat(full)
			if err == nil {
				continue
			}
			err = nil
		case isDir:
			err = hostcall.Mkdir(full, 0o700)
		default:
			var f hostcall.QuotaFile
			if f, err = hostcall.CreateFile(full, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600); err == nil {
				f.Close()
			}
		}
		if os.IsExist(err) {
			continue
		}
		if err != nil {
			if !quiet {
				p.errorf("mktemp", "failed to create %s '%s': %s", map[bool]string{true: "directory", false: "file"}[isDir], name, ErrText(err))
			}
			return 1
		}
		fmt.Fprintln(p.Stdout, name)
		return 0
	}
	p.errorf("mktemp", "could not find a free name for '%s'", tmpl)
	return 1
}
