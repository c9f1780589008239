package main

import (
	"maps"
	"testing"
)

func TestShellEnv(t *testing.T) {
	got := shellEnv(map[string]string{"GITHUB_TOKEN": "amla_secret_GITHUB_TOKEN_0f", "HOME": "/elsewhere"}, "/workspace/sub")
	want := map[string]string{"GITHUB_TOKEN": "amla_secret_GITHUB_TOKEN_0f", "HOME": "/workspace", "PWD": "/workspace/sub", "PATH": "/bin"}
	if !maps.Equal(got, want) {
		t.Errorf("shellEnv = %v, want %v", got, want)
	}
}
