module example.com/outside

go 1.26.0

require github.com/faultline-dev/faultline v0.0.0

// The test that builds this program (task/llm's TestOutsideModule) copies it to a
// temporary directory and rewrites this path to the checkout's absolute path.
replace github.com/faultline-dev/faultline => ../../../..
