package applets

import (
	"amlasandbox/guests/shell/hostcall"
	"errors"
	"io"
	"io/fs"
	"os"
	"path"
	"strings"
)

// copyOrMove resolves the SOURCE... DEST forms shared by cp and mv and
// calls do for each source with its final destination.
func (p *Proc) copyOrMove(name string, operands []string, do func(src, dst, srcName, dstName string) error) int {
	usage := name + " [OPTION]... SOURCE... DEST"
	switch len(operands) {
	case 0:
		return p.usage(name, "missing file operand", usage)
	case 1:
		return p.usage(name, "missing destination file operand after '"+operands[0]+"'", usage)
	}
	dest := operands[len(operands)-1]
	sources := operands[:len(operands)-1]
	destIsDir := p.isDir(dest)
	if len(sources) > 1 && !destIsDir {
		p.errorf(name, "target '%s': Not a directory", dest)
		return 1
	}
	status := 0
	for _, s := range sources {
		dstName := dest
		if destIsDir {
			dstName = path.Join(dest, path.Base(strings.TrimSuffix(s, "/")))
		}
		if err := do(p.Path(s), p.Path(dstName), s, dstName); err != nil {
			var pe *fs.PathError
			switch {
			case errors.As(err, &pe) && p.Path(s) == pe.Path:
				p.errorf(name, "cannot stat '%s': %s", s, ErrText(err))
			case errors.As(err, &pe):
				p.errorf(name, "cannot create '%s': %s", dstName, ErrText(err))
			case errors.As(err, new(*os.LinkError)):
				p.errorf(name, "cannot move '%s' to '%s': %s", s, dstName, ErrText(err))
			default:
				p.errorf(name, "%s", err)
			}
			status = 1
		}
	}
	return status
}

// copyTree copies a file or, recursively, a directory.
func copyTree(src, dst string, info fs.FileInfo) error {
	if !info.IsDir() {
		return copyFile(src, dst, info.Mode().Perm())
	}
	if err := hostcall.MkdirAll(dst, info.Mode().Perm()|0o700); err != nil {
		return err
	}
	entries, err := os.ReadDir(src)
	if err != nil {
		return err
	}
	for _, e := range entries {
		ei, err := e.Info()
		if err != nil {
			return err
		}
		if ei.Mode()&fs.ModeSymlink != 0 {
			continue // links are not followed out of the tree
		}
		if err := copyTree(path.Join(src, e.Name()), path.Join(dst, e.Name()), ei); err != nil {
			return err
		}
	}
	return nil
}

func copyFile(src, dst string, perm fs.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := hostcall.CreateFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, perm)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
