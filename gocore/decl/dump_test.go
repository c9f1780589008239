package decl

import (
	"encoding/json"
	"fmt"
	"os"
	"testing"
)

func TestDump(t *testing.T) {
	f := os.Getenv("DECL_DUMP")
	if f == "" {
		t.Skip()
	}
	data, _ := os.ReadFile(f)
	var tools []Tool
	if err := json.Unmarshal(data, &tools); err != nil {
		t.Fatal(err)
	}
	s := NewSet(tools)
	fmt.Println(s.TypeScript())
	fmt.Println("-----")
	fmt.Println(s.Python())
}
