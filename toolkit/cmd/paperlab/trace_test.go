package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paperlab/paperlab/toolkit/marl/env/overcooked"
)

// TestTraceScript traces a hand-written action file on cramped_room and checks the JSON lines.
func TestTraceScript(t *testing.T) {
	path := filepath.Join(t.TempDir(), "acts.txt")
	os.WriteFile(path, []byte("# player 0 fetches an onion\nN,STAY\nW,STAY\nINTERACT,STAY\nE,S\nN,STAY\nINTERACT,STAY\n"), 0o644)
	var buf bytes.Buffer
	if err := trace([]string{"overcooked:cramped_room", "-actions", path, "-steps", "100"}, &buf); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 6 {
		t.Fatalf("%d lines, want 6", len(lines))
	}
	var last overcooked.TraceStep
	if err := json.Unmarshal([]byte(lines[5]), &last); err != nil {
		t.Fatal(err)
	}
	if last.T != 6 || last.Actions != [2]string{"INTERACT", "STAY"} || last.Shaped[0] != 3 || last.Pots[0].Onions != 1 ||
		last.Players[0].Pos != [2]int{2, 1} || last.Players[1].Pos != [2]int{3, 2} || last.Players[0].Holding != "" {
		t.Fatalf("last line %s", lines[5])
	}
	os.WriteFile(path, []byte("N,STAY\nN,JUMP\n"), 0o644)
	if err := trace([]string{"overcooked:cramped_room", "-actions", path}, &buf); err == nil || !strings.Contains(err.Error(), "acts.txt:2: player 1") {
		t.Fatalf("bad action line: %v", err)
	}
	if err := trace([]string{"overcooked:kitchen9"}, &buf); err == nil {
		t.Fatal("unknown layout accepted")
	}
}
