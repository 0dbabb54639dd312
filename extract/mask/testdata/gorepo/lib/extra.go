package lib

import "os"

// Env reads an environment variable.
func Env(k string) string {
	return os.Getenv(k)
}
