package applets

import (
	"errors"
	"os"
	"path"
	"syscall"
)

// lnApplet makes links as GNU ln does, and the host refuses every one: a
// sandbox's files are directories and regular files. It asks anyway (the
// host, not the applet, decides what a guest may do) and says why it
// failed, with what to do instead.
func lnApplet(p *Proc, args []string) int {
	const use = "ln [-sfnTv] TARGET LINK_NAME, ln [-sfnv] TARGET... DIRECTORY"
	spec := flagSpec{short: "sfnTvrL", long: map[string]string{"symbolic": "s", "force": "f", "no-dereference": "n",
		"no-target-directory": "T", "verbose": "v", "relative": "r", "logical": "L"}}
	opts, operands, err := spec.parse(args[1:])
	if err != nil {
		return p.usage("ln", err.Error(), use)
	}
	symbolic, noDir := false, false
	for _, o := range opts {
		switch o.name {
		case "s":
			symbolic = true
		case "T":
			noDir = true
		}
	}
	if len(operands) == 0 {
		return p.usage("ln", "missing file operand", use)
	}
	// The links to make: TARGET LINK_NAME, TARGET... DIRECTORY, or TARGET
	// (a link of the same name in the working directory).
	type link struct{ target, name string }
	var links []link
	switch last := operands[len(operands)-1]; {
	case len(operands) == 1:
		links = append(links, link{last, path.Base(last)})
	case len(operands) == 2 && (noDir || !p.isDir(last)):
		links = append(links, link{operands[0], last})
	case !p.isDir(last):
		p.errorf("ln", "target '%s' is not a directory", last)
		return 1
	default:
		for _, t := range operands[:len(operands)-1] {
			links = append(links, link{t, path.Join(last, path.Base(t))})
		}
	}
	status := 0
	for _, l := range links {
		var err error
		if symbolic {
			err = os.Symlink(l.target, p.Path(l.name))
		} else {
			err = os.Link(p.Path(l.target), p.Path(l.name))
		}
		if err == nil {
			continue
		}
		status = 1
		why := ErrText(err)
		if errors.Is(err, syscall.EPERM) {
			why = "Operation not permitted (a sandbox's files cannot be links; copy with cp instead)"
		}
		if symbolic {
			p.errorf("ln", "failed to create symbolic link '%s': %s", l.name, why)
		} else {
			p.errorf("ln", "failed to create hard link '%s' => '%s': %s", l.name, l.target, why)
		}
	}
	return status
}
