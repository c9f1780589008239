package applets

import (
	"fmt"
	"os"
	"path"
	"strings"
)

// realpathApplet prints resolved absolute paths as GNU realpath does: by
// default every component but the last must exist, -e all of them, -m
// none; -s cleans the path without following symbolic links;
// --relative-to=DIR and --relative-base=DIR print paths relative to a
// directory. readlink prints a link's target, or with -f, -e, -m the
// resolved path as realpath's modes do.
func realpathApplet(p *Proc, args []string) int {
	name := args[0]
	spec := flagSpec{short: "efmnqszEL", long: map[string]string{"canonicalize": "f", "canonicalize-existing": "e",
		"canonicalize-missing": "m", "no-newline": "n", "quiet": "q", "silent": "q", "strip": "s", "no-symlinks": "s",
		"zero": "z", "relative-to:": "relative-to", "relative-base:": "relative-base", "logical": "L", "physical": "P"}}
	usage := name + " [-e|-m] [-s] [--relative-to=DIR] [--relative-base=DIR] PATH..."
	if name == "readlink" {
		usage = "readlink [-f|-e|-m] [-n] PATH..."
	}
	opts, operands, err := spec.parse(args[1:])
	if err != nil {
		return p.gnuUsage(name, err.Error(), usage)
	}
	// mode: 'E' all but the last must exist, 'e' all, 'm' none, 0 (readlink)
	// print the link's target.
	mode := byte('E')
	if name == "readlink" {
		mode = 0
	}
	strip, quiet, noNewline, zero := false, false, false, false
	relTo, relBase := "", ""
	for _, o := range opts {
		switch o.name {
		case "e", "m":
			mode = o.name[0]
		case "f", "E":
			mode = 'E'
		case "s":
			strip = true
		case "q":
			quiet = true
		case "n":
			noNewline = true
		case "z":
			zero = true
		case "relative-to":
			relTo = o.val
		case "relative-base":
			relBase = o.val
		}
	}
	if len(operands) == 0 {
		return p.gnuUsage(name, "missing operand", usage)
	}
	end := "\n"
	if zero {
		end = "\x00"
	} else if noNewline && len(operands) == 1 {
		end = ""
	}
	resolve := func(op string) (string, error) {
		full := p.Path(op)
		if strip {
			if mode == 'e' || mode == 'E' {
				if err := checkExists(full, mode == 'E'); err != nil {
					return "", err
				}
			}
			return full, nil
		}
		return canonicalize(full, mode)
	}
	for _, dir := range []*string{&relTo, &relBase} {
		if *dir == "" {
			continue
		}
		resolved, err := resolve(*dir)
		if err != nil {
			p.errorf(name, "%s: %s", *dir, ErrText(err))
			return 1
		}
		*dir = resolved
	}
	status := 0
	for _, op := range operands {
		if mode == 0 {
			target, err := os.Readlink(p.Path(op))
			if err != nil {
				status = 1
				continue
			}
			fmt.Fprint(p.Stdout, target+end)
			continue
		}
		full, err := resolve(op)
		if err != nil {
			if !quiet {
				p.errorf(name, "%s: %s", op, ErrText(err))
			}
			status = 1
			continue
		}
		switch {
		case relTo != "" && (relBase == "" || under(relTo, relBase) && under(full, relBase)):
			full = relativePath(relTo, full)
		case relTo == "" && relBase != "" && under(full, relBase):
			full = relativePath(relBase, full)
		}
		fmt.Fprint(p.Stdout, full+end)
	}
	return status
}

// checkExists checks that full exists, or with butLast that its parent
// does.
func checkExists(full string, butLast bool) error {
	if butLast {
		if _, err := os.Stat(full); err == nil {
			return nil
		}
		_, err := os.Stat(path.Dir(full))
		return err
	}
	_, err := os.Stat(full)
	return err
}

// canonicalize follows the symbolic links of an absolute, clean path
// component by component; mode 'e' needs every component to exist, 'E'
// all but the last, 'm' none.
func canonicalize(full string, mode byte) (string, error) {
	parts := strings.Split(strings.TrimPrefix(full, "/"), "/")
	cur := "/"
	links := 0
	for i := 0; i < len(parts); i++ {
		if parts[i] == "" {
			continue
		}
		next := path.Join(cur, parts[i])
		last := i == len(parts)-1
		target, err := os.Readlink(next)
		if err != nil {
			if _, serr := os.Lstat(next); serr != nil {
				if mode == 'e' || mode == 'E' && !last {
					return "", serr
				}
			}
			cur = next
			continue
		}
		if links++; links > 40 {
			return "", fmt.Errorf("Too many levels of symbolic links")
		}
		if !path.IsAbs(target) {
			target = path.Join(cur, target)
		}
		// Resolve the rest of the path after the link's target.
		rest := append(strings.Split(strings.TrimPrefix(path.Clean(target), "/"), "/"), parts[i+1:]...)
		parts, i, cur = rest, -1, "/"
	}
	return cur, nil
}

// under reports whether p is base or inside it.
func under(p, base string) bool {
	return p == base || base == "/" || strings.HasPrefix(p, base+"/")
}

// relativePath is target relative to dir (both absolute and clean).
func relativePath(dir, target string) string {
	split := func(s string) []string {
		if s == "/" {
			return nil
		}
		return strings.Split(strings.TrimPrefix(s, "/"), "/")
	}
	d, t := split(dir), split(target)
	i := 0
	for i < len(d) && i < len(t) && d[i] == t[i] {
		i++
	}
	var out []string
	for range d[i:] {
		out = append(out, "..")
	}
	out = append(out, t[i:]...)
	if len(out) == 0 {
		return "."
	}
	return strings.Join(out, "/")
}
