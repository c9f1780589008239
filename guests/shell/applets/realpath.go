package applets

import (
	"fmt"
	"os"
	"path"
	"strings"
)

// realpathApplet prints absolute, cleaned paths; -e requires them to
// exist. readlink -f is the same; readlink alone prints a link's target.
func realpathApplet(p *Proc, args []string) int {
	name := args[0]
	spec := flagSpec{short: "efmnqsz", long: map[string]string{"canonicalize": "f", "canonicalize-existing": "e"}}
	opts, operands, err := spec.parse(args[1:])
	if err != nil {
		return p.usage(name, err.Error(), name+" [-ef] PATH...")
	}
	mustExist, canon := false, name == "realpath"
	for _, o := range opts {
		switch o.name {
		case "e":
			mustExist, canon = true, true
		case "f", "m":
			canon = true
		}
	}
	if len(operands) == 0 {
		return p.usage(name, "missing operand", name+" [-ef] PATH...")
	}
	status := 0
	for _, op := range operands {
		full := p.Path(op)
		if !canon {
			target, err := os.Readlink(full)
			if err != nil {
				status = 1
				continue
			}
			fmt.Fprintln(p.Stdout, target)
			continue
		}
		if resolved, err := resolveLinks(full); err == nil {
			full = resolved
		}
		if mustExist || name == "realpath" && !strings.HasSuffix(op, "/") {
			if _, err := os.Stat(full); err != nil && (mustExist || !os.IsNotExist(err) || !parentExists(full)) {
				p.errorf(name, "%s: %s", op, ErrText(err))
				status = 1
				continue
			}
		}
		fmt.Fprintln(p.Stdout, full)
	}
	return status
}

// resolveLinks follows symbolic links in an absolute path.
func resolveLinks(full string) (string, error) {
	parts := strings.Split(strings.TrimPrefix(full, "/"), "/")
	cur := "/"
	for i := 0; i < len(parts); i++ {
		next := path.Join(cur, parts[i])
		target, err := os.Readlink(next)
		if err != nil {
			cur = next
			continue
		}
		if !path.IsAbs(target) {
			target = path.Join(cur, target)
		}
		if i > 40 {
			return "", fmt.Errorf("too many links")
		}
		cur = path.Clean(target)
	}
	return cur, nil
}

func parentExists(full string) bool {
	_, err := os.Stat(path.Dir(full))
	return err == nil
}
