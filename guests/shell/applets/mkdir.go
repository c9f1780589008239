package applets

import (
	"amlasandbox/guests/shell/hostcall"
	"errors"
	"io/fs"
	"strconv"
)

// mkdirApplet creates directories; -p creates parents and accepts existing
// ones.
func mkdirApplet(p *Proc, args []string) int {
	spec := flagSpec{short: "pvm:", long: map[string]string{"parents": "p", "verbose": "v", "mode:": "m"}}
	opts, dirs, err := spec.parse(args[1:])
	if err != nil {
		return p.usage("mkdir", err.Error(), "mkdir [-pv] [-m MODE] DIRECTORY...")
	}
	parents, verbose := false, false
	mode := fs.FileMode(0o755)
	for _, o := range opts {
		switch o.name {
		case "p":
			parents = true
		case "v":
			verbose = true
		case "m":
			m, err := strconv.ParseUint(o.val, 8, 32)
			if err != nil {
				return p.usage("mkdir", "invalid mode '"+o.val+"'", "mkdir [-pv] [-m MODE] DIRECTORY...")
			}
			mode = fs.FileMode(m)
		}
	}
	if len(dirs) == 0 {
		return p.usage("mkdir", "missing operand", "mkdir [-pv] [-m MODE] DIRECTORY...")
	}
	status := 0
	for _, d := range dirs {
		full := p.Path(d)
		if parents {
			err = hostcall.MkdirAll(full, mode)
		} else {
			err = hostcall.Mkdir(full, mode)
		}
		if err != nil {
			// MkdirAll on an existing path in the read-only root reports
			// EPERM from its own Mkdir attempt; an existing directory is fine.
			if parents && p.isDir(d) {
				continue
			}
			if errors.Is(err, fs.ErrExist) && !parents {
				p.errorf("mkdir", "cannot create directory '%s': File exists", d)
			} else {
				p.errorf("mkdir", "cannot create directory '%s': %s", d, ErrText(err))
			}
			status = 1
			continue
		}
		if verbose {
			p.errorf("mkdir", "created directory '%s'", d)
		}
	}
	return status
}
