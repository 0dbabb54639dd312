package sandbox

// DefaultPython returns the interpreter Local uses for pytest when Options.Python is empty:
// the first of /usr/bin/python3, python3 and python (looked up on PATH) that can import
// pytest, as an absolute path. The error wraps ErrNoPython and lists what was tried.
func DefaultPython() (string, error) {
	return findPython([]string{"/usr/bin/python3", "python3", "python"})
}
