package applets

import (
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"strings"
)

// hashAlgo is one of the *sum applets' algorithms.
type hashAlgo struct {
	tag  string // the name in --tag lines: MD5, SHA1, SHA256, ...
	new  func() hash.Hash
	size int // hex digits
}

var hashAlgos = map[string]hashAlgo{
	"md5sum":    {"MD5", md5.New, 32},
	"sha1sum":   {"SHA1", sha1.New, 40},
	"sha224sum": {"SHA224", sha256.New224, 56},
	"sha256sum": {"SHA256", sha256.New, 64},
	"sha384sum": {"SHA384", sha512.New384, 96},
	"sha512sum": {"SHA512", sha512.New, 128},
}

// hashsumApplet is md5sum, sha1sum, sha224sum, sha256sum, sha384sum and
// sha512sum, as GNU coreutils has them: "HASH  NAME" per input (-b marks
// binary with '*', --tag writes "ALGO (NAME) = HASH"), and -c checking a
// list of such lines (either form), with --quiet, --status, --strict,
// --warn and --ignore-missing, and GNU's messages and statuses.
func hashsumApplet(p *Proc, args []string) int {
	name := args[0]
	algo := hashAlgos[name]
	spec := flagSpec{short: "bctwz", long: map[string]string{"check": "c", "binary": "b", "text": "t",
		"quiet": "quiet", "status": "status", "strict": "strict", "warn": "w", "tag": "tag",
		"ignore-missing": "ignore-missing", "zero": "z"}}
	opts, files, err := spec.parse(args[1:])
	if err != nil {
		return p.gnuUsage(name, err.Error(), name+" [-bct] [--tag] [--quiet] [--status] [--strict] [-w] [--ignore-missing] [FILE]...")
	}
	var check, binary, tag, quiet, silent, strict, warn, ignoreMissing bool
	checkOnly := "" // the first option that needs -c
	for _, o := range opts {
		if checkOnly == "" && strings.Contains(" quiet status strict w ignore-missing ", " "+o.name+" ") {
			checkOnly = map[string]string{"w": "warn"}[o.name]
			if checkOnly == "" {
				checkOnly = o.name
			}
		}
		switch o.name {
		case "c":
			check = true
		case "b":
			binary = true
		case "t":
			binary = false
		case "tag":
			tag = true
		case "quiet":
			quiet = true
		case "status":
			silent = true
		case "strict":
			strict = true
		case "w":
			warn = true
		case "ignore-missing":
			ignoreMissing = true
		case "z":
			p.errorf(name, "-z (NUL-terminated lines) is not supported")
			return 1
		}
	}
	if !check && checkOnly != "" {
		p.errorf(name, "the --%s option is meaningful only when verifying checksums", checkOnly)
		return 1
	}
	sum := func(file string) (string, error) {
		f, err := p.Open(file)
		if err != nil {
			return "", err
		}
		defer f.Close()
		h := algo.new()
		if _, err := io.Copy(h, f); err != nil {
			return "", err
		}
		return hex.EncodeToString(h.Sum(nil)), nil
	}
	if !check {
		status := 0
		for _, file := range inputs(files) {
			s, err := sum(file)
			if err != nil {
				status = p.fileErr(name, file, err)
				continue
			}
			var line string
			switch {
			case tag:
				line = fmt.Sprintf("%s (%s) = %s\n", algo.tag, file, s)
			case binary:
				line = s + " *" + file + "\n"
			default:
				line = s + "  " + file + "\n"
			}
			if _, err := io.WriteString(p.Stdout, line); err != nil {
				return p.writeFailed(name, err)
			}
		}
		return status
	}
	status := 0
	for _, list := range inputs(files) {
		f, err := p.Open(list)
		if err != nil {
			status = p.fileErr(name, list, err)
			continue
		}
		lines, _ := readLines(f)
		f.Close()
		var bad, failed, unreadable, good int
		for i, line := range lines {
			want, file, ok := parseSumLine(line, algo)
			if !ok {
				bad++
				if warn {
					p.errorf(name, "%s: %d: improperly formatted %s checksum line", displayName(list), i+1, algo.tag)
				}
				continue
			}
			good++
			got, err := sum(file)
			switch {
			case err != nil && ignoreMissing && strings.Contains(ErrText(err), "No such file"):
				good--
			case err != nil:
				p.errorf(name, "%s: %s", file, ErrText(err))
				if !silent {
					fmt.Fprintf(p.Stdout, "%s: FAILED open or read\n", file)
				}
				unreadable++
			case got != strings.ToLower(want):
				if !silent {
					fmt.Fprintf(p.Stdout, "%s: FAILED\n", file)
				}
				failed++
			case !quiet && !silent:
				fmt.Fprintf(p.Stdout, "%s: OK\n", file)
			}
		}
		plural := func(n int, one, many string) string {
			if n == 1 {
				return one
			}
			return many
		}
		if good == 0 && unreadable == 0 && failed == 0 {
			if ignoreMissing && bad == 0 && len(lines) > 0 {
				p.errorf(name, "%s: no file was verified", displayName(list))
			} else {
				p.errorf(name, "%s: no properly formatted checksum lines found", displayName(list))
			}
			status = 1
			continue
		}
		if !silent {
			if bad > 0 {
				p.errorf(name, "WARNING: %d %s improperly formatted", bad, plural(bad, "line is", "lines are"))
			}
			if unreadable > 0 {
				p.errorf(name, "WARNING: %d listed %s could not be read", unreadable, plural(unreadable, "file", "files"))
			}
			if failed > 0 {
				p.errorf(name, "WARNING: %d computed %s did NOT match", failed, plural(failed, "checksum", "checksums"))
			}
		}
		if failed > 0 || unreadable > 0 || strict && bad > 0 {
			status = 1
		}
	}
	return status
}

// parseSumLine reads "HASH  NAME", "HASH *NAME" or "ALGO (NAME) = HASH".
func parseSumLine(line string, algo hashAlgo) (want, file string, ok bool) {
	if rest, found := strings.CutPrefix(line, algo.tag+" ("); found {
		i := strings.LastIndex(rest, ") = ")
		if i < 0 {
			return "", "", false
		}
		want, file = rest[i+4:], rest[:i]
	} else {
		line = strings.TrimPrefix(line, "\\")
		if len(line) < algo.size+2 || line[algo.size] != ' ' || line[algo.size+1] != ' ' && line[algo.size+1] != '*' {
			return "", "", false
		}
		want, file = line[:algo.size], line[algo.size+2:]
	}
	if len(want) != algo.size || file == "" {
		return "", "", false
	}
	if _, err := hex.DecodeString(want); err != nil {
		return "", "", false
	}
	return want, file, true
}
