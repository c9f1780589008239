module amlasandbox

go 1.26.0

require (
	github.com/benhoyt/goawk v1.31.0
	github.com/bytecodealliance/wasmtime-go/v39 v39.0.1
	github.com/dlclark/regexp2 v1.12.0
	github.com/evanw/esbuild v0.27.7
	github.com/itchyny/gojq v0.12.20
	mvdan.cc/sh/v3 v3.14.1
)

require (
	github.com/go-python/gopy v0.4.10 // indirect
	github.com/gonuts/commander v0.1.0 // indirect
	github.com/gonuts/flag v0.1.0 // indirect
	github.com/itchyny/timefmt-go v0.1.9 // indirect
	github.com/pkg/errors v0.9.1 // indirect
	golang.org/x/mod v0.29.0 // indirect
	golang.org/x/sync v0.17.0 // indirect
	golang.org/x/sys v0.47.0 // indirect
	golang.org/x/telemetry v0.0.0-20251008203120-078029d740a8 // indirect
	golang.org/x/tools v0.38.0 // indirect
)

tool (
	github.com/go-python/gopy
	golang.org/x/tools/cmd/goimports
)
