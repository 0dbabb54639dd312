// Package app uses lib.
package app

import "example.com/gofix/lib"

// Run formats.
func Run() string { return lib.Format(1) }
