package main

import (
	"fmt"
	"os"
	"path/filepath"
)

// The percentile command on a small CSV: numpy's linear 90th percentile of 1..10.
func Example_percentile() {
	dir, err := os.MkdirTemp("", "analyze-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "tasks.csv")
	csv := "task,lines\nt1,1\nt2,2\nt3,3\nt4,4\nt5,5\nt6,6\nt7,7\nt8,8\nt9,9\nt10,10\n"
	if err := os.WriteFile(path, []byte(csv), 0o644); err != nil {
		fmt.Println(err)
		return
	}
	code := run([]string{"percentile", "-in", path, "-col", "lines", "-q", "90"}, os.Stdout, os.Stderr)
	fmt.Println("exit status", code)
	// Output:
	// {"value":9.1}
	// exit status 0
}
