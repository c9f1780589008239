package applets

import (
	"errors"
	"io/fs"
	"os"
)

// rmApplet removes files; -r removes directories and their contents, -f
// ignores missing files, -d removes empty directories. It refuses to
// remove "/" recursively.
func rmApplet(p *Proc, args []string) int {
	spec := flagSpec{short: "rRfdvi", long: map[string]string{"recursive": "r", "force": "f",
		"dir": "d", "verbose": "v"}}
	opts, names, err := spec.parse(args[1:])
	if err != nil {
		return p.usage("rm", err.Error(), "rm [-rfdv] FILE...")
	}
	var recursive, force, emptyDirs, verbose bool
	for _, o := range opts {
		switch o.name {
		case "r", "R":
			recursive = true
		case "f":
			force = true
		case "d":
			emptyDirs = true
		case "v":
			verbose = true
		}
	}
	if len(names) == 0 {
		if force {
			return 0
		}
		return p.usage("rm", "missing operand", "rm [-rfdv] FILE...")
	}
	status := 0
	for _, name := range names {
		full := p.Path(name)
		if full == "/" && recursive {
			p.errorf("rm", "it is dangerous to operate recursively on '/'")
			status = 1
			continue
		}
		info, err := os.Lstat(full)
		if err != nil {
			if force && errors.Is(err, fs.ErrNotExist) {
				continue
			}
			p.errorf("rm", "cannot remove '%s': %s", name, ErrText(err))
			status = 1
			continue
		}
		switch {
		case info.IsDir() && recursive:
			err = os.RemoveAll(full)
		case info.IsDir() && emptyDirs:
			err = os.Remove(full)
		case info.IsDir():
			p.errorf("rm", "cannot remove '%s': Is a directory", name)
			status = 1
			continue
		default:
			err = os.Remove(full)
		}
		if err != nil {
			p.errorf("rm", "cannot remove '%s': %s", name, ErrText(err))
			status = 1
			continue
		}
		if verbose {
			p.Stdout.Write([]byte("removed '" + name + "'\n"))
		}
	}
	return status
}
