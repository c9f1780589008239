package applets

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
)

// mvApplet moves (renames) files and directories; between file systems it
// copies and removes.
func mvApplet(p *Proc, args []string) int {
	spec := flagSpec{short: "fnvT", long: map[string]string{"force": "f", "no-clobber": "n", "verbose": "v"}}
	opts, operands, err := spec.parse(args[1:])
	if err != nil {
		return p.usage("mv", err.Error(), "mv [-fnv] SOURCE... DEST")
	}
	var noClobber, verbose bool
	for _, o := range opts {
		switch o.name {
		case "n":
			noClobber = true
		case "v":
			verbose = true
		}
	}
	return p.copyOrMove("mv", operands, func(src, dst, srcName, dstName string) error {
		info, err := os.Lstat(src)
		if err != nil {
			return err
		}
		if noClobber {
			if _, err := os.Lstat(dst); err == nil {
				return nil
			}
		}
		if info.IsDir() && (dst == src || strings.HasPrefix(dst, src+"/")) {
			return fmt.Errorf("cannot move '%s' to a subdirectory of itself, '%s'", srcName, dstName)
		}
		if err := os.Rename(src, dst); err != nil {
			// Across preopened directories a rename can fail; copy instead.
			if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) {
				return err
			}
			if cerr := copyTree(src, dst, info); cerr != nil {
				return cerr
			}
			if rerr := os.RemoveAll(src); rerr != nil {
				return rerr
			}
		}
		if verbose {
			fmt.Fprintf(p.Stdout, "renamed '%s' -> '%s'\n", srcName, dstName)
		}
		return nil
	})
}
