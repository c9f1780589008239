package applets

import (
	"amlasandbox/guests/shell/hostcall"
	"errors"
	"io/fs"
	"os"
	"time"
)

// touchApplet creates empty files or updates their modification time; -c
// does not create.
func touchApplet(p *Proc, args []string) int {
	spec := flagSpec{short: "cam", long: map[string]string{"no-create": "c"}}
	opts, names, err := spec.parse(args[1:])
	if err != nil {
		return p.usage("touch", err.Error(), "touch [-c] FILE...")
	}
	noCreate := false
	for _, o := range opts {
		if o.name == "c" {
			noCreate = true
		}
	}
	if len(names) == 0 {
		return p.usage("touch", "missing file operand", "touch [-c] FILE...")
	}
	status := 0
	now := time.Now()
	for _, name := range names {
		full := p.Path(name)
		err := os.Chtimes(full, now, now)
		if errors.Is(err, fs.ErrNotExist) {
			if noCreate {
				continue
			}
			var f hostcall.QuotaFile
			if f, err = hostcall.CreateFile(full, os.O_WRONLY|os.O_CREATE, 0o644); err == nil {
				err = f.Close()
			}
		}
		if err != nil {
			p.errorf("touch", "cannot touch '%s': %s", name, ErrText(err))
			status = 1
		}
	}
	return status
}
