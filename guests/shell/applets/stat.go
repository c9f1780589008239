package applets

import (
	"bufio"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"time"
)

const statUsage = "stat [-L] [-t] [-c FORMAT | --printf=FORMAT] FILE..."

// The sandbox has one user; files belong to it (ls -l says the same).
const (
	statUser = "user"
	statUID  = 1000
)

// statApplet prints file facts as GNU stat does: its default multi-line
// report, -t's terse line, or -c/--format FORMAT (one line per file) and
// --printf FORMAT (backslash escapes, no newline added) with %n %N %s %b
// %B %o %f %F %a %A %h %i %u %U %g %G %x %X %y %Y %z %Z %w %W %d %D %m %%.
// -L follows symbolic links. The sandbox's files all belong to "user"
// (uid 1000); WASI reports no permission bits, so modes are what the
// runtime fills in (0600 files, 0700 directories, as ls -l shows) and the
// change and access times are the modification time's.
func statApplet(p *Proc, args []string) int {
	spec := flagSpec{short: "Lc:tf", long: map[string]string{"dereference": "L", "format:": "c", "printf:": "printf",
		"terse": "t", "file-system": "f"}}
	opts, files, err := spec.parse(args[1:])
	if err != nil {
		return p.gnuUsage("stat", err.Error(), statUsage)
	}
	follow, terse := false, false
	format, printf := "", false
	for _, o := range opts {
		switch o.name {
		case "L":
			follow = true
		case "c":
			format, printf = o.val, false
		case "printf":
			format, printf = o.val, true
		case "t":
			terse = true
		case "f":
			p.errorf("stat", "-f (file system status) is not supported in the sandbox")
			return 1
		}
	}
	if len(files) == 0 {
		return p.gnuUsage("stat", "missing operand", statUsage)
	}
	out := bufio.NewWriter(p.Stdout)
	status := 0
	for _, name := range files {
		full := p.Path(name)
		var info fs.FileInfo
		if follow {
			info, err = os.Stat(full)
		} else {
			info, err = os.Lstat(full)
		}
		if err != nil {
			out.Flush()
			p.errorf("stat", "cannot statx '%s': %s", name, ErrText(err))
			status = 1
			continue
		}
		f := statFile{name: name, full: full, info: info}
		switch {
		case format != "" && printf:
			out.WriteString(f.format(unescapePrintf(format)))
		case format != "":
			out.WriteString(f.format(format) + "\n")
		case terse:
			out.WriteString(f.format("%n %s %b %f %u %g %D %i %h %t %T %X %Y %Z %W %o") + "\n")
		default:
			file := f.name
			if target, err := os.Readlink(f.full); err == nil && f.info.Mode()&fs.ModeSymlink != 0 {
				file += " -> " + target
			}
			out.WriteString("  File: " + file + "\n")
			out.WriteString(f.format("  Size: %-10s\tBlocks: %-10b IO Block: %-6o %F\n" +
				"Device: %D\tInode: %-11i Links: %h\n" +
				"Access: (%04a/%A)  Uid: (%5u/%8U)   Gid: (%5g/%8G)\n" +
				"Access: %x\nModify: %y\nChange: %z\n Birth: %w\n"))
		}
	}
	if err := out.Flush(); err != nil {
		return p.writeFailed("stat", err)
	}
	return status
}

// statFile is one file being described.
type statFile struct {
	name, full string
	info       fs.FileInfo
}

// unescapePrintf turns --printf's backslash escapes into characters.
func unescapePrintf(s string) string {
	r := strings.NewReplacer(`\n`, "\n", `\t`, "\t", `\\`, `\`, `\"`, `"`, `\a`, "\a", `\b`, "\b",
		`\f`, "\f", `\r`, "\r", `\v`, "\v", `\0`, "\x00")
	return r.Replace(s)
}

// fileType is %F.
func (f statFile) fileType() string {
	m := f.info.Mode()
	switch {
	case m.IsDir():
		return "directory"
	case m&fs.ModeSymlink != 0:
		return "symbolic link"
	case m&fs.ModeNamedPipe != 0:
		return "fifo"
	case m.IsRegular() && f.info.Size() == 0:
		return "regular empty file"
	case m.IsRegular():
		return "regular file"
	}
	return "weird file"
}

// rawMode is the st_mode value: type bits and permissions.
func (f statFile) rawMode() uint32 {
	m := f.info.Mode()
	bits := uint32(m.Perm())
	switch {
	case m.IsDir():
		bits |= 0o040000
	case m&fs.ModeSymlink != 0:
		bits |= 0o120000
	default:
		bits |= 0o100000
	}
	return bits
}

// stamp formats a time as GNU stat does.
func stamp(t time.Time) string {
	return t.UTC().Format("2006-01-02 15:04:05.000000000 -0700")
}

// format expands a -c FORMAT for f. A directive may carry printf flags
// and a width ("%-10s").
func (f statFile) format(format string) string {
	var b strings.Builder
	for i := 0; i < len(format); i++ {
		c := format[i]
		if c != '%' || i+1 == len(format) {
			b.WriteByte(c)
			continue
		}
		j := i + 1
		for j < len(format) && strings.IndexByte("-+ #0123456789.", format[j]) >= 0 {
			j++
		}
		if j == len(format) {
			b.WriteString(format[i:])
			break
		}
		flags := format[i+1 : j]
		d := format[j]
		i = j
		v, numeric, ok := f.directive(d)
		if !ok {
			b.WriteByte('?')
			continue
		}
		if flags == "" {
			b.WriteString(v)
			continue
		}
		if numeric {
			if n, err := strconv.ParseInt(v, 10, 64); err == nil {
				b.WriteString(fmt.Sprintf("%"+flags+"d", n))
				continue
			}
		}
		b.WriteString(fmt.Sprintf("%"+flags+"s", v))
	}
	return b.String()
}

// directive is the value of one %-directive; numeric says printf's
// integer flags apply.
func (f statFile) directive(d byte) (string, bool, bool) {
	mt := f.info.ModTime()
	size := f.info.Size()
	switch d {
	case '%':
		return "%", false, true
	case 'n':
		return f.name, false, true
	case 'N':
		if f.info.Mode()&fs.ModeSymlink != 0 {
			if target, err := os.Readlink(f.full); err == nil {
				return "'" + f.name + "' -> '" + target + "'", false, true
			}
		}
		return "'" + f.name + "'", false, true
	case 's':
		return strconv.FormatInt(size, 10), true, true
	case 'b':
		return strconv.FormatInt((size+4095)/4096*8, 10), true, true
	case 'B':
		return "512", true, true
	case 'o':
		return "4096", true, true
	case 'f':
		return strconv.FormatUint(uint64(f.rawMode()), 16), false, true
	case 'F':
		return f.fileType(), false, true
	case 'a':
		return strconv.FormatUint(uint64(f.info.Mode().Perm()), 8), true, true
	case 'A':
		return modeString(f.info.Mode()), false, true
	case 'h':
		if f.info.IsDir() {
			return "2", true, true
		}
		return "1", true, true
	case 'i':
		return "0", true, true
	case 'u', 'g':
		return strconv.Itoa(statUID), true, true
	case 'U', 'G':
		return statUser, false, true
	case 'x', 'y', 'z':
		return stamp(mt), false, true
	case 'X', 'Y', 'Z':
		return strconv.FormatInt(mt.Unix(), 10), true, true
	case 'w':
		return "-", false, true
	case 'W':
		return "0", true, true
	case 'd', 't', 'T':
		return "0", true, true
	case 'D':
		return "0", false, true
	case 'm':
		return "/", false, true
	}
	return "", false, false
}
