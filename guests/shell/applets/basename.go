package applets

import (
	"path"
	"strings"
)

func baseName(name, suffix string) string {
	if name == "" {
		return ""
	}
	trimmed := strings.TrimRight(name, "/")
	if trimmed == "" {
		return "/"
	}
	b := path.Base(trimmed)
	if suffix != "" && b != suffix && strings.HasSuffix(b, suffix) {
		b = strings.TrimSuffix(b, suffix)
	}
	return b
}

// basenameApplet strips the directory (and a suffix) from names:
// basename NAME [SUFFIX], basename -a NAME..., basename -s SUFFIX NAME....
func basenameApplet(p *Proc, args []string) int {
	spec := flagSpec{short: "as:z", long: map[string]string{"multiple": "a", "suffix:": "s"}}
	opts, names, err := spec.parse(args[1:])
	usage := "basename NAME [SUFFIX] | basename -a [-s SUFFIX] NAME..."
	if err != nil {
		return p.usage("basename", err.Error(), usage)
	}
	multiple, suffix := false, ""
	for _, o := range opts {
		switch o.name {
		case "a":
			multiple = true
		case "s":
			multiple, suffix = true, o.val
		}
	}
	if len(names) == 0 {
		return p.usage("basename", "missing operand", usage)
	}
	if !multiple {
		if len(names) > 2 {
			return p.usage("basename", "extra operand '"+names[2]+"'", usage)
		}
		if len(names) == 2 {
			suffix = names[1]
		}
		names = names[:1]
	}
	var b strings.Builder
	for _, n := range names {
		b.WriteString(baseName(n, suffix) + "\n")
	}
	if _, err := p.Stdout.Write([]byte(b.String())); err != nil {
		return p.writeFailed("basename", err)
	}
	return 0
}
