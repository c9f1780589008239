package applets

import (
	"bufio"
	"encoding/base64"
	"io"
	"strconv"
	"strings"
)

// base64Applet encodes (wrapping at 76 columns, -w N to change, -w 0 for
// none) or decodes (-d, -i to skip invalid characters) base64.
func base64Applet(p *Proc, args []string) int {
	spec := flagSpec{short: "diw:", long: map[string]string{"decode": "d", "ignore-garbage": "i", "wrap:": "w"}}
	opts, files, err := spec.parse(args[1:])
	usage := "base64 [-di] [-w COLS] [FILE]"
	if err != nil {
		return p.usage("base64", err.Error(), usage)
	}
	decode, garbage, wrap := false, false, 76
	for _, o := range opts {
		switch o.name {
		case "d":
			decode = true
		case "i":
			garbage = true
		case "w":
			if wrap, err = strconv.Atoi(o.val); err != nil || wrap < 0 {
				return p.usage("base64", "invalid wrap size: '"+o.val+"'", usage)
			}
		}
	}
	if len(files) > 1 {
		return p.usage("base64", "extra operand '"+files[1]+"'", usage)
	}
	name := inputs(files)[0]
	f, err := p.Open(name)
	if err != nil {
		return p.fileErr("base64", name, err)
	}
	defer f.Close()
	data, err := io.ReadAll(f)
	if err != nil {
		return p.fileErr("base64", name, err)
	}
	out := bufio.NewWriter(p.Stdout)
	if decode {
		clean := strings.Map(func(r rune) rune {
			switch {
			case r >= 'A' && r <= 'Z', r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '+', r == '/', r == '=':
				return r
			case r == '\n' || r == '\r' || garbage:
				return -1
			}
			return r
		}, string(data))
		dec, err := base64.StdEncoding.DecodeString(clean)
		if err != nil {
			// Accept input without padding too.
			if dec, err = base64.RawStdEncoding.DecodeString(strings.TrimRight(clean, "=")); err != nil {
				out.Write(dec)
				out.Flush()
				p.errorf("base64", "invalid input")
				return 1
			}
		}
		out.Write(dec)
	} else {
		enc := base64.StdEncoding.EncodeToString(data)
		for wrap > 0 && len(enc) > wrap {
			out.WriteString(enc[:wrap] + "\n")
			enc = enc[wrap:]
		}
		out.WriteString(enc)
		if enc != "" && wrap > 0 {
			out.WriteString("\n")
		}
	}
	if err := out.Flush(); err != nil {
		return p.writeFailed("base64", err)
	}
	return 0
}
