package applets

import (
	"fmt"
	"strings"
)

// unameApplet describes the sandbox: a WebAssembly (WASI) machine.
func unameApplet(p *Proc, args []string) int {
	fields := map[byte]string{'s': "WASI", 'n': "sandbox", 'r': "preview1", 'v': "amla-sandbox", 'm': "wasm32", 'o': "WASI"}
	var want []byte
	for _, a := range args[1:] {
		if !strings.HasPrefix(a, "-") {
			return p.usage("uname", "extra operand '"+a+"'", "uname [-asnrvmo]")
		}
		for _, c := range []byte(a[1:]) {
			if c == 'a' {
				want = append(want, 's', 'n', 'r', 'v', 'm', 'o')
				continue
			}
			if _, ok := fields[c]; !ok {
				return p.usage("uname", fmt.Sprintf("invalid option -- '%c'", c), "uname [-asnrvmo]")
			}
			want = append(want, c)
		}
	}
	if len(want) == 0 {
		want = []byte{'s'}
	}
	var parts []string
	for _, c := range want {
		parts = append(parts, fields[c])
	}
	fmt.Fprintln(p.Stdout, strings.Join(parts, " "))
	return 0
}
