package applets

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"strings"
)

// sha256sumApplet prints "HASH  NAME" for each input; -c checks a list of
// such lines.
func sha256sumApplet(p *Proc, args []string) int {
	spec := flagSpec{short: "cbtw", long: map[string]string{"check": "c", "binary": "b", "text": "t",
		"quiet": "quiet", "status": "status"}}
	opts, files, err := spec.parse(args[1:])
	if err != nil {
		return p.usage("sha256sum", err.Error(), "sha256sum [-c] [FILE]...")
	}
	check, quiet, silent := false, false, false
	for _, o := range opts {
		switch o.name {
		case "c":
			check = true
		case "quiet":
			quiet = true
		case "status":
			silent = true
		}
	}
	hashOf := func(name string) (string, error) {
		f, err := p.Open(name)
		if err != nil {
			return "", err
		}
		defer f.Close()
		h := sha256.New()
		if _, err := io.Copy(h, f); err != nil {
			return "", err
		}
		return hex.EncodeToString(h.Sum(nil)), nil
	}
	status := 0
	if !check {
		for _, name := range inputs(files) {
			sum, err := hashOf(name)
			if err != nil {
				status = p.fileErr("sha256sum", name, err)
				continue
			}
			if _, err := fmt.Fprintf(p.Stdout, "%s  %s\n", sum, name); err != nil {
				return p.writeFailed("sha256sum", err)
			}
		}
		return status
	}
	failed := 0
	for _, list := range inputs(files) {
		f, err := p.Open(list)
		if err != nil {
			status = p.fileErr("sha256sum", list, err)
			continue
		}
		lines, _ := readLines(f)
		f.Close()
		for _, line := range lines {
			want, name, ok := strings.Cut(line, "  ")
			if !ok {
				want, name, ok = strings.Cut(line, " *")
			}
			if !ok {
				continue
			}
			got, err := hashOf(name)
			switch {
			case err != nil:
				if !silent {
					fmt.Fprintf(p.Stdout, "%s: FAILED open or read\n", name)
				}
				failed++
			case got != strings.ToLower(want):
				if !silent {
					fmt.Fprintf(p.Stdout, "%s: FAILED\n", name)
				}
				failed++
			case !quiet && !silent:
				fmt.Fprintf(p.Stdout, "%s: OK\n", name)
			}
		}
	}
	if failed > 0 {
		if !silent {
			p.errorf("sha256sum", "WARNING: %d computed checksum did NOT match", failed)
		}
		return 1
	}
	return status
}
