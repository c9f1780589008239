package applets

import (
	"fmt"
	"os"
	"strings"
)

// cpApplet copies files; -r copies directories, -n does not overwrite.
// cp SRC DST, or cp SRC... DIR.
func cpApplet(p *Proc, args []string) int {
	spec := flagSpec{short: "rRafnpvT", long: map[string]string{"recursive": "r", "archive": "a",
		"force": "f", "no-clobber": "n", "preserve": "p", "verbose": "v"}}
	opts, operands, err := spec.parse(args[1:])
	if err != nil {
		return p.usage("cp", err.Error(), "cp [-rfnv] SOURCE... DEST")
	}
	var recursive, noClobber, verbose bool
	for _, o := range opts {
		switch o.name {
		case "r", "R", "a":
			recursive = true
		case "n":
			noClobber = true
		case "v":
			verbose = true
		}
	}
	return p.copyOrMove("cp", operands, func(src, dst, srcName, dstName string) error {
		info, err := os.Stat(src)
		if err != nil {
			return err
		}
		if info.IsDir() && !recursive {
			return fmt.Errorf("-r not specified; omitting directory '%s'", srcName)
		}
		if noClobber {
			if _, err := os.Lstat(dst); err == nil {
				return nil
			}
		}
		if info.IsDir() && (dst == src || strings.HasPrefix(dst, src+"/")) {
			return fmt.Errorf("cannot copy a directory, '%s', into itself, '%s'", srcName, dstName)
		}
		if err := copyTree(src, dst, info); err != nil {
			return err
		}
		if verbose {
			fmt.Fprintf(p.Stdout, "'%s' -> '%s'\n", srcName, dstName)
		}
		return nil
	})
}
