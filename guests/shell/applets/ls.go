package applets

import (
	"bufio"
	"fmt"
	"io/fs"
	"os"
	"path"
	"sort"
	"strconv"
	"strings"
	"time"
)

const lsUsage = "ls [-1aAdFphlRrSt] [FILE]..."

type lsOptions struct {
	long, all, almostAll, dirSelf, classify, slash, human, recursive bool
	reverse, bySize, byTime                                          bool
}

// lsEntry is one name to show with what Lstat said about it.
type lsEntry struct {
	name string
	info fs.FileInfo
}

// lsApplet lists directories, one name per line (its output is never a
// terminal). -l gives the long format.
func lsApplet(p *Proc, args []string) int {
	spec := flagSpec{short: "1aAdFphlRrStC", long: map[string]string{"all": "a", "almost-all": "A",
		"directory": "d", "classify": "F", "human-readable": "h", "recursive": "R", "reverse": "r"}}
	opts, operands, err := spec.parse(args[1:])
	if err != nil {
		return p.usage("ls", err.Error(), lsUsage)
	}
	var o lsOptions
	for _, op := range opts {
		switch op.name {
		case "l":
			o.long = true
		case "a":
			o.all = true
		case "A":
			o.almostAll = true
		case "d":
			o.dirSelf = true
		case "F":
			o.classify = true
		case "p":
			o.slash = true
		case "h":
			o.human = true
		case "R":
			o.recursive = true
		case "r":
			o.reverse = true
		case "S":
			o.bySize = true
		case "t":
			o.byTime = true
		}
	}
	if len(operands) == 0 {
		operands = []string{"."}
	}
	status := 0
	var files, dirs []lsEntry
	for _, name := range operands {
		info, err := os.Stat(p.Path(name))
		if err != nil {
			if info, err = os.Lstat(p.Path(name)); err != nil {
				p.errorf("ls", "cannot access '%s': %s", name, ErrText(err))
				status = 2
				continue
			}
		}
		if info.IsDir() && !o.dirSelf {
			dirs = append(dirs, lsEntry{name, info})
		} else {
			files = append(files, lsEntry{name, info})
		}
	}
	out := bufio.NewWriter(p.Stdout)
	o.sort(files)
	o.sort(dirs)
	o.print(out, files, false)
	showHeader := len(operands) > 1 || o.recursive
	for i, d := range dirs {
		if len(files) > 0 || i > 0 {
			out.WriteString("\n")
		}
		if st := p.listDir(out, d.name, &o, showHeader); st != 0 {
			status = st
		}
	}
	if err := out.Flush(); err != nil {
		return p.writeFailed("ls", err)
	}
	return status
}

// listDir prints one directory (and with -R those below it).
func (p *Proc) listDir(out *bufio.Writer, name string, o *lsOptions, header bool) int {
	full := p.Path(name)
	dirents, err := os.ReadDir(full)
	if err != nil {
		out.Flush()
		p.errorf("ls", "cannot open directory '%s': %s", name, ErrText(err))
		return 2
	}
	var entries []lsEntry
	if o.all {
		for _, n := range []string{".", ".."} {
			if info, err := os.Stat(path.Join(full, n)); err == nil {
				entries = append(entries, lsEntry{n, info})
			}
		}
	}
	for _, d := range dirents {
		if strings.HasPrefix(d.Name(), ".") && !o.all && !o.almostAll {
			continue
		}
		info, err := d.Info()
		if err != nil {
			continue
		}
		entries = append(entries, lsEntry{d.Name(), info})
	}
	o.sort(entries)
	if header {
		fmt.Fprintf(out, "%s:\n", name)
	}
	if o.long {
		var blocks int64
		for _, e := range entries {
			blocks += (e.info.Size() + 1023) / 1024
		}
		fmt.Fprintf(out, "total %d\n", blocks)
	}
	o.print(out, entries, true)
	status := 0
	if o.recursive {
		for _, e := range entries {
			if e.info.IsDir() && e.name != "." && e.name != ".." {
				out.WriteString("\n")
				if st := p.listDir(out, path.Join(name, e.name), o, true); st != 0 {
					status = st
				}
			}
		}
	}
	return status
}

// sort orders entries by name, size (-S) or time (-t), reversed with -r.
func (o *lsOptions) sort(entries []lsEntry) {
	sort.SliceStable(entries, func(i, j int) bool {
		a, b := entries[i], entries[j]
		switch {
		case o.bySize && a.info.Size() != b.info.Size():
			return a.info.Size() > b.info.Size()
		case o.byTime && !a.info.ModTime().Equal(b.info.ModTime()):
			return a.info.ModTime().After(b.info.ModTime())
		}
		return a.name < b.name
	})
	if o.reverse {
		for i, j := 0, len(entries)-1; i < j; i, j = i+1, j-1 {
			entries[i], entries[j] = entries[j], entries[i]
		}
	}
}

// print writes the entries, short or long.
func (o *lsOptions) print(out *bufio.Writer, entries []lsEntry, _ bool) {
	sizeWidth := 1
	for _, e := range entries {
		sizeWidth = max(sizeWidth, len(o.size(e.info)))
	}
	now := time.Now()
	for _, e := range entries {
		name := e.name
		switch {
		case o.classify:
			name += classifySuffix(e.info)
		case o.slash && e.info.IsDir():
			name += "/"
		}
		if !o.long {
			out.WriteString(name + "\n")
			continue
		}
		mt := e.info.ModTime()
		stamp := mt.Format("Jan _2 15:04")
		if mt.Before(now.AddDate(0, -6, 0)) || mt.After(now.Add(time.Hour)) {
			stamp = mt.Format("Jan _2  2006")
		}
		links := 1
		if e.info.IsDir() {
			links = 2
		}
		if e.info.Mode()&fs.ModeSymlink != 0 {
			name += " -> ?"
		}
		fmt.Fprintf(out, "%s %d user user %*s %s %s\n", modeString(e.info.Mode()), links,
			sizeWidth, o.size(e.info), stamp, name)
	}
}

// size formats a size, human-readable with -h.
func (o *lsOptions) size(info fs.FileInfo) string {
	n := info.Size()
	if !o.human || n < 1024 {
		return strconv.FormatInt(n, 10)
	}
	v := float64(n)
	for _, unit := range []string{"K", "M", "G", "T"} {
		v /= 1024
		if v < 1024 {
			if v < 10 {
				return strconv.FormatFloat(v, 'f', 1, 64) + unit
			}
			return strconv.FormatFloat(v, 'f', 0, 64) + unit
		}
	}
	return strconv.FormatFloat(v, 'f', 0, 64) + "P"
}

// modeString is the ls -l permission column, e.g. "drwxr-xr-x".
func modeString(m fs.FileMode) string {
	var b [10]byte
	switch {
	case m.IsDir():
		b[0] = 'd'
	case m&fs.ModeSymlink != 0:
		b[0] = 'l'
	default:
		b[0] = '-'
	}
	const rwx = "rwxrwxrwx"
	for i := 0; i < 9; i++ {
		if m&(1<<uint(8-i)) != 0 {
			b[i+1] = rwx[i]
		} else {
			b[i+1] = '-'
		}
	}
	return string(b[:])
}

// classifySuffix is ls -F's marker: / for directories, @ for links, * for
// executables.
func classifySuffix(info fs.FileInfo) string {
	switch m := info.Mode(); {
	case m.IsDir():
		return "/"
	case m&fs.ModeSymlink != 0:
		return "@"
	case m&0o111 != 0:
		return "*"
	}
	return ""
}
