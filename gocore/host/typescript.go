package host

import (
	"errors"

	"amlasandbox/gocore/typescript"
	"amlasandbox/gocore/wire"
)

// fromTypeScript turns a TypeScript process's input into the JavaScript
// one the JavaScript guest runs (gocore/typescript): same lines, types
// stripped. A script that does not compile, or is over the caps, comes
// back as the error text the process prints on stderr (exit status 1, as
// a JavaScript syntax error ends). Inputs of other languages are
// returned as they are.
func fromTypeScript(in wire.Input) (wire.Input, string) {
	if in.Language != wire.LangTypeScript {
		return in, ""
	}
	src := in.Code
	if in.HasStdin {
		src = in.Stdin
	}
	js, err := typescript.Strip(src)
	if err != nil {
		var te *typescript.Error
		if errors.As(err, &te) {
			return in, te.Error() + "\n"
		}
		return in, "Error: " + err.Error() + "\n"
	}
	in.Language = wire.LangJavaScript
	if in.HasStdin {
		in.Stdin = js
	} else {
		in.Code = js
	}
	return in, ""
}
