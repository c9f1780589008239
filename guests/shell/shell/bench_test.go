package shell_test

import (
	"testing"

	"amlasandbox/guests/shell/shell"
)

func benchScript(b *testing.B, script string) {
	for i := 0; i < b.N; i++ {
		if st := shell.Run(script, shell.Options{Dir: b.TempDir()}); st != 0 {
			b.Fatalf("status %d", st)
		}
	}
}

func BenchmarkArithLoop(b *testing.B) {
	benchScript(b, "x=0; for ((i=0;i<10000;i++)); do x=$((x+i)); done")
}

func BenchmarkWhileTest(b *testing.B) {
	benchScript(b, "i=0; while [ $i -lt 2000 ]; do i=$((i+1)); done")
}

func BenchmarkSortNumeric(b *testing.B) {
	benchScript(b, "seq 1 100000 | sort -rn > /dev/null")
}

func BenchmarkGrepCount(b *testing.B) {
	benchScript(b, "seq 1 100000 | grep -c 7 > /dev/null")
}
